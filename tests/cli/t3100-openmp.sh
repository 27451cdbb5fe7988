#!/bin/sh
# SPDX-License-Identifier: MIT
# OpenMP under OMP_WAIT_POLICY=passive and =active (issue: analyzer, section 4): what spinning does
# to the estimate, and that pmanalyze says so. omp_phases imbalanced has a known truth; under
# =active libgomp's waiting threads spin at the barrier, look runnable, and inflate A(m,inf) when
# they have CPUs to spin on (2 threads on 2 CPUs); when they outnumber the CPUs (the 1-CPU
# baseline) libgomp spins only ~1000 iterations, so the estimate stays right, and the recorded
# policy is still flagged.
. "$PMT_TOP/tests/cli/lib.sh"

truth() { tail -n 1 "$T/$1.truth" | sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p"; }
notes() { python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["notes"]))' "$1"; }

# record NAME POLICY THREADS CPUS WORK_MS: a trace and its analysis in $T/NAME.{zst,truth,json}
record() {
	if OMP_WAIT_POLICY=$2 "$PMCOLLECT" -q --cpus "$4" -t "$3" -o "$T/$1.zst" -- \
		"$W/omp_phases" -w "$5" -r 6 imbalanced >"$T/$1.truth" 2>"$T/$1.err" &&
		"$PMANALYZE" -q --format json "$T/$1.zst" >"$T/$1.json" 2>>"$T/$1.err"
	then ok "$1: recorded and analyzed"; else not_ok "$1: recorded and analyzed" "$(cat "$T/$1.err")"; fi
}

# --- 2 threads on 2 CPUs: A(m,inf) measured directly --------------------------------------------
record direct-passive passive 2 0-1 100
# a_tol NAME: 3%, plus twice what the exact mode guessed or the hypervisor stole over T_cp (A = U/T_cp;
# guess_s in lib.sh)
a_tol() {
	awk -v g="$(guess_s "$T/$1.json" "$(steal_s "$T/$1.zst")")" -v c="$(json_get "$T/$1.json" parallelism.T_cp_s)" \
		'BEGIN { printf "%.4f\n", 0.03 + (c > 0 ? 2 * g / c : 0) }'
}
tol=$(a_tol direct-passive)
accuracy "direct, passive: A(m,inf) is the truth (within $tol)" \
	"$(json_get "$T/direct-passive.json" parallelism.A_inf)" "$(truth direct-passive A_inf_measured)" "$tol"
if notes "$T/direct-passive.json" | grep -q spinning; then not_ok "direct, passive: no spinning note" "$(notes "$T/direct-passive.json")"
else ok "direct, passive: no spinning note"; fi

record direct-active active 2 0-1 100
A=$(json_get "$T/direct-active.json" parallelism.A_inf)
# Spinning counts as work: on 2 free CPUs A approaches 2 (1.33x the truth 1.5). Other load on the
# CPUs preempts the spinners and lowers it (1.77 seen in a quiet CI run at load 5: 1.18x): make
# check asks 10%, over 3x the 3% the passive run is asserted at, so it still tells inflation from
# the estimator's error; make check-accuracy (PMT_ACCURACY=strict) keeps 20%.
# At load 10+ the spinners may hardly ever run together (issue 33): when the run's profile explains
# less than PMT_MIN_CPU_SHARE of its wall time (other processes took the CPUs, issue 19) make check
# reports a skip with the share, as for the detection below; make check-accuracy asserts it.
infl=1.1; [ "$PMT_ACCURACY" = strict ] && infl=1.2
stolen=$(json_get "$T/direct-active.json" parallelism.unexplained_s)
share=$(awk -v u="$stolen" -v w="$(json_get "$T/direct-active.json" parallelism.wall_s)" 'BEGIN{printf "%.3f", (w > 0 ? 1 - u / w : 1)}')
if awk -v a="$A" -v t="$(truth direct-active A_inf)" -v f="$infl" 'BEGIN{exit !(a > f * t)}'
then ok "direct, active: spinning inflates A(m,inf) by over $infl x ($A vs truth $(truth direct-active A_inf))"
elif [ "$PMT_ACCURACY" != strict ] && awk -v s="$share" -v m="$PMT_MIN_CPU_SHARE" 'BEGIN{exit !(s < m)}'
then skip "direct, active: spinning inflates A(m,inf) by over $infl x" "machine busy: A $A, truth $(truth direct-active A_inf); the run's profile explains $share of its wall time (< $PMT_MIN_CPU_SHARE; $(machine_load)); make check-accuracy asserts it"
else not_ok "direct, active: spinning inflates A(m,inf) by over $infl x" "A $A, truth $(truth direct-active A_inf); the profile explains $share of the wall time" "$(machine_load)"; fi
# Two spinners on 2 CPUs are told from the profile (A(m,inf) close to 2); when other processes took
# the CPUs (wall time the run's profile does not explain, issue 19) the spinners were not both
# running and A falls short: then make check reports a skip with the share (measured: A 1.83, 22%
# of the wall time unexplained, with two CI runs on the machine) and make check-accuracy asserts it.
if notes "$T/direct-active.json" | grep -q '^spinning: OMP_WAIT_POLICY=active was set and 2 threads were runnable .* re-record with OMP_WAIT_POLICY=passive$'
then ok "direct, active: detected from the samples, remedy given"
elif [ "$PMT_ACCURACY" != strict ] && awk -v s="$share" -v m="$PMT_MIN_CPU_SHARE" 'BEGIN{exit !(s < m)}' &&
	notes "$T/direct-active.json" | grep -q '^spinning: OMP_WAIT_POLICY=active was set: .*re-record with OMP_WAIT_POLICY=passive'
then skip "direct, active: detected from the samples, remedy given" "machine busy: the run's profile explains $share of its wall time (< $PMT_MIN_CPU_SHARE; $(machine_load)); the policy note was given; make check-accuracy asserts the detection"
else not_ok "direct, active: detected from the samples, remedy given" "$(notes "$T/direct-active.json")"; fi
if "$PMANALYZE" "$T/direct-active.zst" 2>/dev/null | grep -q '^note: spinning: '
then ok "direct, active: the table shows the note"; else not_ok "direct, active: the table shows the note"; fi

# --- 4 threads on 1 CPU: the oversubscribed baseline ---------------------------------------------
record base-passive passive 4 0 50
tol=$(a_tol base-passive)
accuracy "baseline, passive: A(m,inf) is the truth (within $tol)" \
	"$(json_get "$T/base-passive.json" parallelism.A_inf)" "$(truth base-passive A_inf_measured)" "$tol"
if notes "$T/base-passive.json" | grep -q spinning; then not_ok "baseline, passive: no spinning note" "$(notes "$T/base-passive.json")"
else ok "baseline, passive: no spinning note"; fi

record base-active active 4 0 50
tol=$(a_tol base-active)
accuracy "baseline, active: libgomp barely spins when oversubscribed, A(m,inf) is the truth (within $tol)" \
	"$(json_get "$T/base-active.json" parallelism.A_inf)" "$(truth base-active A_inf_measured)" "$tol"
if notes "$T/base-active.json" | grep -q '^spinning: OMP_WAIT_POLICY=active was set: .* re-record with OMP_WAIT_POLICY=passive to be sure$'
then ok "baseline, active: the recorded policy is flagged"
else not_ok "baseline, active: the recorded policy is flagged" "$(notes "$T/base-active.json")"; fi

# --- no OpenMP setting, but the samples look like spinning: a hint, not a verdict -----------------
# (2 threads that burn 2 s each with no barrier but the last: as a spinning waiter would look)
"$PMCOLLECT" -q --cpus 0-1 -o "$T/spin.zst" -- "$W/phases" -t 2 -w 2000 -r 1 balanced >/dev/null 2>"$T/spin.err"
if "$PMANALYZE" -q --format json "$T/spin.zst" >"$T/spin.json" 2>>"$T/spin.err" &&
	notes "$T/spin.json" | grep -q '^spinning?: 2 threads were runnable'
then ok "two threads that never block: 'spinning?' hint"; else not_ok "two threads that never block: 'spinning?' hint" "$(cat "$T/spin.err")" "$(notes "$T/spin.json" 2>&1)"; fi
# the same run from a quiet CI run where 183 ms of switch-ins were inferred: exact mode A 1.91
"$PMANALYZE" -q --format json "$PMT_TOP/tests/fixtures/traces/spinners-inferred-switch-ins.zst" >"$T/spin2.json" 2>"$T/spin2.err"
if notes "$T/spin2.json" | grep -q '^spinning?: 2 threads were runnable'
then ok "two spinners, exact mode short of their CPU time (inferred switch-ins): 'spinning?' hint"
else not_ok "two spinners, exact mode short of their CPU time: 'spinning?' hint" "$(cat "$T/spin2.err")" "$(notes "$T/spin2.json" 2>&1)"; fi
done_testing
