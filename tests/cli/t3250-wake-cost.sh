#!/bin/sh
# SPDX-License-Identifier: MIT
# The machine's wake-up cost (issue 35): pmcollect --calibrate-wake measures a futex ping-pong per
# pair class into META wake_cost, --info shows it, pmanalyze charges it to the sched-exact replay's
# cross-core wakes. What holds at any load: the record round-trips (the --info line is the dumped
# median), a program trace takes the calibration of a --calibrate-wake operand, the charge only
# lengthens T(n), --no-wake-cost takes it away. The replay's arithmetic on synthetic streams is in
# tests/unit/test_exact.c. With PMT_ACCURACY=strict (make check-accuracy): barrier programs at
# regions of 0.1, 1 and 100 ms, predicted S(4,2) within 15% of the measured median of alternated
# runs on 1 and 2 CPUs, or inside the ±2σ the report gives it (a quiet machine only). The 5%
# figure is make bench's (tests/bench/bench.py wake_cost, with its spread): on a quiet 2-vCPU
# virtual machine the measured side alone moves by more than 5% between minutes (a 100 ms-region
# program, whose prediction 1.99 no wake-up can move, measured 1.80-1.94), so no quiet machine of
# this kind passes it every time.
. "$PMT_TOP/tests/cli/lib.sh"

# --- the calibration alone: a trace of META, a line on stderr, nothing with -q
run_capture "$PMCOLLECT" --calibrate-wake -o "$T/cal.zst"
expect_status "--calibrate-wake without a command succeeds" 0
check "--calibrate-wake: the same-CPU pair on stderr" \
	grep -Eq '^pmcollect: wake-up cost \(futex ping-pong, one way\): same_cpu CPUs ([0-9]+),\1 [0-9.]+ us \([0-9.]+-[0-9.]+\)' "$T/err"
run_capture "$PMCOLLECT" -q --calibrate-wake -o "$T/cal-q.zst"
check "--calibrate-wake -q: nothing on stderr" test ! -s "$T/err"

# the record as written, and as --info shows it
"$PMANALYZE" --dump "$T/cal.zst" | python3 -c 'import json,sys
for l in sys.stdin:
    d=json.loads(l)
    if d["type"]=="meta":
        json.dump(d["wake_cost"], open(sys.argv[1], "w"))' "$T/wake.json"
check "META wake_cost: the same CPU first, min <= median <= max, the threads' CPU time, 9 batches of 500 round trips" python3 -c 'import json,sys
w=json.load(open(sys.argv[1]))
p=w["pairs"]
assert w["method"]=="futex ping-pong" and w["unit"]=="ns one-way", w
assert p[0]["class"]=="same_cpu" and p[0]["cpus"][0]==p[0]["cpus"][1], p[0]
for q in p:
    assert 0 < q["min_ns"] <= q["median_ns"] <= q["max_ns"], q
    assert 0 < q["cpu_ns"], q
    assert q["batches"]==9 and q["round_trips"]==500, q
    assert q["class"]=="same_cpu" or q["cpus"][0]!=q["cpus"][1], q' "$T/wake.json"
ncpus=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
if [ "$ncpus" -ge 2 ]; then
	check "META wake_cost: a pair of two CPUs beside the same CPU" python3 -c 'import json,sys
p=json.load(open(sys.argv[1]))["pairs"]
assert len(p) >= 2 and p[1]["class"] in ("smt","shared_cache","same_package","other_package"), p' "$T/wake.json"
else
	skip "META wake_cost: a pair of two CPUs beside the same CPU" "one usable CPU"
fi
"$PMANALYZE" --info "$T/cal.zst" >"$T/info" 2>&1
python3 -c 'import json,sys
p=json.load(open(sys.argv[1]))["pairs"]
for i,q in enumerate(p):
    print("%-13s%s, CPUs %d and %d: %.2f us one-way (batches %.2f-%.2f us; futex ping-pong)" % (
        "" if i else "wake cost", q["class"], q["cpus"][0], q["cpus"][1], q["median_ns"]/1e3,
        q["min_ns"]/1e3, q["max_ns"]/1e3))' "$T/wake.json" >"$T/info.want"
check "--info: one line per pair, the recorded medians and ranges" sh -c 'grep -F -f "$1" "$2" | cmp -s - "$1"' sh "$T/info.want" "$T/info"
check "--info: no wake cost line in a trace without it" sh -c '! "$1" --info "$2" | grep -q "^wake cost"' sh "$PMANALYZE" "$PMT_TOP/sample-traces/pigz-8t-cpu0.zst"

# --- the replay charges it: a barrier program recorded on 1 CPU, analyzed with the calibration
run_capture "$PMCOLLECT" -q -t 4 --cpus 0 -o "$T/bar.zst" -- "$W/cond_barrier" 200 2000
expect_status "cond_barrier on 1 CPU recorded" 0
if ! "$PMANALYZE" --info "$T/bar.zst" | grep -q "scheduler events"; then
	skip "the replay charges the calibration" "no scheduler events (not root, or no tracefs)"
else
	"$PMANALYZE" --cores 1,2,4 --format json "$T/bar.zst" "$T/cal.zst" >"$T/with.json"
	"$PMANALYZE" --cores 1,2,4 --format json --no-wake-cost "$T/bar.zst" "$T/cal.zst" >"$T/without.json"
	"$PMANALYZE" --cores 1,2,4 "$T/bar.zst" "$T/cal.zst" >"$T/with.txt"
	"$PMANALYZE" --cores 1,2,4 --no-wake-cost "$T/bar.zst" "$T/cal.zst" >"$T/without.txt"
	check "report: the wake cost line names the calibration trace" grep -q "^wake cost    the replay charges [0-9.]* ± [0-9.]* us per cross-core wake (.*from $T/cal.zst)" "$T/with.txt"
	check "--no-wake-cost: no wake cost line" sh -c '! grep -q "^wake cost" "$1"' sh "$T/without.txt"
	# T(1) is U either way (a same-core wake's cost is in the recorded CPU time); on 2 and 4 cores
	# the charge lengthens T when the calibration has a cross-core pair costlier than the same CPU
	check "T(1) unchanged, T(2) and T(4) no shorter, T_err_s only with the charge" python3 -c 'import json,sys
w=json.load(open(sys.argv[1])); o=json.load(open(sys.argv[2])); c=json.load(open(sys.argv[3]))["pairs"]
tw={q["cores"]:q for q in w["predictions"]}; to={q["cores"]:q for q in o["predictions"]}
assert abs(tw[1]["T_s"]-to[1]["T_s"]) <= 1e-9*to[1]["T_s"], (tw[1], to[1])
for n in (2, 4):
    assert tw[n]["T_s"] >= to[n]["T_s"]*(1-1e-9), (n, tw[n], to[n])
    assert "T_err_s" not in to[n] and tw[n]["T_err_s"] >= 0, (tw[n], to[n])
if len(c) > 1 and c[1]["median_ns"] > c[0]["median_ns"]:
    assert tw[4]["T_s"] > to[4]["T_s"], (tw[4], to[4])' "$T/with.json" "$T/without.json" "$T/wake.json"
fi

# --- make check-accuracy: predicted S(4,2) within 15% of the measured median (quiet machine): the
# measured side's own spread here (7%) plus the model's error on these programs (up to 8% in a
# quiet clean-clone run); make bench reports the figure and its spread
accuracy_case() { # NAME ENV PROGRAM ARGS...
	name=$1 envset=$2; shift 2
	env $envset "$PMCOLLECT" -q -f -o "$T/acc.zst" --calibrate --repeat 3 -t 4 -- "$@" >/dev/null 2>&1
	"$PMANALYZE" --cores 1,2 --format json "$T/acc.zst" >"$T/acc.json" 2>/dev/null
	S=$(python3 -c 'import json,sys
print([q["S"] for q in json.load(open(sys.argv[1]))["predictions"] if q["cores"]==2][0])' "$T/acc.json")
	Se=$(python3 -c 'import json,sys
print([q.get("S_err") or 0 for q in json.load(open(sys.argv[1]))["predictions"] if q["cores"]==2][0])' "$T/acc.json")
	: >"$T/walls"
	# 9 alternated pairs: on the quiet VM the median of 5 ranged 1.80-1.94 for a 100 ms-region
	# program whose prediction (1.99) no wake-up can move
	for _ in 1 2 3 4 5 6 7 8 9; do
		env $envset OMP_NUM_THREADS=4 taskset -c 0 "$@" | tail -n 1 >>"$T/walls"
		env $envset OMP_NUM_THREADS=4 taskset -c 0-1 "$@" | tail -n 1 >>"$T/walls"
	done
	Sm=$(python3 -c 'import json,statistics,sys
w=[json.loads(l)["wall_ms"] for l in open(sys.argv[1])]
print(statistics.median(w[0::2])/statistics.median(w[1::2]))' "$T/walls")
	# within 15%, or else inside the ±2σ the report states: S_err holds the model's error measured
	# on the trace's own runs on 2 CPUs (docs/model.md "Uncertainty"), and the runs here are
	# separate ones, so this is the held-out check of that interval
	if awk -v g="$S" -v w="$Sm" -v e="$Se" 'BEGIN{d=g-w; if(d<0)d=-d; exit !(d<=0.15*w || d<=2*e)}'; then
		ok "accuracy: $name: predicted S(4,2) within 15% of the measured, or inside its ±2σ ($S ± $Se vs $Sm)"
	else
		not_ok "accuracy: $name: predicted S(4,2) within 15% of the measured, or inside its ±2σ" \
			"predicted $S ± $Se, measured $Sm" "$(machine_load)"
	fi
	# what the prediction rested on, for the log: the charge, and the trace's own runs on 2 CPUs
	"$PMANALYZE" --cores 1,2 "$T/acc.zst" 2>/dev/null | grep -E '^(wake cost|measured) ' |
		cut -c1-230 | sed 's/^/#   /'
}
if [ "$PMT_ACCURACY" = strict ]; then
	accuracy_case "omp_barrier 0.1 ms regions" "X=1" "$W/omp_barrier" 7500 6000
	accuracy_case "omp_barrier 0.1 ms regions, passive" "OMP_WAIT_POLICY=passive" "$W/omp_barrier" 7500 6000
	accuracy_case "cond_barrier 0.1 ms regions" "X=1" "$W/cond_barrier" 7500 6000
	accuracy_case "omp_barrier 1 ms regions" "X=1" "$W/omp_barrier" 750 60000
	accuracy_case "cond_barrier 1 ms regions" "X=1" "$W/cond_barrier" 750 60000
	accuracy_case "omp_barrier 100 ms regions" "X=1" "$W/omp_barrier" 8 6000000
	accuracy_case "cond_barrier 100 ms regions" "X=1" "$W/cond_barrier" 8 6000000
else
	skip "accuracy: barrier programs at 0.1, 1 and 100 ms regions, predicted S(4,2) within 15% of measured" \
		"timing needs a quiet machine: make check-accuracy (PMT_ACCURACY=strict) asserts it"
fi
done_testing
