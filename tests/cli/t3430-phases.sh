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
	python3 "$PMT_TOP/tests/cli/checks.py" phases_truth "$@" "$(cpu_share "$3")" "$PMT_MIN_CPU_SHARE" "$(machine_load)" >"$T/checks"
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
python3 "$PMT_TOP/tests/cli/checks.py" phases_omp "$T/omp.json" "$(cpu_share "$T/omp.json")" "$PMT_MIN_CPU_SHARE" "$PMT_ACCURACY" "$(machine_load)" >"$T/checks"
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
