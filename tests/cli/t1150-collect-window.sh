#!/bin/sh
# SPDX-License-Identifier: MIT
# pmcollect --delay / --duration / --detach: a window of a longer run. What is checked is what
# the tool did, read back from the trace (RUN_BEGIN and RUN_END "window", formats/FORMAT.md) and
# from /proc: the program stopped after the window, or left running with its CPU set restored;
# the bad values rejected with one line and their documented status. Nothing depends on load:
# the windows' lengths are only checked from below (a late timer lengthens them).
. "$PMT_TOP/tests/cli/lib.sh"

cd "$T" || exit 1
case "$W" in *-address*) WL="env ASAN_OPTIONS=detect_leaks=0";; *) WL="";; esac
# rec NAME TYPE: the TYPE record (run_begin, run_end) of $T/NAME.zst as one JSON line in $T/NAME.TYPE
rec() { "$PMANALYZE" --dump "$T/$1.zst" 2>/dev/null | grep "\"type\":\"$2\"" | head -1 >"$T/$1.$2"; }
# field NAME TYPE PATH: a key of that record (dotted path), "none" when absent
field() { json_get "$T/$1.$2" "$3" none; }

# --- a window of a run that would go on for minutes: stopped after it --------------------------
run_capture "$PMCOLLECT" -q -o "$T/w.zst" --delay 0.3 --duration 0.5 -- $WL "$W/phases" -t 2 -w 10 -r 100000 balanced
expect_status "--delay 0.3 --duration 0.5 of a long run: exit 0" 0
rec w run_begin; rec w run_end
pid=$(field w run_begin pid)
if [ "$(field w run_begin window.delay_ns)" = 300000000 ] && [ "$(field w run_begin window.duration_ns)" = 500000000 ]
then ok "RUN_BEGIN window: the delay and duration asked for"
else not_ok "RUN_BEGIN window: the delay and duration asked for" "$(cat "$T/w.run_begin")"; fi
if [ "$(field w run_end window.end)" = duration ] && [ "$(field w run_end window.after)" = terminated ]
then ok "RUN_END window: ended at --duration, the program terminated"
else not_ok "RUN_END window: ended at --duration, the program terminated" "$(cat "$T/w.run_end")"; fi
off=$(field w run_end window.offset_ns); len=$(field w run_end window.length_ns)
if awk -v o="$off" -v l="$len" 'BEGIN { exit !(o >= 3e8 && l >= 5e8) }'
then ok "the window began after the delay and lasted the duration (offset $off ns, length $len ns)"
else not_ok "the window began after the delay and lasted the duration" "offset $off, length $len"; fi
if [ "$(field w run_end wall_ns)" = "$len" ]; then ok "RUN_END wall_ns is the window's length"
else not_ok "RUN_END wall_ns is the window's length" "$(field w run_end wall_ns) vs $len"; fi
if [ "$(field w run_end exit.kind)" = signaled ] && [ "$(field w run_end exit.signal)" = 15 ]
then ok "the program ended by SIGTERM"; else not_ok "the program ended by SIGTERM" "$(cat "$T/w.run_end")"; fi
if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then ok "the program is gone after pmcollect"
else not_ok "the program is gone after pmcollect" "pid $pid"; fi
run_capture "$PMANALYZE" "$T/w.zst"
if grep -Eq '^run status +window of [0-9.]+ s from [0-9.]+ s after the start, ended at --duration \(the program was then terminated\)' "$T/out"
then ok "pmanalyze labels the report with the window"
else not_ok "pmanalyze labels the report with the window" "$(grep 'run status' "$T/out")" "$(diag)"; fi
# the exact modes read the window's scheduler events, load-independent: balanced phases, A = 2
run_capture "$PMANALYZE" --format json "$T/w.zst"
a=$(json_get "$T/out" parallelism.estimates.sched-exact.A_inf none 2>/dev/null)
[ "$a" = none ] && a=$(json_get "$T/out" parallelism.estimates.switch-exact.A_inf none 2>/dev/null)
if [ -n "$a" ] && [ "$a" != none ]; then near "A(m,inf) of the window from the exact mode" "$a" 2 0.1
else skip "A(m,inf) of the window from the exact mode" "no exact mode in the trace (no tracefs, no perf_event_open)"; fi

# --- the whole program is stopped, not its root alone: a shell's child and grandchild ----------
# (each writes its pid; without the tree's SIGTERM they ran on, orphaned, after pmcollect)
run_capture "$PMCOLLECT" -q -o "$T/tree.zst" --duration 0.5 -- sh -c \
	'sh -c "sleep 300 & echo \$! > '"$T"'/grandchild; wait" & echo $! > '"$T"'/child; wait'
expect_status "--duration 0.5 of a shell with a child and a grandchild: exit 0" 0
# alive: a process that exists and is not a zombie (an orphan waits for init to reap it)
alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat"; }
c=$(cat "$T/child" 2>/dev/null); g=$(cat "$T/grandchild" 2>/dev/null)
if [ -n "$c" ] && [ -n "$g" ] && ! alive "$c" && ! alive "$g"
then ok "the window's end stopped the root's child and grandchild too"
else not_ok "the window's end stopped the root's child and grandchild too" "child $c, grandchild $g: $(cat /proc/$c/stat /proc/$g/stat 2>&1)"; fi
[ -n "$g" ] && kill -9 "$g" 2>/dev/null; [ -n "$c" ] && kill -9 "$c" 2>/dev/null

# --- --detach: the program runs on, on the CPUs it would have had -------------------------------
before=$(taskset -p $$ | sed 's/.*: //')
run_capture "$PMCOLLECT" -q -o "$T/d.zst" --cpus 0 --duration 0.3 --detach -- $WL "$W/phases" -t 3 -w 10 -r 100000 balanced
expect_status "--detach: exit 0" 0
rec d run_end; rec d run_begin
dpid=$(field d run_begin pid)
if [ "$(field d run_end window.after)" = detached ] && [ "$(field d run_end exit.kind)" = running ]
then ok "RUN_END: detached, the program running"; else not_ok "RUN_END: detached, the program running" "$(cat "$T/d.run_end")"; fi
if [ -n "$dpid" ] && kill -0 "$dpid" 2>/dev/null; then
	ok "the detached program runs on"
	bad=""
	for task in /proc/"$dpid"/task/*; do
		got=$(taskset -p "${task##*/}" | sed 's/.*: //')
		[ "$got" = "$before" ] || bad="$bad ${task##*/}:$got"
	done
	if [ -z "$bad" ]; then ok "every thread of the detached program has the CPU set back ($before)"
	else not_ok "every thread of the detached program has the CPU set back" "want $before;$bad"; fi
	kill -9 "$dpid"
else
	not_ok "the detached program runs on" "pid $dpid"
	skip "every thread of the detached program has the CPU set back" "it did not run on"
fi

# --- a program shorter than --delay: nothing recorded, status 3, no trace left -----------------
run_capture "$PMCOLLECT" -q -o "$T/short.zst" --delay 5 -- true
expect_status "--delay longer than the program: exit 3" 3
expect_err_line "--delay longer than the program: one line" '^pmcollect: error: the program ended [0-9.]+ s after it started, before --delay 5 s: nothing was recorded$'
if [ ! -e "$T/short.zst" ]; then ok "no trace file left"; else not_ok "no trace file left"; fi

# --- bad values ---------------------------------------------------------------------------------
for v in 0 -1; do
	run_capture "$PMCOLLECT" -q -o "$T/bad.zst" --duration "$v" -- true
	expect_status "--duration $v: usage error" 2
	expect_err_line "--duration $v: one error line" '^pmcollect: error: .*--duration'
done
run_capture "$PMCOLLECT" -q -o "$T/bad.zst" --detach -- true
expect_status "--detach without --duration: usage error" 2
expect_err_line "--detach without --duration: one error line" '^pmcollect: error: --detach needs --duration$'

done_testing
