#!/bin/sh
# SPDX-License-Identifier: MIT
# Exact mode (issue: exact mode from scheduler events): recording with --sched, phases much shorter
# than the sampling interval, a pipeline whose replay must keep the order, lost events, the
# Perfetto export, and the paths without tracefs (--no-sched, an unprivileged user).
. "$PMT_TOP/tests/cli/lib.sh"

truth() { tail -n 1 "$1" | sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p"; }
ms() { awk -v s="$1" 'BEGIN{print s*1000}'; }
# instances of pmcollect processes that are gone (another pmcollect may be running meanwhile)
leftover() {
	n=0
	for d in /sys/kernel/tracing/instances/pmcollect-*; do
		[ -d "$d" ] || continue
		kill -0 "${d##*-}" 2>/dev/null || n=$((n + 1))
	done
	echo "$n"
}

if [ "$(id -u)" -ne 0 ] || [ ! -d /sys/kernel/tracing/instances ]; then
	# the unprivileged path is still checked below; the rest needs tracefs
	echo "# not root or no tracefs: exact-mode recording cannot be tested here"
fi

# tol BASE GUESS_S T_S [K]: BASE + K*GUESS_S/T_S (K = 1; 2 for a ratio like A = U/T_cp)
tol() { awk -v b="$1" -v g="$2" -v c="$3" -v k="${4:-1}" 'BEGIN{print b + k * g / c}'; }

# 1. Short phases: 2 ms phases under a 50 ms sampling interval. The sampled estimators see each
# interval's average and cannot tell the serial phases from the parallel ones; the events can.
# The truth is what the threads measured (A_inf_measured: each step's longest CPU time, barrier
# calls included, which for ~400 barriers of 20-40 us each is several % of the nominal burns).
run_capture "$PMCOLLECT" -q --sched -i 50 --cpus 0 -o "$T/short.zst" -- "$W/phases" -t 4 -w 2 -r 60 mixed
expect_status "short phases recorded with --sched" 0
cp "$T/out" "$T/short.truth"
run_capture "$PMANALYZE" -q --format json "$T/short.zst"
expect_status "short phases analyzed" 0
cp "$T/out" "$T/short.json"
check "short phases: exact mode by default" test "$(json_get "$T/short.json" parallelism.estimator)" = sched-exact
T_cp_s=$(json_get "$T/short.json" parallelism.T_cp_s)
g=$(exact_slack_s "$T/short.json" "$(steal_s "$T/short.zst")" "$(truth "$T/short.truth" work_measured_ms)")
accuracy "short phases: sched-exact A(m,inf)" "$(json_get "$T/short.json" parallelism.A_inf)" \
	"$(truth "$T/short.truth" A_inf_measured)" "$(tol 0.03 "$g" "$T_cp_s" 2)"
accuracy "short phases: sched-exact T_cp (3% + $g s)" "$(ms "$T_cp_s")" \
	"$(truth "$T/short.truth" T_cp_measured_ms)" "$(tol 0.03 "$g" "$T_cp_s")"
# the sampled estimate must be far off here, or this test shows nothing
A_run=$(json_get "$T/short.json" parallelism.estimates.runnable.A_inf)
check "short phases: the 50 ms sampled estimate is > 10% off ($A_run)" awk -v a="$A_run" \
	-v t="$(truth "$T/short.truth" A_inf_measured)" 'BEGIN{d=(a-t)/t; if(d<0)d=-d; exit !(d>0.10)}'
check "short phases: no tracefs instance left" test "$(leftover)" -eq 0

# 2. A pipeline: stage i works on item j only after stage i-1 finished it. Streaming: T_cp =
# (items + K - 1) w; strict (-s, one item in flight): every burn on one chain, T_cp = work, and the
# replay on any number of cores must stay at the work (a replay that ignored the order would not).
# The truth is the dependency chain over the CPU time each stage measured per item (queue calls
# included), with the main thread's serial start-up and tear-down.
for mode in stream strict; do
	flag=; [ "$mode" = strict ] && flag=-s
	run_capture "$PMCOLLECT" -q -f --sched --cpus 0 -o "$T/p.zst" -- "$W/pipeline" -t 4 -w 5 -n 40 $flag
	expect_status "pipeline $mode recorded" 0
	cp "$T/out" "$T/p.truth"
	run_capture "$PMANALYZE" -q --format json --cores 1,2,3,4,8 "$T/p.zst"
	expect_status "pipeline $mode analyzed" 0
	cp "$T/out" "$T/p.json"
	work=$(truth "$T/p.truth" work_measured_ms); tcp=$(truth "$T/p.truth" T_cp_measured_ms)
	T_cp_s=$(json_get "$T/p.json" parallelism.T_cp_s)
	steal=$(steal_s "$T/p.zst")
	g1=$(guess_s "$T/p.json" "$steal"); g=$(exact_slack_s "$T/p.json" "$steal" "$work")
	t=$(tol 0.02 "$g" "$T_cp_s")
	cp "$T/p.zst" "$T/p-$mode.zst" # kept for a look after a failure
	accuracy "pipeline $mode: T_cp (tolerance $t: 2% + $g s inferred, stolen or off in U)" "$(ms "$T_cp_s")" "$tcp" "$t"
	# T(1) is U, every running slice of the program: its whole CPU time at any load (with what
	# tracing the events cost it, lib.sh tracing_cost_s); the stages' CPU in their work loops only
	# when the program had its CPU (under stress-ng and a second suite, load 10-12, a streaming
	# pipeline's stages spent 3.6-5.1% more outside them: 843.4 for 802.3 ms)
	g2=$(awk -v g="$g1" -v c="$(tracing_cost_s "$T/p.json")" 'BEGIN{printf "%.6f\n", g + c}')
	accuracy "pipeline $mode: T(1) = the process's CPU time (2% + $g2 s inferred, stolen or tracing)" \
		"$(ms "$(json_get "$T/p.json" predictions.0.T_s)")" "$(truth "$T/p.truth" process_cpu_ms)" \
		"$(tol 0.02 "$g2" "$T_cp_s")"
	quiet_accuracy "$(cpu_share "$T/p.json")" "pipeline $mode: T(1) = work (2% + $g1 s inferred or stolen)" \
		"$(ms "$(json_get "$T/p.json" predictions.0.T_s)")" "$work" "$(tol 0.02 "$g1" "$T_cp_s")"
	accuracy "pipeline $mode: T(4) = T_cp" "$(ms "$(json_get "$T/p.json" predictions.3.T_s)")" "$tcp" "$t"
	accuracy "pipeline $mode: T(8) = T_cp" "$(ms "$(json_get "$T/p.json" predictions.4.T_s)")" "$tcp" "$t"
	# any greedy schedule: max(U/n, T_cp) <= T(n) <= U/n + T_cp (Brent), a law of the replay,
	# checked against its own U = T(1) and T_cp
	u=$(ms "$(json_get "$T/p.json" predictions.0.T_s)"); c=$(ms "$T_cp_s")
	for i in 1 2; do
		n=$((i + 1))
		got=$(ms "$(json_get "$T/p.json" predictions.$i.T_s)")
		check "pipeline $mode: T($n) = $got ms within Brent's bounds" awk -v g="$got" -v u="$u" \
			-v c="$c" -v n="$n" 'BEGIN{lo=u/n; if(c>lo)lo=c; exit !(g>=lo*0.999 && g<=(u/n+c)*1.001)}'
	done
done

# 3. Lost events: a 4 KiB buffer per CPU under a ping-pong of ~40k context switches per second
# (a strict 2-stage pipeline: one item in flight, 10 us of work per hand-over).
run_capture "$PMCOLLECT" -q --sched --sched-buffer-kb 4 -i 50 --cpus 0 -o "$T/lost.zst" -- \
	"$W/pipeline" -t 2 -w 0.01 -n 20000 -s
expect_status "tiny buffer: recorded" 0
run_capture "$PMANALYZE" --format json "$T/lost.zst"
expect_status "tiny buffer: analyzed" 0
cp "$T/out" "$T/lost.json"
lost=$(json_get "$T/lost.json" parallelism.estimates.sched-exact.lost_events)
check "tiny buffer: lost events counted ($lost)" test "${lost%.*}" -gt 0
check "tiny buffer: warned on stderr" grep -q "scheduler events lost" "$T/err"
check "tiny buffer: warning recorded in the trace" grep -q "the kernel lost" "$T/lost.json"
check "tiny buffer: falls back to the sampled estimator" \
	test "$(json_get "$T/lost.json" parallelism.estimator)" = runnable
run_capture "$PMANALYZE" -q --format json --estimator sched-exact "$T/lost.zst"
cp "$T/out" "$T/lost2.json"
check "tiny buffer: sched-exact on request has a non-zero uncertainty" awk \
	-v e="$(json_get "$T/lost2.json" parallelism.A_inf_err)" 'BEGIN{exit !(e>0)}'

# 4. The Perfetto export of the short-phases run.
run_capture "$PMANALYZE" -q --export-perfetto "$T/short.perfetto.json" "$T/short.zst"
expect_status "perfetto export" 0
check "perfetto export: Chrome trace-event JSON with slices, counters, names and wakes" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
run = [e for e in ev if e["ph"] == "X" and e["name"] == "running"]
names = [e for e in ev if e["ph"] == "M" and e["name"] == "thread_name"]
cnt = [e for e in ev if e["ph"] == "C" and e["name"] == "active threads"]
flows = [e for e in ev if e["ph"] in ("s", "f")]
# the 4 threads of the program (a sanitizer build adds a background thread)
assert len(names) >= 4, names
assert len({e["tid"] for e in run}) >= 4
assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in run)
# one CPU: never more than one program thread running at once
assert max(e["args"]["running"] for e in cnt) == 1
assert len(flows) > 0 and len(flows) % 2 == 0
' "$T/short.perfetto.json"

# 5. Without scheduler events: --no-sched, and --estimator sched-exact refused in one line.
run_capture "$PMCOLLECT" -q --no-sched --cpus 0 -o "$T/nos.zst" -- "$W/phases" -t 2 -w 20 -r 1 balanced
expect_status "--no-sched recorded" 0
run_capture "$PMANALYZE" -q --format json "$T/nos.zst"
cp "$T/out" "$T/nos.json"
check "--no-sched: reason recorded" test "$(json_get "$T/nos.json" traces.0.sources.sched_events.reason)" = "turned off with --no-sched"
check "--no-sched: runnable estimator" test "$(json_get "$T/nos.json" parallelism.estimator)" = runnable
run_capture "$PMANALYZE" -q --estimator sched-exact "$T/nos.zst"
expect_status "--estimator sched-exact without events: exit 1" 1
expect_err_line "--estimator sched-exact without events: one line" "has no scheduler events.*--sched"
run_capture "$PMANALYZE" -q --export-perfetto "$T/x.json" "$T/nos.zst"
expect_status "--export-perfetto without events: exit 1" 1

# 6. An unprivileged user: one clear message, the sampling path continues.
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	d=$(mktemp -d); chmod 777 "$d"
	run_capture setpriv --reuid=nobody --regid=nogroup --clear-groups "$PMCOLLECT" --cpus 0 \
		-o "$d/u.zst" -- "$W/phases" -t 2 -w 20 -r 1 balanced
	expect_status "unprivileged: the program ran and was recorded" 0
	check "unprivileged: one message about the scheduler events" \
		test "$(grep -c 'scheduler events not recorded' "$T/err")" -eq 1
	run_capture "$PMANALYZE" -q --format json "$d/u.zst"
	expect_status "unprivileged: trace analyzes" 0
	cp "$T/out" "$T/u.json"
	check "unprivileged: reason recorded in the trace" grep -q "cannot create the tracefs instance" "$T/u.json"
	rm -rf "$d"
else
	ok "# SKIP unprivileged run: no setpriv or no user nobody"
fi

# 7. A collector killed with SIGKILL: its watchdog removes the instance; and an instance left by
# a pmcollect that had no watchdog (made here by hand, for a pid that is gone) is removed by the
# next pmcollect.
"$PMCOLLECT" -q --sched -o "$T/k.zst" -- sleep 60 >/dev/null 2>&1 &
pid=$!
# waits are hang guards, not time limits: generous, so a busy machine does not fail them
i=0; while [ $i -lt 400 ] && [ ! -d "/sys/kernel/tracing/instances/pmcollect-$pid" ]; do sleep 0.05; i=$((i + 1)); done
check "SIGKILLed collector: its instance existed" test -d "/sys/kernel/tracing/instances/pmcollect-$pid"
child=$(pgrep -P "$pid" sleep)
kill -KILL "$pid"; wait "$pid" 2>/dev/null
[ -n "$child" ] && kill "$child" 2>/dev/null # the traced sleep outlives a SIGKILLed collector
i=0; while [ $i -lt 400 ] && [ -d "/sys/kernel/tracing/instances/pmcollect-$pid" ]; do sleep 0.05; i=$((i + 1)); done
check "SIGKILLed collector: the watchdog removed its instance" test ! -d "/sys/kernel/tracing/instances/pmcollect-$pid"
dead=$(sh -c 'echo $$')
while kill -0 "$dead" 2>/dev/null; do dead=$((dead + 1)); done
mkdir "/sys/kernel/tracing/instances/pmcollect-$dead"
run_capture "$PMCOLLECT" -q --sched -o "$T/k2.zst" -- true
check "next pmcollect: a stale instance of a dead pid removed" test ! -d "/sys/kernel/tracing/instances/pmcollect-$dead"
check "no tracefs instance left at the end" test "$(leftover)" -eq 0
done_testing
