#!/bin/sh
# SPDX-License-Identifier: MIT
# Memory-contention calibration (issue 4): pmcollect --calibrate records the baseline and the core
# counts the memory model needs in one trace; pmanalyze computes omega(n) = C(n)/C(1) - 1 (Tudor &
# Teo, eq. 7) from them. What is robust on this 2-CPU VM without counters: the runs and roles, C(n)
# from schedstat CPU time, omega(2) equal to the ratio of the recorded C values, and a compute-bound
# program's omega(2) near 0 (docs/memory-model.md: the memory-bound triad's omega(2) measured 0.02
# to 0.15 here, too noisy on a shared VM to assert an ordering). Bad input: missing runs, mixed
# programs, a single core count.
. "$PMT_TOP/tests/cli/lib.sh"

# progress (issue 14 part 4): [k/N] lines on a terminal or with --progress, none otherwise or with -q
run_capture "$PMCOLLECT" --calibrate --repeat 1 -t 2 -o "$T/p0.zst" -- "$W/phases" -t 2 -w 20 -r 1 balanced
check "progress: none when stderr is not a terminal" sh -c '! grep -q "^pmcollect: \[" "$1"' sh "$T/err"
if command -v script >/dev/null 2>&1; then
	script -qec "'$PMCOLLECT' --calibrate --repeat 1 -t 2 -o '$T/p1.zst' -- '$W/phases' -t 2 -w 20 -r 1 balanced >/dev/null" /dev/null >"$T/tty" 2>&1
	check "progress: [1/2] and [2/2] when stderr is a terminal" sh -c 'grep -q "^pmcollect: \[1/2\] baseline" "$1" && grep -q "^pmcollect: \[2/2\] calibration" "$1"' sh "$T/tty"
	script -qec "'$PMCOLLECT' -q --calibrate --repeat 1 -t 2 -o '$T/p2.zst' -- '$W/phases' -t 2 -w 20 -r 1 balanced >/dev/null" /dev/null >"$T/tty" 2>&1
	check "progress: none with -q on a terminal" sh -c '! grep -q "^pmcollect: \[" "$1"' sh "$T/tty"
else
	skip "progress: [1/2] and [2/2] when stderr is a terminal" "no script(1) (bsdutils) to give pmcollect a terminal"
	skip "progress: none with -q on a terminal" "no script(1) (bsdutils)"
fi

# C of run N from the trace's RUN_END records
run_C() { "$PMANALYZE" --dump "$2" | python3 -c 'import json,sys
for l in sys.stdin:
    d=json.loads(l)
    if d["type"]=="run_end" and d["run_id"]==int(sys.argv[1]): print(d["C"]["value"])' "$1"; }

for kind in triad compute; do
	args="-t 2 -m 64 -r 30"; [ $kind = compute ] && args="$args -c"
	# shellcheck disable=SC2086
	run_capture "$PMCOLLECT" --calibrate --progress --repeat 1 -t 2 -o "$T/$kind.zst" -- "$W/triad" $args
	expect_status "$kind: --calibrate succeeds" 0
	# the first line comes as the plan starts, before the baseline runs: its elapsed time is below
	# the second line's, which comes after the baseline's triad (seconds on 1 CPU). 0.0 s on a quiet
	# machine, but no bound in seconds: a loaded machine delays pmcollect's start-up by any amount
	# (issue 33)
	e1=$(sed -n 's/^pmcollect: \[1\/2\] baseline, CPUs 0, elapsed \([0-9]*\.[0-9]\) s$/\1/p' "$T/err")
	e2=$(sed -n 's/^pmcollect: \[2\/2\] calibration, CPUs 0-1, elapsed \([0-9]*\.[0-9]\) s$/\1/p' "$T/err")
	if [ -n "$e1" ] && [ -n "$e2" ] && awk -v a="$e1" -v b="$e2" 'BEGIN { exit !(a < b) }' &&
		grep -Eq '^pmcollect: 2 runs done in [0-9.]+ s$' "$T/err"
	then ok "$kind: --progress: [k/N] lines on stderr"; else not_ok "$kind: --progress: [k/N] lines on stderr" "$(cat "$T/err")"; fi
	# the plan's decisions, once, with their reasons (session/plan.c pmc_plan_make)
	if grep -qx 'pmcollect: plan: cal_package: 2 core counts from the topology: 1, the first package.s 2 cores' "$T/err" &&
		grep -qx 'pmcollect: plan: repeat: 1 round of 2 runs (--repeat)' "$T/err"
	then ok "$kind: --progress: the plan's reasons"; else not_ok "$kind: --progress: the plan's reasons" "$(cat "$T/err")"; fi
	"$PMANALYZE" --dump "$T/$kind.zst" | grep '"type":"run_begin"' >"$T/begin"
	if [ "$(wc -l <"$T/begin")" -eq 2 ] && sed -n 1p "$T/begin" | grep -q '"role":"baseline".*"cpus":"0"' &&
		sed -n 2p "$T/begin" | grep -q '"role":"calibration".*"cpus":"0-1"'
	then ok "$kind: baseline on 1 CPU and calibration on 2 in one trace"; else not_ok "$kind: runs" "$(cat "$T/begin")"; fi
	run_capture "$PMANALYZE" -q --format json "$T/$kind.zst"
	cp "$T/out" "$T/$kind.json"
	expect_status "$kind: analyzed" 0
	check "$kind: C(n) source is cpu_time, model single-socket" test \
		"$(json_get "$T/$kind.json" memory.source) $(json_get "$T/$kind.json" memory.model)" = "cpu_time single-socket"
	C1=$(run_C 0 "$T/$kind.zst"); C2=$(run_C 1 "$T/$kind.zst")
	want=$(awk -v a="$C1" -v b="$C2" 'BEGIN{printf "%.17g", b/a - 1}')
	near "$kind: omega_measured(2) = C(2)/C(1) - 1 of the recorded runs" \
		"$(json_get "$T/$kind.json" memory.points.1.omega_measured)" "$want" 1e-6
	near "$kind: fitted omega(2) is the measured one (two points, exact fit)" \
		"$(json_get "$T/$kind.json" predictions.1.omega_fitted)" "$want" 1e-6
	# one run per core count has no spread: a negative omega is taken as 0 (issue 13)
	near "$kind: predicted omega(2) is the fitted one, 0 when negative" \
		"$(json_get "$T/$kind.json" predictions.1.omega)" \
		"$(awk -v w="$want" 'BEGIN{printf "%.17g", w < 0 ? 0 : w}')" 1e-6
	check "$kind: prediction says where omega came from" test "$(json_get "$T/$kind.json" predictions.1.omega_source)" = cpu_time
	echo "# $kind: omega(2) = $want (C(1) = $C1 ns, C(2) = $C2 ns)"
done
w=$(json_get "$T/compute.json" memory.points.1.omega_measured)
# One calibration run per core count is noise on a shared machine (issue 11: -0.18 once on a quiet
# one, issue 13 will repeat and give a spread): the 0.15 figure is make check-accuracy's; make
# check keeps a sanity bound that a wrong unit or sign of C(n) would still break.
wtol=0.5; [ "$PMT_ACCURACY" = strict ] && wtol=0.15
if awk -v w="$w" -v t="$wtol" 'BEGIN{exit !(w > -t && w < t)}'
then ok "compute-bound: |omega(2)| < $wtol ($w)"; else not_ok "compute-bound: |omega(2)| < $wtol" "omega(2) = $w" "$(machine_load)"; fi
check "optimal_cores is given" test "$(json_get "$T/triad.json" optimal_cores)" -ge 1

# --- --calibrate --repeat (issue 13): C(n) a median with a spread, omega(2) with an uncertainty ---
# --repeat 3 alone: exactly 3 rounds, interleaved: baseline, calibration, baseline, calibration, ...
run_capture "$PMCOLLECT" --calibrate --repeat 3 -t 2 -o "$T/rep.zst" -- "$W/triad" -t 2 -m 64 -r 30 -c
expect_status "--calibrate --repeat 3 runs 3 rounds" 0
"$PMANALYZE" --dump "$T/rep.zst" | grep '"type":"run_begin"' | sed 's/.*"role":"\([a-z]*\)".*"rep":\([0-9]\).*/\1 \2/' | tr '\n' ' ' >"$T/roles"
if [ "$(cat "$T/roles")" = "baseline 0 calibration 0 baseline 1 calibration 1 baseline 2 calibration 2 " ]
then ok "repetitions interleaved: $(cat "$T/roles")"; else not_ok "repetitions interleaved" "$(cat "$T/roles")"; fi
run_capture "$PMANALYZE" -q --format json "$T/rep.zst"
cp "$T/out" "$T/rep.json"
python3 "$PMT_TOP/tests/cli/checks.py" calibrate_repeat "$T/rep.json" "${PMT_ACCURACY:-}" >"$T/rep.out" 2>&1
if grep -qx ok "$T/rep.out"; then ok "compute-bound, 3 runs per core count: $(head -1 "$T/rep.out"), |omega(2)| inside it; no S above n"
else not_ok "compute-bound, repeated calibration" "$(tail -c 500 "$T/rep.out")" "$(machine_load)"; fi

# --- bad input ----------------------------------------------------------------------------------
# a plain baseline: one core count, omega unknown (null, not 0), and what to record
"$PMCOLLECT" -q --cpus 0 -t 2 -o "$T/base.zst" -- "$W/triad" -t 2 -m 32 -r 10 >/dev/null 2>&1
run_capture "$PMANALYZE" -q --format json "$T/base.zst"
cp "$T/out" "$T/base.json"
check "baseline only: omega is null, source none" test \
	"$(json_get "$T/base.json" predictions.1.omega) $(json_get "$T/base.json" predictions.1.omega_source)" = "None none"
if json_get "$T/base.json" memory.unknown_because | grep -q "needs runs on 1 and c cores (1 socket of 2 cores); the traces have 1, missing 2; record them with 'pmcollect --calibrate -t 2 -o calib.zst -- .*triad -t 2 -m 32 -r 10' and analyze with 'pmanalyze .*base.zst calib.zst'"
then ok "baseline only: says which runs are missing and the command"; else not_ok "missing runs explained" "$(json_get "$T/base.json" memory.unknown_because)"; fi
run_capture "$PMANALYZE" "$T/base.zst"
if grep -q '^note: omega unknown' "$T/out" && grep -Eq '^ +2 +[0-9.]+ +\? ' "$T/out"
then ok "baseline only: the table shows ? and the note"; else not_ok "table with unknown omega" "$(cat "$T/out")"; fi

# the baseline plus the calibration from another trace of the same program: omega known
"$PMCOLLECT" -q --runs 0-1 -t 2 -o "$T/two.zst" -- "$W/triad" -t 2 -m 32 -r 10 >/dev/null 2>&1
run_capture "$PMANALYZE" -q --format json "$T/base.zst" "$T/two.zst"
check "baseline + --runs trace of the same program: omega from two traces" test \
	"$(json_get "$T/out" memory.points.1.trace)" = "$T/two.zst"

# mixed programs are refused, naming the difference; --force combines them
run_capture "$PMANALYZE" -q "$T/base.zst" "$T/compute.zst"
expect_status "mixed programs: usage error" 2
expect_err_line "mixed programs: names the difference" "^pmanalyze: error: '.*compute.zst' records a different program than '.*base.zst': argument 4 is '64', not '32' \(use --force to combine them\)$"
run_capture "$PMANALYZE" -q --force "$T/base.zst" "$T/compute.zst"
expect_status "mixed programs with --force" 0

# options
run_capture "$PMANALYZE" --placement 0 "$T/triad.zst"
expect_status "--placement 0 is refused" 2
run_capture "$PMANALYZE" --machine /nonexistent "$T/triad.zst"
expect_status "--machine: missing file" 1
expect_err_line "--machine: one line" "^pmanalyze: error: cannot open '/nonexistent': No such file or directory$"
run_capture "$PMCOLLECT" --calibrate --cpus 0 -o "$T/x.zst" -- true
expect_status "--calibrate with --cpus is a usage error" 2
run_capture "$PMCOLLECT" --runs 0 99999 -o "$T/x.zst" -- true
expect_status "--runs with an offline CPU is a usage error" 2
# --- rounds until omega's standard error is small enough or the budget is spent (issue 28) ---
# what the trace says (SUMMARY "calibration", RUN_BEGIN records) and the stderr line, not timing:
# a budget far below one round stops after the first whatever the load; a target of 1000 is met
# by any finite standard error, so the minimum rounds (--repeat 3) are run and no more
cal_summary() { "$PMANALYZE" --dump "$1" | python3 -c 'import json,sys
runs = 0
for l in sys.stdin:
    d = json.loads(l)
    runs += d["type"] == "run_begin"
    if d["type"] == "summary":
        c = d["calibration"]
        print(c["stop"], c["rounds"], c["runs"], runs, c["runs_per_round"],
              "se" if c["omega_se"] is not None else "nose")'; }
run_capture "$PMCOLLECT" --calibrate --calibrate-budget 0.001 -t 2 -o "$T/budget.zst" -- "$W/triad" -t 2 -m 16 -r 5 -c
expect_status "--calibrate-budget 0.001 succeeds" 0
check "--calibrate-budget below one round: stop budget after 1 round of 2 runs, omega's se unknown" \
	test "$(cal_summary "$T/budget.zst")" = "budget 1 2 2 2 nose"
check "--calibrate-budget: the stderr line says the runs and why they stopped" grep -Eq \
	"^pmcollect: calibration: 2 runs \\(1 round of 2\\) in [0-9.]+ s, stopped: budget \\(omega's standard error unknown, target 0.05\\)$" "$T/err"
run_capture "$PMCOLLECT" --calibrate --repeat 3 --omega-se 1000 -t 2 -o "$T/target.zst" -- "$W/triad" -t 2 -m 16 -r 5 -c
expect_status "--omega-se 1000 succeeds" 0
check "--omega-se 1000 --repeat 3: stop target after the minimum 3 rounds, 6 runs" \
	test "$(cal_summary "$T/target.zst")" = "target 3 6 6 2 se"
check "--omega-se: the stderr line says the runs, why they stopped and the standard error" grep -Eq \
	"^pmcollect: calibration: 6 runs \\(3 rounds of 2\\) in [0-9.]+ s, stopped: target \\(omega's standard error [0-9.e+-]+ at 2 CPUs, target 1000\\)$" "$T/err"
check "--repeat 3 alone: SUMMARY stop repeat, 3 rounds" test "$(cal_summary "$T/rep.zst")" = "repeat 3 6 6 2 se"
run_capture "$PMCOLLECT" --omega-se 0.1 -o "$T/x.zst" -- true
expect_status "--omega-se without --calibrate is a usage error" 2
run_capture "$PMCOLLECT" --calibrate --omega-se 0 -o "$T/x.zst" -- true
expect_status "--omega-se 0 is a usage error" 2
# a program that fails on its second run: the error names that run within its round, not "of 64"
# (the stopping rule's most runs), and the progress lines count the runs of a round
rm -f "$T/once"
run_capture "$PMCOLLECT" --calibrate --progress -o "$T/fail2.zst" -- sh -c '[ -e "$1" ] && exit 3; : >"$1"' sh "$T/once"
expect_status "--calibrate of a program failing its second run exits with its status" 3
check "the failed run is named within its round: run 2 (calibration on CPUs ..., round 1) exited with status 3" \
	grep -Eq "^pmcollect: error: calibration stopped: run 2 \\(calibration on CPUs [0-9,-]+, round 1\\) exited with status 3$" "$T/err"
check "progress: [2/2] of the round, not of the most runs the rounds may take" \
	grep -Eq "^pmcollect: \\[2/2\\] calibration, CPUs [0-9,-]+, round 1 of at most [0-9]+, elapsed" "$T/err"
# ... and pmanalyze names that run's failure, not its thread count (the failed run started no
# threads, so its count differs too)
rm -f "$T/once"
run_capture "$PMCOLLECT" -q --calibrate -o "$T/fail3.zst" -- sh -c '[ -e "$1" ] && exit 3; : >"$1"; exec "$2" -T 3 -w 50' sh "$T/once" "$W/exitwith"
expect_status "--calibrate of a threaded program failing its second run: status 3" 3
run_capture "$PMANALYZE" "$T/fail3.zst"
check "the failed run is left out as not finished with status 0, not for its thread count" \
	grep -qx "note: left out of the calibration: run 1 of '$T/fail3.zst' (not finished with status 0)" "$T/out"
check "... and the omega note does not blame another number of threads" \
	sh -c '! grep -q "ran another number of threads" "$1" && grep -q "^note: omega unknown" "$1"' sh "$T/out"
done_testing
