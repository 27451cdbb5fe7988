#!/bin/sh
# SPDX-License-Identifier: MIT
# The exact mode without root (issue 34): pmcollect run as user nobody records the program's
# context switches with perf_event_open (PSWITCH records) and pmanalyze's switch-exact estimator
# finds A(m,inf) within 1% of the workloads' truth as their threads measured it with their own
# CPU clocks (plus, as in t3000, the time the hypervisor stole or U is off: the trace's running
# segments are wall time), at the default 10 ms interval and at 1 ms, where the sampled estimator
# collapsed; and issue 34's OpenMP program (omp_loop). Where perf_event_open is not permitted
# (kernel.perf_event_paranoid 3, read from a fixture through PMT_PROCFS_ROOT), the trace says why
# and pmanalyze falls back to the samples.
. "$PMT_TOP/tests/cli/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! id nobody >/dev/null 2>&1 || ! command -v setpriv >/dev/null; then
	skip "unprivileged runs" "need root, setpriv and a 'nobody' user"
	done_testing; exit $?
fi
nuid=$(id -u nobody); ngid=$(id -g nobody)
asnobody() { setpriv --reuid="$nuid" --regid="$ngid" --clear-groups "$@"; }
mkdir -p "$T/nobody"; chmod 777 "$T/nobody"
truth() { tail -n 1 "$T/truth" | sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
# the measured A(m,inf): A_inf_measured, or work over T_cp as measured (pipeline prints only those)
truth_A() { a=$(truth A_inf_measured); [ -n "$a" ] && echo "$a" ||
	awk -v w="$(truth work_measured_ms)" -v t="$(truth T_cp_measured_ms)" 'BEGIN{print w/t}'; }

# --- not permitted: paranoid 3 from a fixture ----------------------------------------------------
mkdir -p "$T/proc/sys/kernel"; echo 3 >"$T/proc/sys/kernel/perf_event_paranoid"; chmod -R a+rX "$T/proc"
run_capture asnobody env PMT_PROCFS_ROOT="$T/proc" "$PMCOLLECT" -o "$T/nobody/p3.zst" --cpus 0 -- \
	"$W/phases" -t 2 -w 20 -r 1 balanced
ps=$("$PMANALYZE" --dump "$T/nobody/p3.zst" 2>/dev/null | grep -o '"perf_switch":{[^}]*}' | head -1)
if [ "$rc" -eq 0 ] && echo "$ps" | grep -q '"recorded":false,"reason":"kernel.perf_event_paranoid is 3 (' &&
   grep -q "^pmcollect: warning: context switches not recorded: kernel.perf_event_paranoid is 3 " "$T/err"
then ok "paranoid 3: not recorded, the trace and one warning say why"; r=pass
else not_ok "paranoid 3: not recorded, the trace and one warning say why" "exit $rc; META $ps" "$(cat "$T/err")"; r=FAIL; fi
fault_row privileges "pmcollect as nobody, kernel.perf_event_paranoid 3 (fixture)" \
	"no context switches; META sources.perf_switch and a warning give the reason" "exit $rc; $ps" $r
if [ "$("$PMANALYZE" -q --format json "$T/nobody/p3.zst" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["parallelism"]["estimator"])')" = runnable ]
then ok "paranoid 3: pmanalyze uses the samples (runnable)"; else not_ok "paranoid 3: pmanalyze uses the samples (runnable)"; fi
run_capture "$PMANALYZE" -q --estimator switch-exact "$T/nobody/p3.zst"
expect_status "--estimator switch-exact without context switches: exit 1" 1
expect_err_line "... and says why" "^pmanalyze: error: '.*/p3\\.zst': run 0 has no context switches \\(record them with pmcollect --perf-switch\\)\$"

run_capture asnobody "$PMCOLLECT" -q -o "$T/nobody/off.zst" --no-perf-switch -- true
ps=$("$PMANALYZE" --dump "$T/nobody/off.zst" 2>/dev/null | grep -o '"perf_switch":{[^}]*}' | head -1)
check "--no-perf-switch: not recorded, said so" \
	test "$ps" = '"perf_switch":{"recorded":false,"reason":"turned off with --no-perf-switch"}'

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 9)
if [ "$paranoid" -gt 2 ]; then
	skip "switch-exact accuracy" "kernel.perf_event_paranoid is $paranoid here: users may not open perf events"
	done_testing; exit $?
fi

# exact_switch NAME [VAR=VALUE...] PMCOLLECT-COMMAND...: runs the command (which records into
# $T/nobody/sw.zst) as nobody and checks the switch-exact estimate against the workload's truth
# on its last line (1% plus the steal or U's error, as t3000 does for sched-exact)
exact_switch() {
	what=$1; shift
	rm -f "$T/nobody/sw.zst"
	if ! asnobody env "$@" >"$T/truth" 2>"$T/err"; then
		not_ok "$what: recorded as nobody" "$(cat "$T/err")"; return
	fi
	if ! "$PMANALYZE" -q --format json "$T/nobody/sw.zst" >"$T/sw.json" 2>"$T/err"; then
		not_ok "$what: analyzed" "$(cat "$T/err")"; return
	fi
	check "$what: switch-exact is the default without root" \
		test "$(json_get "$T/sw.json" parallelism.estimator)" = switch-exact
	A=$(json_get "$T/sw.json" parallelism.estimates.switch-exact.A_inf)
	T_cp_s=$(json_get "$T/sw.json" parallelism.estimates.switch-exact.T_cp_s)
	U_s=$(awk -v a="$A" -v t="$T_cp_s" 'BEGIN{print a*t}')
	steal=$(steal_s "$T/nobody/sw.zst")
	slack=$(awk -v u="$U_s" -v w="$(truth work_measured_ms)" -v s="$steal" \
		'BEGIN { d = u - w / 1000; if (d < 0) d = -d; if (s > d) d = s; printf "%.6f\n", d }')
	tol_A=$(awk -v g="$slack" -v c="$T_cp_s" 'BEGIN{print 0.01 + 2 * g / c}')
	accuracy "$what: switch-exact A(m,inf) (tolerance $tol_A: 1% + ${slack} s stolen or off in U)" \
		"$A" "$(truth_A)" "$tol_A"
	# T(2) from the n-core replay (docs/model.md "switch-exact"): the balanced workload's threads
	# all work between its serial start-up and its end, so T(2) = U/2 plus half that start-up
	if [ "$what" = "balanced m=4" ]; then
		T2=$(python3 -c 'import json,sys; print([q["T_s"] for q in json.load(open(sys.argv[1]))["predictions"] if q["cores"] == 2][0])' "$T/sw.json")
		accuracy "$what: switch-exact T(2) by replay is U/2 (tolerance $tol_A)" "$T2" \
			"$(awk -v w="$(truth work_measured_ms)" -v s="$(truth serial_ms)" 'BEGIN{print (w + s) / 2000}')" "$tol_A"
	fi
	tol_U=$(awk -v s="$steal" -v w="$(truth work_measured_ms)" 'BEGIN{print 0.02 + s / (w / 1000)}')
	# U is every running slice the switches show: the process's whole CPU time where the workload
	# prints it (phases: CLOCK_PROCESS_CPUTIME_ID, the kernel's sum of those slices less the
	# steal), asserted at any load
	pc=$(truth process_cpu_ms)
	[ -n "$pc" ] && accuracy "$what: switch-exact U is the process's CPU time (tolerance $tol_U)" \
		"$(awk -v u="$U_s" 'BEGIN{print u*1000}')" "$pc" "$tol_U"
	# the truth is the threads' CPU in their work loops: under load the serial pattern's waiting
	# threads spend more CPU outside them (1049.8 for 1001.6 ms at load 8 in a clean-clone CI
	# run), so make check asks it when the program had its CPU; make check-accuracy always
	quiet_accuracy "$(cpu_share "$T/sw.json")" "$what: switch-exact U is the measured work (tolerance $tol_U)" \
		"$(awk -v u="$U_s" 'BEGIN{print u*1000}')" "$(truth work_measured_ms)" "$tol_U"
	"$PMANALYZE" --dump "$T/nobody/sw.zst" >"$T/dump"
	grep '"type":"run_end"' "$T/dump" | grep -o '"perf_switch":{[^}]*}' >"$T/ps"
	check "$what: RUN_END counts the switches" grep -q '"switches":[1-9][0-9]*,"preempted":[0-9]*,"tasks":[1-9]' "$T/ps"
	check "$what: --dump lists them" grep -q '^{"type":"pswitch","run_id":0,"t_ns":[0-9]*,"event":"out"' "$T/dump"
}

pats="balanced imbalanced serial mixed"
[ "$PMT_SANITIZED" = 1 ] && pats="mixed"
for pat in $pats; do
	exact_switch "$pat m=4" "$PMCOLLECT" -q --cpus 0 -o "$T/nobody/sw.zst" -- \
		"$W/phases" -t 4 -w 100 -r 2 "$pat"
done
# issue 34's table: -i 1 on the three-phase program, where the runnable estimator read 1.00
exact_switch "serial m=6 at -i 1" "$PMCOLLECT" -q --cpus 0 -t 6 -i 1 -o "$T/nobody/sw.zst" -- \
	"$W/phases" -t 6 -w 100 -s 80 -r 1 serial
exact_switch "pipeline m=4" "$PMCOLLECT" -q --cpus 0 -o "$T/nobody/sw.zst" -- \
	"$W/pipeline" -t 4 -w 20 -n 10
# issue 34's OpenMP program, 8 threads on one CPU, with OMP_WAIT_POLICY=passive (under libgomp's
# default policy its threads spin at the loop's barrier, CPU time the workload's truth leaves out).
# Its A(m,inf) read 1-4% high until 2026-11-27 (processor sharing, and wakes placed just after a
# waker that blocked at once: docs/model.md); within -0.6..+0.6% of the truth on 12 traces since,
# but 0.6-1.6% low in 7 of 20 later ones (the first loop's wakes, before the workers' first
# sample, taken at their switch-ins; once outside the tolerance in a quiet CI run): +0.09..+0.29%
# on the same 20 since the first interval counts from the fork.
exact_switch "omp_loop m=8" OMP_NUM_THREADS=8 OMP_WAIT_POLICY=passive "$PMCOLLECT" -q \
	--cpus 0 -t 8 -o "$T/nobody/sw.zst" -- "$W/omp_loop"

done_testing
