#!/bin/sh
# SPDX-License-Identifier: MIT
# The training table of --learn and --toep (analyzer/studies/learn.c, docs/energy.md §3) has one
# row per run that exited 0: a run that failed measured its failure, not the program (the
# fixture's calibration run exited 1 after a tenth of the work, 0.05 s, and was a row saying that
# 2 CPUs take 0.05 s). The runs left out are counted in a note (learn-failed-runs). The expected
# rows and the note's run are taken from the traces' records (pmanalyze --dump), not from the
# report.
. "$PMT_TOP/tests/cli/lib.sh"

FX="$PMT_TOP/tests/fixtures/traces"
# A failed calibration run beside a calibration whose runs all exited 0 (two programs, three
# configurations that exited 0)
set -- "$FX/calibration-run-failed.zst" "$FX/cal-triad-8t-rep3.zst"

# expect TRACE...: "rows failed first_run first_status" over the traces in the order given: rows
# the runs that exited 0, failed the others (RUN_BEGIN without a RUN_END that exited 0), the
# first failed run's id and status as the note words it ("exited 1")
expect() {
	for f in "$@"; do "$PMANALYZE" --dump "$f"; echo '{"type":"next_trace"}'; done | python3 -c 'import json,sys
rows=failed=0; first=None; runs={}
def flush():
    global rows, failed, first
    for rid, end in runs.items():
        e = end and end.get("exit", {})
        if e and e.get("kind") == "exited" and e.get("code") == 0:
            rows += 1
            continue
        failed += 1
        if first is None:
            first = "%d %s" % (rid, "exited %d" % e["code"] if e and e.get("kind") == "exited" else
                               "was killed by signal %d" % e["signal"] if e and e.get("kind") == "signaled" else
                               "recorded no exit status")
    runs.clear()
for l in sys.stdin:
    d = json.loads(l)
    if d["type"] == "run_begin": runs[d["run_id"]] = None
    elif d["type"] == "run_end": runs[d["run_id"]] = d
    elif d["type"] == "next_trace": flush()
print(rows, failed, first or "- -")'
}
read -r rows failed run status <<EOF
$(expect "$@")
EOF
# the fixture's own description (tests/fixtures/README.md): run 1 exited 1, the others exited 0
check "the records: one run that did not exit 0, run 1, exited 1 ($rows rows, $failed failed)" \
	test "$failed $run $status" = "1 1 exited 1"
note="left out of the training table: $failed run that did not exit 0 (run $run of '$1' $status): a failed run measures its failure, not the program"

run_capture "$PMANALYZE" -q --learn "$@"
expect_status "--learn on a failed calibration run and a good one" 0
check "table: $rows rows, the runs that exited 0" grep -q "^training table: $rows runs, " "$T/out"
check "table: one note counts the run left out and names it" sh -c '[ "$(grep -c "^note: " "$1")" = 1 ] && grep -qxF "note: $2" "$1"' sh "$T/out" "$note"

run_capture "$PMANALYZE" -q --learn --format json "$@"
check "JSON: runs $rows, the note in notes" python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
assert d["runs"]==int(sys.argv[2]) and d["notes"]==[sys.argv[3]], (d["runs"], d["notes"])' "$T/out" "$rows" "$note"

run_capture "$PMANALYZE" -q --learn --format csv "$@"
# the forests predict every row held out (the model only those with a baseline in the training
# folds)
check "CSV: the forests' rows are the $rows runs that exited 0" sh -c '[ "$(grep -c "^\"forest, .*,$2\$" "$1")" = 2 ]' sh "$T/out" "$rows"

run_capture "$PMANALYZE" -q --toep --format json "$@"
check "--toep: the same table, runs $rows" python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); assert d["runs"]==int(sys.argv[2]), d["runs"]' "$T/out" "$rows"

# A run that exited 3: counted with the fixture's, the first named; alone, no row at all
"$PMCOLLECT" -q --no-sched -o "$T/exit3.pmt" -- sh -c 'exit 3' >/dev/null 2>&1
read -r rows failed run status <<EOF
$(expect "$@" "$T/exit3.pmt")
EOF
run_capture "$PMANALYZE" -q --learn "$@" "$T/exit3.pmt"
check "two runs left out: the note counts both ($failed) and names the first" grep -qxF \
	"note: left out of the training table: $failed runs that did not exit 0 (run $run of '$1' $status): a failed run measures its failure, not the program" "$T/out"
run_capture "$PMANALYZE" -q --learn "$T/exit3.pmt"
expect_status "--learn on a run that exited 3 only fails" 1
expect_err_line "no row: the error says no run exited 0" "^pmanalyze: error: no run that exited 0 with samples in the traces\$"

done_testing
