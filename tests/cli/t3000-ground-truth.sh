#!/bin/sh
# SPDX-License-Identifier: MIT
# Ground truth: workloads whose A(m,inf) and T_cp are known by construction, recorded as
# oversubscribed baselines (pmcollect --cpus 0, default 10 ms interval) for m = 2, 4, 8, 16.
# The truth is what the threads measured with their own CPU clocks (phases: A_inf_measured,
# T_cp_measured_ms, the barriers' cost and the serial start-up and tear-down included), not the
# nominal burns: with 16 threads on one CPU the barriers alone are 1-3% of a phase (issue 11).
# - When the scheduler events were recorded (root: tracefs), the exact mode within 1% of the
#   truth, plus the time it says it inferred (switch-ins the kernel did not record, placed half
#   way: it cannot be more wrong than what it guessed; inferred_s in the JSON) and the larger of
#   the time the hypervisor stole (the trace counts it as running, the truth does not) and how far
#   the exact mode's U is from the measured work (exact_slack_s in lib.sh).
# - The sampled estimator (runnable) within its documented accuracy (docs/model.md, "Accuracy"):
#   3% on a quiet machine (make check-accuracy, PMT_ACCURACY=strict), except balanced m >= 8,
#   which it underestimates by up to 8% (its known bias at phase boundaries); in make check,
#   which must pass on a busy machine too, within RUNNABLE_TOL when the program had at least
#   PMT_MIN_CPU_SHARE of its CPU, else a skip that says the share: other processes on the
#   baseline's CPU stretch the phases' tails, which the 10 ms samples cannot tell from the
#   program's own (lib.sh, quiet_accuracy).
. "$PMT_TOP/tests/cli/lib.sh"

truth() { tail -n 1 "$T/truth" | sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
ms() { awk -v s="$1" 'BEGIN{print s*1000}'; }

RUNNABLE_TOL=0.20
# Under the sanitizer build the same check runs on one size only: it is there for memory errors.
# make check leaves m = 2 to make check-accuracy: its phases are the longest per thread (200 ms),
# and the exact mode's checks at m = 2 read the same events as at 4 and 8 (it was a tenth of the
# suite's time beside stress-ng --cpu 4 --vm 1, where the sampled checks skip)
sizes="2 4 8 16"; pats="balanced imbalanced serial mixed"
[ "$PMT_ACCURACY" != strict ] && sizes="4 8 16"
[ "$PMT_SANITIZED" = 1 ] && { sizes=4; pats="imbalanced"; }
for pat in $pats; do
	for m in $sizes; do
		# m = 16 costs as much as m = 2, 4 and 8 together: make check runs it for the pattern
		# where the runnable estimator's bias is largest (imbalanced), make check-accuracy for all
		if [ "$m" = 16 ] && [ "$pat" != imbalanced ] && [ "$PMT_ACCURACY" != strict ]; then
			continue
		fi
		# phases of at least 200 ms per thread for the strict figures: a phase change is located
		# to within a fraction of one 10 ms interval (~1-2 ms measured, balanced m=16 biased
		# +2-3 % at 100 ms phases, once +8 %), which short phases turn into several % of T_cp.
		# make check's bounds (the exact mode's 1% of the measured truth, the runnable
		# estimator's RUNNABLE_TOL) hold at half that, and the test takes half the time (350 s
		# under stress-ng --cpu 2 with 200 ms phases: the longest test of CI)
		# make check repeats the pattern once rather than twice: the exact modes' tolerances are
		# the 1% plus what they inferred or the hypervisor stole, over this run's own T_cp, and
		# the runnable estimator's error is per phase boundary, a share of T_cp that does not
		# change with the repeats; it halves the longest of the tests that run alone
		if [ "$PMT_ACCURACY" = strict ]; then
			w=$((800 / m)); [ "$w" -lt 200 ] && w=200; r=2
		else
			w=$((400 / m)); [ "$w" -lt 100 ] && w=100; r=1
		fi
		rm -f "$T/gt.zst"
		if ! "$PMCOLLECT" -q --cpus 0 -o "$T/gt.zst" -- "$W/phases" -t "$m" -w "$w" -r "$r" "$pat" >"$T/truth" 2>"$T/err"; then
			not_ok "$pat m=$m recorded" "$(cat "$T/err")"
			continue
		fi
		if ! "$PMANALYZE" -q --format json "$T/gt.zst" >"$T/gt.json" 2>"$T/err"; then
			not_ok "$pat m=$m analyzed" "$(cat "$T/err")"
			continue
		fi
		tol=$RUNNABLE_TOL
		if [ "$PMT_ACCURACY" = strict ]; then
			tol=0.03; [ "$pat" = balanced ] && [ "$m" -ge 8 ] && tol=0.08
		fi
		share=$(cpu_share "$T/gt.json")
		quiet_accuracy "$share" "$pat m=$m: runnable A(m,inf)" \
			"$(json_get "$T/gt.json" parallelism.estimates.runnable.A_inf)" "$(truth A_inf_measured)" $tol
		quiet_accuracy "$share" "$pat m=$m: runnable T_cp" \
			"$(ms "$(json_get "$T/gt.json" parallelism.estimates.runnable.T_cp_s)")" "$(truth T_cp_measured_ms)" $tol
		near "$pat m=$m: m" "$(json_get "$T/gt.json" parallelism.m)" "$m" 0
		if [ "$(json_get "$T/gt.json" traces.0.sources.sched_events.recorded)" = True ]; then
			# kept for a look after a failure (a few hundred KB each)
			cp "$T/gt.zst" "$T/gt-$pat-$m.zst"; cp "$T/truth" "$T/gt-$pat-$m.truth"
			check "$pat m=$m: exact mode is the default" \
				test "$(json_get "$T/gt.json" parallelism.estimator)" = sched-exact
			T_cp_s=$(json_get "$T/gt.json" parallelism.estimates.sched-exact.T_cp_s)
			# inferred switch-ins, plus the steal or U's error, whichever is larger (lib.sh)
			steal=$(steal_s "$T/gt.zst")
			inferred_s=$(exact_slack_s "$T/gt.json" "$steal" "$(truth work_measured_ms)")
			# A = U/T_cp: a guess of g seconds moves each of U and T_cp by at most g
			tol_A=$(awk -v g="$inferred_s" -v c="$T_cp_s" 'BEGIN{print 0.01 + 2 * g / c}')
			tol_T=$(awk -v g="$inferred_s" -v c="$T_cp_s" 'BEGIN{print 0.01 + g / c}')
			accuracy "$pat m=$m: sched-exact A(m,inf) (tolerance $tol_A: 1% + ${inferred_s} s inferred, stolen or off in U)" \
				"$(json_get "$T/gt.json" parallelism.estimates.sched-exact.A_inf)" "$(truth A_inf_measured)" "$tol_A"
			accuracy "$pat m=$m: sched-exact T_cp (tolerance $tol_T)" "$(ms "$T_cp_s")" "$(truth T_cp_measured_ms)" "$tol_T"
			# and U itself, which that slack must not excuse: 2% plus what was guessed or stolen,
			# plus what tracing the events cost the program's CPUs (lib.sh tracing_cost_s)
			tol_U=$(awk -v g="$(guess_s "$T/gt.json" "$steal")" -v c="$(tracing_cost_s "$T/gt.json")" \
				-v w="$(truth work_measured_ms)" 'BEGIN{print 0.02 + (g + c) / (w / 1000)}')
			# U is every running slice of the program's threads: their whole CPU time, which the
			# workload reads from CLOCK_PROCESS_CPUTIME_ID (the kernel's own sum of those slices,
			# less the steal): asserted at any load
			accuracy "$pat m=$m: sched-exact U is the process's CPU time (tolerance $tol_U)" \
				"$(ms "$(json_get "$T/gt.json" parallelism.estimates.sched-exact.work_s)")" "$(truth process_cpu_ms)" "$tol_U"
			# the workload's truth is its threads' CPU time in their work loops: on a busy machine
			# the serial pattern's waiting threads spend more CPU outside them (U 1069.7 for
			# 1001.8 ms at load 12.5), so make check asks it when the program had its CPU
			quiet_accuracy "$(cpu_share "$T/gt.json")" "$pat m=$m: sched-exact U is the measured work (tolerance $tol_U)" \
				"$(ms "$(json_get "$T/gt.json" parallelism.estimates.sched-exact.work_s)")" "$(truth work_measured_ms)" "$tol_U"
		fi
	done
done
done_testing
