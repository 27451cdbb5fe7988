#!/bin/sh
# SPDX-License-Identifier: MIT
# The phase fallback (issue 17): a program without OMPT (the pthreads `phases` workload) recorded
# with --omp-regions has no regions, so pmanalyze segments the run into phases: maximal intervals
# with >= 2 active threads, cut at serial gaps over one sampling interval. By construction
# `phases -t 4 -r 3 serial` alternates a serial step (thread 0 burns, the others wait at the
# barrier) and a step where all 4 threads burn: 3 parallel phases, each from the end of a serial
# step to the end of the next step (the workload prints CLOCK_MONOTONIC at every step's end), with
# A = 4 inside. Checked with scheduler events (exact boundaries) and without (from the samples):
# the number of phases, and each boundary within one sampling interval (the issue's bound). Then
# --phases on a trace recorded without --omp-regions, and per-region A from samples on a trace of
# omp_regions recorded with --no-sched; a program killed inside a region.
. "$PMT_TOP/tests/cli/lib.sh"

sched=1
if [ "$(id -u)" -ne 0 ] || [ ! -d /sys/kernel/tracing/instances ]; then sched=0; fi

# phase_checks LABEL TRUTH JSON DUMP: the phases against the workload's step times. The program's
# 4 threads share CPU 0: when other load gives it under PMT_MIN_CPU_SHARE of that CPU, threads
# waiting on its run queue read as parallel (seen at load 12 with the program at 46% of its CPU: a
# fourth "phase" in the first 30 ms, the threads just started), so make check reports a skip with
# the share and the load (issue 33); make check-accuracy asserts the phases at any share.
phase_checks() {
	python3 - "$@" "$(cpu_share "$3")" "$PMT_MIN_CPU_SHARE" "$(machine_load)" >"$T/checks" <<'EOF'
import json, os, sys
label, truth_p, json_p, dump_p = sys.argv[1:5]
share, min_share, load = float(sys.argv[5]), float(sys.argv[6]), sys.argv[7]
truth = json.loads(open(truth_p).read().strip().splitlines()[-1])
g = json.load(open(json_p))["regions"]
t0 = [json.loads(l) for l in open(dump_p) if '"type":"run_begin"' in l][0]["t_ns"]
def check(what, cond, why=""):
    print(("ok " if cond else "fail ") + label + ": " + what + ("" if cond else ": " + why))
gap = g["gap_ns"]
if gap > 1.5 * 20e6:
    # the collector itself did not get a CPU for its samples: nothing to check against
    print("skip %s: phases: machine busy: mean sampling interval %.0f ms for -i 20" % (label, gap / 1e6))
    sys.exit(0)
if share < min_share and os.environ.get("PMT_ACCURACY") != "strict":
    print("skip %s: phases: machine busy: the program had %.3f of its CPU (< %.2f; %s); make check-accuracy asserts them"
          % (label, share, min_share, load))
    sys.exit(0)
ends = [e - t0 for e in truth["step_end_ns"]]
want = [(ends[2 * k], ends[2 * k + 1]) for k in range(truth["repeats"])]
rows = sorted((r for r in g["rows"]), key=lambda r: r["phase"])
check("rows are phases, method %s" % g["A_source"], g["rows_are"] == "phases", str(g.get("rows_are")))
check("%d phases, as many as the parallel steps" % len(want), len(rows) == len(want),
      str([(r["begin_ns"] / 1e6, r["end_ns"] / 1e6) for r in rows]) + " want " +
      str([(b / 1e6, e / 1e6) for b, e in want]))
# A boundary is known to the sampling interval that holds it. Samples come late on a busy machine
# (a quiet CI run: mean 19.2 ms for -i 20, one gap of 34 ms, a boundary 22.6 ms off), so make
# check bounds the error by the run's longest gap between samples; make check-accuracy
# (PMT_ACCURACY=strict) by the mean interval.
ts = sorted(json.loads(l)["t_ns"] for l in open(dump_p) if '"type":"sample"' in l)
longest = max((b - a for a, b in zip(ts, ts[1:])), default=gap)
bound = gap if os.environ.get("PMT_ACCURACY") == "strict" else max(gap, longest)
if len(rows) == len(want):
    err = max(max(abs(r["begin_ns"] - b), abs(r["end_ns"] - e)) for r, (b, e) in zip(rows, want))
    check("boundaries within one sampling interval (%.1f ms; mean %.1f ms, longest %.1f ms; worst %.2f ms)" %
          (bound / 1e6, gap / 1e6, longest / 1e6, err / 1e6),
          err <= bound, str([(r["begin_ns"] / 1e6, b / 1e6, r["end_ns"] / 1e6, e / 1e6) for r, (b, e) in zip(rows, want)]))
    # A inside a phase of 4 balanced threads: 4, less the barrier's drain at its end
    check("A of each phase is 4 within 15%", all(abs(r["A"] - 4) <= 0.6 for r in rows), str([r["A"] for r in rows]))
EOF
	report_checks "$T/checks" "$(head -c 600 "$3")"
}

for mode in sched no-sched; do
	if [ $mode = sched ] && [ $sched = 0 ]; then
		skip "phases from scheduler events" "needs root and tracefs"
		continue
	fi
	run_capture "$PMCOLLECT" -q --$mode --omp-regions --cpus 0 -i 20 -o "$T/$mode.zst" -- \
		"$W/phases" -t 4 -w 40 -s 60 -r 3 serial
	expect_status "phases recorded with --omp-regions --$mode" 0
	cp "$T/out" "$T/$mode.truth"
	"$PMANALYZE" -q --format json -o "$T/$mode.json" "$T/$mode.zst"
	"$PMANALYZE" --dump "$T/$mode.zst" >"$T/$mode.dump"
	phase_checks "$mode" "$T/$mode.truth" "$T/$mode.json" "$T/$mode.dump"
done
run_capture "$PMANALYZE" -q "$T/no-sched.zst"
check "table: the phases, the method named" grep -q '^Phases of run 0 (no OpenMP region recorded): [0-9]* phases* .* from the samples' "$T/out"

# --phases on a trace without --omp-regions
"$PMCOLLECT" -q --no-sched --cpus 0 -i 20 -o "$T/plain.zst" -- "$W/phases" -t 4 -w 40 -s 60 -r 2 serial >"$T/plain.truth"
run_capture "$PMANALYZE" -q --phases --format json -o "$T/plain.json" "$T/plain.zst"
expect_status "--phases on a trace recorded without --omp-regions" 0
check "--phases: 2 phases (unless the samples were late), reason says no --omp-regions" python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["regions"]
sys.exit(not (g["rows_are"] == "phases" and (len(g["rows"]) == 2 or g["gap_ns"] > 30e6) and
              g["reason"] == "not recorded with --omp-regions"))' "$T/plain.json"
run_capture "$PMANALYZE" -q --format json -o "$T/plain2.json" "$T/plain.zst"
check "without --phases no regions key" python3 -c '
import json, sys
sys.exit("regions" in json.load(open(sys.argv[1])))' "$T/plain2.json"
run_capture "$PMANALYZE" -q --phases --format csv "$T/plain.zst"
check "CSV: phase rows" grep -q '^phase 1,' "$T/out"

# per-region A without scheduler events: from the samples inside the windows (the imbalanced
# region: thread i burns (i+1) x 40 ms, A = 2.5; a 10 ms interval against 400 ms windows)
export KMP_BLOCKTIME=0
run_capture "$PMCOLLECT" -q --no-sched --omp-regions --cpus 0 -i 10 -t 4 -o "$T/omp.zst" -- "$W/omp_regions" -w 40
expect_status "omp_regions recorded with --no-sched" 0
"$PMANALYZE" -q --format json -o "$T/omp.json" "$T/omp.zst"
# The samples read "runnable, not running" as waiting for the program's own threads: other load on
# CPU 0 biases A (lib.sh PMT_MIN_CPU_SHARE), so make check skips below that share, with the share
# and the load (issue 33); make check-accuracy asserts it.
python3 - "$T/omp.json" "$(cpu_share "$T/omp.json")" "$PMT_MIN_CPU_SHARE" "$PMT_ACCURACY" "$(machine_load)" >"$T/checks" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
share, min_share, strict, load = float(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "strict", sys.argv[5]
g = d["regions"]
A = {r["function"]: r["A"] for r in g["rows"] if r["depth"] == 1}
iv = d["parallelism"]["mean_interval_ms"]
what = "regions without scheduler events: A from the samples, imbalanced 2.5 and balanced 3 within 15%"
if iv > 15:
    print("skip %s: machine busy: mean sampling interval %.0f ms for -i 10" % (what, iv))
elif share < min_share and not strict:
    print("skip %s: machine busy: the program had %.3f of its CPU (< %.2f; %s); make check-accuracy asserts it" % (what, share, min_share, load))
else:
    ok = g["A_source"] == "samples" and abs(A["imbalanced"] - 2.5) <= 0.375 and abs(A["balanced"] - 3) <= 0.45
    print(("ok %s" if ok else "fail %s: %s %s") % ((what,) if ok else (what, g["A_source"], A)))
EOF
report_checks "$T/checks" "$(head -c 600 "$T/omp.json")"

# a program killed inside a region (the first, balanced, region burns 10 s per thread; killed after
# 2 s): the trace stays readable and that region is there, marked open, ending at the run's end
run_capture "$PMCOLLECT" -q --omp-regions -t 2 -o "$T/kill.zst" -- timeout -s KILL 2 "$W/omp_regions" -w 10000
check "killed program: pmcollect exits 128 + SIGKILL" test "$rc" -eq 137
run_capture "$PMANALYZE" -q --format json -o "$T/kill.json" "$T/kill.zst"
expect_status "killed program: the trace is readable" 0
check "killed program: one instance, balanced omp_regions.c, marked open, within the run" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
g = d["regions"]
r = g["rows"]
print(g["open_instances"], [(x["name"], x["calls"], x["open"], x["time_ns"]) for x in r])
sys.exit(not (g["open_instances"] == 1 and len(r) == 1 and r[0]["function"] == "balanced" and
              r[0]["open"] == 1 and r[0]["calls"] == 1 and 0 < r[0]["time_ns"] <= d["parallelism"]["wall_s"] * 1e9))' "$T/kill.json"
run_capture "$PMANALYZE" -q "$T/kill.zst"
check "killed program: the table marks the open region" grep -q '^  \* 1 instance never ended' "$T/out"
done_testing
