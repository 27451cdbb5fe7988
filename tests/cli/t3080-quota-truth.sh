#!/bin/sh
# SPDX-License-Identifier: MIT
# Ground truth under CPU quotas: each workload runs under pmcollect --quota Q/P (a real cgroup,
# CFS bandwidth control) and pmanalyze's default prediction for the trace (the quota study at the
# recorded limit on the run's CPUs: docs/model.md "Containers and CPU quotas") is compared with
# the run's wall time, within 5%, for a balanced, an imbalanced, a serial-phase and a
# barrier-heavy workload under quotas 0.5, 1, 1.5 and 2 CPUs with periods of 10 ms and 100 ms,
# medians of three runs each (where the replay cannot throttle, the unlimited replay, within 15%).
# Timings: only under
# PMT_ACCURACY=strict (make check-accuracy), on a quiet machine, as root.
. "$PMT_TOP/tests/cli/lib.sh"

cpu_mount=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") break; t = $(i + 1); o = $(i + 3)
	if (t == "cgroup" && ("," o ",") ~ /,cpu,/) { print $5; exit } }' /proc/self/mountinfo)
[ -n "$cpu_mount" ] || cpu_mount=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
if [ "$PMT_ACCURACY" != strict ]; then
	skip "T under CPU quotas within 5% of measured" "timings need a quiet machine: make check-accuracy (PMT_ACCURACY=strict) runs them"
	done_testing; exit
fi
if [ "$(id -u)" -ne 0 ] || [ -z "$cpu_mount" ] || [ ! -w "$cpu_mount" ]; then
	skip "T under CPU quotas within 5% of measured" "needs root and a writable cpu controller hierarchy (uid $(id -u), mount '${cpu_mount:-none}')"
	done_testing; exit
fi
if [ "$(nproc)" -lt 2 ]; then
	skip "T under CPU quotas within 5% of measured" "needs 2 CPUs ($(nproc) here)"
	done_testing; exit
fi
# balanced: 4 threads, 2 phases of 250 ms each (2 s of work); imbalanced: thread j burns
# (j+1)·60 ms per phase, 2 phases (1.2 s of work, T_cp 480 ms); serial: 3 times a serial phase of
# 100 ms, then 4 threads of 100 ms (1.5 s of work); barrier: 4 threads meeting at a mutex and
# condition variable barrier 1500 times, 0.4 ms of work each between two (2.4 s of work). Long
# against the 100 ms period, whose start the kernel does not align with the program's.
for wl in "balanced|phases -t 4 -w 250 -r 2 balanced" "imbalanced|phases -t 4 -w 60 -r 2 imbalanced" \
	  "serial|phases -t 4 -w 100 -r 3 serial" "barrier|cond_barrier -t 4 1500 60000"; do
	wname=${wl%%|*}; args=${wl#*|}
	for per in 100ms 10ms; do
		for q in 0.5 1 1.5 2; do
			# three runs, medians of both sides: a run's wall time moves by up to 7% with where
			# the scheduler happens to place its threads (0.653 s and 0.714 s measured for one
			# prediction of 0.664 s)
			: >"$T/pairs"
			for rep in 1 2 3; do
				f="$T/$wname-$q-$per-$rep.pmt"
				# shellcheck disable=SC2086
				run_capture "$PMCOLLECT" -q -o "$f" --quota "$q/$per" --cpus 0-1 -- "$W/"$args
				[ "$rc" -eq 0 ] || break
				"$PMANALYZE" --format json "$f" >"$T/a.json" 2>/dev/null
				got=$(json_get "$T/a.json" quota.rows.0.T_s -1)
				# the unlimited replay's T(2), whether throttling is possible at all, and the
				# kernel's count of throttled periods for the run (RUN_END cpu_stat)
				free=$(json_get "$T/a.json" quota.Tn_s -1)
				possible=$(json_get "$T/a.json" quota.rows.0.throttling_possible -1)
				want=$("$PMANALYZE" --dump "$f" 2>/dev/null | python3 -c 'import json,sys
e=[d for l in sys.stdin for d in [json.loads(l)] if d["type"] == "run_end"][0]
print(e["wall_ns"] / 1e9, (e.get("cpu_stat") or {}).get("nr_throttled", -1))')
				echo "$got $want $free $possible" >>"$T/pairs"
			done
			if [ "$rc" -ne 0 ]; then not_ok "$wname $q/$per: pmcollect exits 0" "$(diag)"; continue; fi
			got=$(sort -g -k1,1 "$T/pairs" | sed -n 2p | cut -d' ' -f1)
			want=$(sort -g -k2,2 "$T/pairs" | sed -n 2p | cut -d' ' -f2)
			if grep -q ' False$' "$T/pairs"; then
				# Q >= the cores: nothing can be throttled, so the prediction is the unlimited
				# replay's, and its error is the model's fair share of the CPUs against where CFS
				# placed the threads: the imbalanced program's 4 threads (60-240 ms a phase) took
				# 0.70-0.72 s at 100 ms periods on a quiet machine against 0.664 s predicted (0.646
				# -0.680 s at 10 ms). Asserted here: what the tool did (T(2, Q) is T(2), the
				# kernel throttled nothing), and the unlimited replay within the 15% that
				# t3250 allows it; its 5% figure is make bench's
				check "$wname under $q CPUs per $per: no throttling possible, T(2, Q) is the unlimited T(2), and the kernel throttled no period" \
					awk '{ d = $1 - $4; if (d < 0) d = -d } $5 != "False" || d > 1e-9 * $4 || $3 != 0 { bad = 1 } END { exit bad }' "$T/pairs"
				accuracy "$wname under $q CPUs per $per: predicted T(2, Q) = T(2) against the run's wall time (medians of 3)" "$got" "$want" 0.15
			else
				# pmcollect --quota measures the wake-up cost, so the replay hands the quota
				# to each CPU in 5 ms slices (sched_cfs_bandwidth_slice_us) as the kernel does;
				# at 2 CPUs the slices and the tick can throttle too
				tol=0.05
				accuracy "$wname under $q CPUs per $per: predicted T(2, Q) against the run's wall time (medians of 3)" "$got" "$want" "$tol"
			fi
		done
	done
done
done_testing
