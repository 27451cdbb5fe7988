#!/bin/sh
# SPDX-License-Identifier: MIT
# pmcollect -p PID --cpus 0: every thread of a running process is moved onto CPU 0 for the window
# and gets its own affinity back at the window's end, after SIGTERM to pmcollect and after
# kill -9 of pmcollect (its guardian process restores them). Checked with taskset -p on every
# thread: a phases workload whose threads are given distinct affinities, and a program that
# makes threads during the window (they must not stay on CPU 0). Waits are bounded polls on
# what the threads' affinities say, never on time alone.
. "$PMT_TOP/tests/cli/lib.sh"

cd "$T" || exit 1
ncpu=$(getconf _NPROCESSORS_ONLN)
if [ "$ncpu" -lt 2 ] || ! command -v taskset >/dev/null 2>&1; then
	skip "-p --cpus" "needs 2 CPUs and taskset (util-linux)"; done_testing; exit 0
fi
case "$W" in *-address*) WL="env ASAN_OPTIONS=detect_leaks=0";; *) WL="";; esac
rec() { "$PMANALYZE" --dump "$T/$1.zst" 2>/dev/null | grep "\"type\":\"$2\"" | head -1 >"$T/$1.$2"; }
field() { json_get "$T/$1.$2" "$3" none; }
# affinity PID: every thread's "tid mask" line, sorted
affinity() { for task in /proc/"$1"/task/*; do echo "${task##*/} $(taskset -p "${task##*/}" 2>/dev/null | sed 's/.*: //')"; done | sort; }
# on_cpu0 PID: every thread's mask is 1 (CPU 0 alone); polled up to 20 s while pmcollect starts
on_cpu0() { i=0; while [ $i -lt 400 ]; do
	if affinity "$1" | awk '$2 != "1" { bad = 1 } END { exit bad }'; then return 0; fi
	sleep 0.05; i=$((i + 1)); done; return 1; }
# restored PID BEFORE: the affinities are BEFORE again, polled up to 20 s (after kill -9 the
# guardian restores them once it sees pmcollect gone)
restored() { i=0; while [ $i -lt 400 ]; do
	[ "$(affinity "$1")" = "$2" ] && return 0; sleep 0.05; i=$((i + 1)); done; return 1; }

$WL "$W/phases" -t 3 -w 10 -r 1000000 balanced >/dev/null 2>&1 &
wp=$!
i=0; while [ "$(ls /proc/$wp/task 2>/dev/null | wc -l)" -lt 3 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
set -- $(ls /proc/$wp/task | sort -n)
# distinct affinities: the main thread on every CPU, the workers on CPU 1 and on CPU 0
taskset -p 3 "$1" >/dev/null; taskset -p 2 "$2" >/dev/null; taskset -p 1 "$3" >/dev/null
before=$(affinity "$wp")

# 1. the window ends at --duration
"$PMCOLLECT" -q -o "$T/d.zst" -p "$wp" --cpus 0 --duration 2 >"$T/d.out" 2>"$T/d.err" &
cp=$!
if on_cpu0 "$wp"; then ok "during the window: every thread on CPU 0"
else not_ok "during the window: every thread on CPU 0" "$(affinity "$wp")"; fi
wait "$cp"; rc=$?
expect_status "-p PID --cpus 0 --duration 2: exit 0" 0
after=$(affinity "$wp")
if [ "$before" = "$after" ]; then ok "after --duration: every thread's own affinity back"
else not_ok "after --duration: every thread's own affinity back" "before: $before" "after: $after"; fi
rec d run_end
if [ "$(field d run_end window.affinity.cpus)" = 0 ] && [ "$(field d run_end window.affinity.moved)" = 3 ] &&
   [ "$(field d run_end window.affinity.restored)" = 3 ]
then ok "RUN_END window.affinity: 3 threads moved onto CPU 0 and restored"
else not_ok "RUN_END window.affinity: 3 threads moved onto CPU 0 and restored" "$(cat "$T/d.run_end")"; fi

# 2. SIGTERM to pmcollect
"$PMCOLLECT" -q -o "$T/s.zst" -p "$wp" --cpus 0 >"$T/s.out" 2>"$T/s.err" &
cp=$!
if on_cpu0 "$wp"; then ok "before SIGTERM: every thread on CPU 0"
else not_ok "before SIGTERM: every thread on CPU 0" "$(affinity "$wp")"; fi
kill -TERM "$cp"; wait "$cp"; rc=$?
expect_status "-p PID --cpus 0 ended by SIGTERM: exit 0" 0
after=$(affinity "$wp")
if [ "$before" = "$after" ]; then ok "after SIGTERM: every thread's own affinity back"
else not_ok "after SIGTERM: every thread's own affinity back" "before: $before" "after: $after"; fi

# 3. kill -9 of pmcollect: the guardian restores them
"$PMCOLLECT" -q -o "$T/k.zst" -p "$wp" --cpus 0 >"$T/k.out" 2>"$T/k.err" &
cp=$!
if on_cpu0 "$wp"; then ok "before kill -9: every thread on CPU 0"
else not_ok "before kill -9: every thread on CPU 0" "$(affinity "$wp")"; fi
kill -KILL "$cp"; wait "$cp" 2>/dev/null
if restored "$wp" "$before"; then ok "after kill -9 of pmcollect: every thread's own affinity back"
else not_ok "after kill -9 of pmcollect: every thread's own affinity back" "before: $before" "after: $(affinity "$wp")"; fi
kill "$wp"; wait "$wp" 2>/dev/null

# 4. threads made during the window: they start on CPU 0 and get the process's affinity back
$WL taskset 3 "$W/spawn_threads" -n 100000000 -w 20 -a 2 >/dev/null 2>&1 &
sp=$!
i=0; while [ "$(ls /proc/$sp/task 2>/dev/null | wc -l)" -lt 3 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
"$PMCOLLECT" -q -o "$T/n.zst" -p "$sp" --cpus 0 --duration 2 >"$T/n.out" 2>"$T/n.err"
rc=$?
expect_status "-p PID --cpus 0 of a program that makes threads: exit 0" 0
rec n run_end
moved=$(field n run_end window.affinity.moved)
left=$(affinity "$sp" | awk '$2 == "1"')
if [ -z "$left" ] && [ -n "$moved" ]; then ok "after the window: no thread left on CPU 0 ($moved moved)"
else not_ok "after the window: no thread left on CPU 0" "moved $moved" "on CPU 0: $left"; fi
if [ "${moved:-0}" -gt 3 ] 2>/dev/null; then ok "threads made during the window were moved too"
else skip "threads made during the window were moved too" "no thread was made within the window (machine busy)"; fi
kill "$sp"; wait "$sp" 2>/dev/null

done_testing
