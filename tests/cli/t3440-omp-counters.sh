#!/bin/sh
# SPDX-License-Identifier: MIT
# Per-thread PAPI counters of each OpenMP region (issue 17): libpmompt.so reads each thread's
# event set at implicit_task begin and end, pmcollect writes OMP_COUNTERS records, pmanalyze sums
# them per region and uses one as Allande's TCM (eq. 2: cf_i = TCM_i / TCM_1). These machines have
# no hardware counters, so the events are the program's own: omp_sde defines the PAPI
# software-defined event sde:::pmt_work::units, a per-thread count whose deltas are known by
# construction (ladder: team thread i adds (i+1) U per instance; master: thread 0 adds 2 U). The
# same PAPI calls read hardware events on a server (docs/regions.md §7).
. "$PMT_TOP/tests/cli/lib.sh"

export KMP_BLOCKTIME=0
EV=sde:::pmt_work::units

# --- one run, a team of 3: every thread's delta of every instance -----------------------------
run_capture "$PMCOLLECT" -q --omp-regions --omp-events "$EV" -t 3 -o "$T/c.zst" -- "$W/omp_sde" -w 2 -r 4 -u 1000
expect_status "omp_sde recorded with --omp-events $EV" 0
cp "$T/out" "$T/truth.jsonl"
"$PMANALYZE" --dump "$T/c.zst" >"$T/dump.jsonl"
run_capture "$PMANALYZE" -q --format json -o "$T/c.json" "$T/c.zst"
expect_status "pmanalyze reads the trace" 0
python3 "$PMT_TOP/tests/cli/checks.py" omp_counters_regions "$T/truth.jsonl" "$T/dump.jsonl" "$T/c.json" "$EV" >"$T/checks"
report_checks "$T/checks" "python3 failed on the trace"
"$PMANALYZE" "$T/c.zst" >"$T/table" 2>&1
if grep -q "per-thread counters, summed over each region's implicit tasks (24 task records)" "$T/table" &&
	grep -Eq "omp_sde.c:[0-9]+ +8000$" "$T/table"; then
	ok "the table lists each region's counter sum"
else
	not_ok "the table lists each region's counter sum" "$(sed -n '/per-thread/,+4p' "$T/table")"
fi

# --- a thread's count ends at the region's closing barrier, not when the runtime next wakes it ----
# LLVM's libomp reports a worker's implicit_task end only when the next region releases it from the
# fork barrier; with KMP_BLOCKTIME=infinite the worker spins there through the serial part, which a
# cycle counter would count. cpu_ns (the thread's CPU time) is such a counter: each delta must be
# the thread's own burn, (i+1) x 5 ms in ladder, 5 ms or 0 in master (burn_ms stops once the
# thread's own CPU clock has advanced that much, so never less), and not the 40 ms serial parts
# it would spin through: under half of one above the burn. The runtime's and the OMPT tool's own
# work in the region lies between, and is not bounded: under the sanitizers it is a measure of the
# machine's speed (a quiet run exceeded 1 ms).
KMP_BLOCKTIME=infinite run_capture "$PMCOLLECT" -q --omp-regions --omp-events "$EV,sde:::pmt_work::cpu_ns" -t 2 \
	-o "$T/spin.zst" -- "$W/omp_sde" -w 5 -s 40 -r 3
expect_status "omp_sde -s 40 with spinning workers recorded" 0
"$PMANALYZE" --dump "$T/spin.zst" >"$T/spin.jsonl"
check "every thread's CPU-time delta is at least its burn in the region and less than its burn plus half the 40 ms serial part it would spin through after it" python3 -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
regions = {(r["pid"], r["id"]): r for r in recs if r["type"] == "omp_region"}
ctr = [r for r in recs if r["type"] == "omp_counters"]
assert len(ctr) == 12, len(ctr)
for c in ctr:
    r = regions[(c["pid"], c["region_id"])]
    i = r["tids"].index(c["tid"])
    burn_ns = (i + 1) * 5e6 if r["id"] % 2 else (5e6 if i else 0)
    assert burn_ns - 0.05e6 <= c["values"][1] < burn_ns + 20e6, (r["id"], i, c["values"])' "$T/spin.jsonl"

# --- runs with 1, 2, 3 threads: Allande's TCM from the counters -------------------------------
run_capture "$PMCOLLECT" -q --omp-regions --omp-events "$EV" -t 1-3 -o "$T/t.zst" -- "$W/omp_sde" -w 2 -r 2
expect_status "-t 1-3 recorded" 0
run_capture "$PMANALYZE" -q --run 2 --tcm-event "$EV" --format json -o "$T/t.json" "$T/t.zst"
expect_status "pmanalyze --tcm-event" 0
python3 "$PMT_TOP/tests/cli/checks.py" omp_counters_tcm "$T/t.json" "$EV" >"$T/checks"
report_checks "$T/checks" "python3 failed on the trace"
# the same as CSV with --allande-all: the regions table (counter sums, TCM, best configurations
# with their estimates), Allande's inputs per thread count, the plans' totals and every
# configuration's SUM and MAX estimate
run_capture "$PMANALYZE" -q --run 2 --tcm-event "$EV" --allande-all --format csv -o "$T/t.csv" "$T/t.zst"
expect_status "pmanalyze --allande-all --format csv" 0
run_capture "$PMANALYZE" -q --run 2 --tcm-event "$EV" --allande-all --format json -o "$T/ta.json" "$T/t.zst"
python3 "$PMT_TOP/tests/cli/checks.py" omp_counters_allande "$T/t.csv" "$T/ta.json" "$EV" >"$T/checks"
report_checks "$T/checks" "python3 failed on the CSV"
run_capture "$PMANALYZE" -q --run 2 --format json -o "$T/t2.json" "$T/t.zst"
check "without --tcm-event (no LLC-miss event among the counters): time only, and why" python3 -c '
import json, sys
al = json.load(open(sys.argv[1]))["regions"]["allande"]
assert al["time_only"] is True and "--tcm-event" in al["time_only_why"], al' "$T/t2.json"
"$PMANALYZE" --run 2 "$T/t.zst" >"$T/table" 2>&1
check "the table says why it is time only" grep -q "time only: run 0 counted no LLC-miss event (name one with --tcm-event)" "$T/table"
"$PMANALYZE" --run 2 --tcm-event "$EV" "$T/t.zst" >"$T/table" 2>&1
check "the table says which TCM it used (--tcm-event)" grep -q "TCM: $EV per region" "$T/table"

# --- what is recorded when the events cannot be counted -----------------------------------------
# (not an sde::: name: PAPI's SDE component accepts any sde::: name as a placeholder for an event a
# library may register later, and counts 0 for it)
reason_of() { "$PMANALYZE" --dump "$1" | python3 -c 'import json,sys
for l in sys.stdin:
    d = json.loads(l)
    if d["type"] == "run_end": c = d["omp_regions"]["counters"]; print(c["recorded"], c.get("reason", ""))'; }
run_capture "$PMCOLLECT" -q --omp-regions --omp-events NOT_AN_EVENT -t 2 -o "$T/bad.zst" -- "$W/omp_sde" -w 1 -r 1
expect_status "an event the program does not define: the run is still recorded" 0
reason=$(reason_of "$T/bad.zst")
case $reason in
"False PAPI in the program: NOT_AN_EVENT: "?*) ok "... and RUN_END says PAPI could not resolve it ($reason)" ;;
*) not_ok "... and RUN_END says PAPI could not resolve it" "got: $reason" ;;
esac
"$PMANALYZE" "$T/bad.zst" >"$T/table" 2>&1
check "... and the table says why there are no counters" grep -q "per-thread counters: none (PAPI in the program: NOT_AN_EVENT" "$T/table"
run_capture "$PMCOLLECT" -q --omp-regions --omp-events none -t 2 -o "$T/none.zst" -- "$W/omp_sde" -w 1 -r 1
check "--omp-events none: no counters, said so" test "$(reason_of "$T/none.zst")" = "False --omp-events none"
run_capture "$PMCOLLECT" -q --omp-regions -t 2 -o "$T/dflt.zst" -- "$W/omp_sde" -w 1 -r 1
if "$PMANALYZE" --dump "$T/dflt.zst" | grep '"type":"run_begin"' | grep -q '"counters":{"events":\[\]'; then
	reason=$(reason_of "$T/dflt.zst")
	case $reason in
	"False hardware counters unavailable: "?*) ok "default without hardware counters: none, with PAPI's reason" ;;
	*) not_ok "default without hardware counters: none, with PAPI's reason" "got: $reason" ;;
	esac
else
	check "default with hardware counters: the cycles and LLC-miss events" sh -c \
		"$PMANALYZE --dump '$T/dflt.zst' | grep '\"type\":\"run_end\"' | grep -q '\"counters\":{\"events\":\[\"[^]]*\"\],\"kinds\":\[\"cycles\",\"llc_misses\"\],\"recorded\":true'"
fi

# --- usage errors: one line, exit 2, nothing run ---------------------------------------------
run_capture "$PMCOLLECT" --omp-events "$EV" -o "$T/u.zst" -- "$W/omp_sde"
expect_status "--omp-events without --omp-regions: exit 2" 2
check "... the error first, then the usage line" grep -qx "pmcollect: error: --omp-events needs --omp-regions" "$T/err"
run_capture "$PMCOLLECT" --omp-regions --omp-events a,b,c,d,e,f,g -o "$T/u.zst" -- "$W/omp_sde"
expect_status "7 events: exit 2" 2
expect_err_line "... one line" "^pmcollect: error: invalid --omp-events 'a,b,c,d,e,f,g': more than 6 events"
run_capture "$PMCOLLECT" --omp-regions --omp-events "a,,b" -o "$T/u.zst" -- "$W/omp_sde"
expect_err_line "an empty event name: one line" "^pmcollect: error: invalid --omp-events 'a,,b': an empty event name"
check "no trace written by the usage errors" test ! -e "$T/u.zst"
run_capture "$PMANALYZE" --tcm-event "" "$T/c.zst"
expect_status "pmanalyze --tcm-event '': exit 2" 2
done_testing
