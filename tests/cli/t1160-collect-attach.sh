#!/bin/sh
# SPDX-License-Identifier: MIT
# pmcollect -p PID: record a process that runs already (a phases workload that loops until it is
# killed). Checked from the trace (RUN_BEGIN/RUN_END "window", the threads sampled) and from
# /proc: the process runs on afterwards with every thread's affinity unchanged, the window ends
# at --duration, at SIGINT or SIGTERM to pmcollect and at the process's end; the bad -p values get one line
# and exit 2. On a machine with hardware counters, the window's COUNTERS snapshots (skipped without). Nothing depends on load (lengths are only checked from below).
. "$PMT_TOP/tests/cli/lib.sh"

cd "$T" || exit 1
case "$W" in *-address*) WL="env ASAN_OPTIONS=detect_leaks=0";; *) WL="";; esac
rec() { "$PMANALYZE" --dump "$T/$1.zst" 2>/dev/null | grep "\"type\":\"$2\"" | head -1 >"$T/$1.$2"; }
field() { json_get "$T/$1.$2" "$3" none; }
# affinity PID: every thread's "tid mask" line, sorted
# attached CP: waits (up to 20 s) until pmcollect CP has opened its pidfd of the process, so the
# process is checked and followed: its end, or a signal, comes inside the run, whatever the load
attached() { i=0; while ! ls -l /proc/"$1"/fd 2>/dev/null | grep -q 'anon_inode:\[pidfd\]' && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done; }
affinity() { for task in /proc/"$1"/task/*; do echo "${task##*/} $(taskset -p "${task##*/}" | sed 's/.*: //')"; done | sort; }

$WL "$W/phases" -t 3 -w 10 -r 1000000 balanced >/dev/null 2>&1 &
wp=$!
# wait until its three threads are there
i=0; while [ "$(ls /proc/$wp/task 2>/dev/null | wc -l)" -lt 3 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
before=$(affinity "$wp")

run_capture "$PMCOLLECT" -q -o "$T/a.zst" -p "$wp" --duration 0.5
expect_status "-p PID --duration 0.5: exit 0" 0
rec a run_begin; rec a run_end
if [ "$(field a run_begin pid)" = "$wp" ] && [ "$(field a run_begin window.attached.0)" = "$wp" ]
then ok "RUN_BEGIN: the attached process"; else not_ok "RUN_BEGIN: the attached process" "$(cat "$T/a.run_begin")"; fi
if [ "$(field a run_end window.end)" = duration ] && [ "$(field a run_end window.after)" = left ] &&
   [ "$(field a run_end exit.kind)" = running ]
then ok "RUN_END: ended at --duration, the process left running"
else not_ok "RUN_END: ended at --duration, the process left running" "$(cat "$T/a.run_end")"; fi
len=$(field a run_end window.length_ns); off=$(field a run_end window.offset_ns)
if awk -v l="$len" -v o="$off" 'BEGIN { exit !(l >= 5e8 && o > 0) }'; then ok "window: length >= 0.5 s, offset = the process's age ($off ns)"
else not_ok "window: length >= 0.5 s, offset = the process's age" "length $len, offset $off"; fi
tids=$("$PMANALYZE" --dump "$T/a.zst" | grep '"type":"sample"' | grep -o '"tid":[0-9]*' | sort -u | wc -l)
if [ "$tids" -eq 3 ]; then ok "the three threads recorded"; else not_ok "the three threads recorded" "$tids threads in the samples"; fi
# snap_check DUMP: the run's COUNTERS snapshots (FORMAT.md §5.5) as many values as RUN_BEGIN
# counters.events names, in time order, cumulative from 0 at the window's start, one per sample (3 threads: every sample,
# pmc_snapshot_every) or 32 (8 per quarter of the window), the last one RUN_END C's cycles (value)
# and instructions
snap_check() {
	python3 -c 'import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
rb = next(r for r in recs if r["type"] == "run_begin")
re = next(r for r in recs if r["type"] == "run_end")
ev = rb["counters"]["events"]
snaps = [r for r in recs if r["type"] == "counters"]
samples = sum(1 for r in recs if r["type"] == "sample")
assert ev and len(snaps) >= min(32, samples - 2), (ev, len(snaps), samples)
assert all(len(s["values"]) == len(ev) for s in snaps), ev
assert all(a["t_ns"] <= b["t_ns"] for a, b in zip(snaps, snaps[1:]))
assert all(x == 0 for x in snaps[0]["values"]), snaps[0]
for i in range(len(ev)):
    v = [s["values"][i] for s in snaps]
    assert all(a <= b for a, b in zip(v, v[1:])), (ev[i], v)
C = re["C"]
last = dict(zip(ev, snaps[-1]["values"]))
if C.get("source") == "cycles":
    assert last[C["event"]] == C["value"], (last, C)
if "instructions_event" in C:
    assert last[C["instructions_event"]] == C["instructions"], (last, C)' "$1"
}
"$PMANALYZE" --dump "$T/a.zst" >"$T/a.dump" 2>/dev/null
if grep -q '"instructions_event"' "$T/a.run_end"; then
	check "-p with hardware counters: snapshots of the threads' sums, named in RUN_BEGIN, the last RUN_END C's" \
		snap_check "$T/a.dump"
else
	skip "-p: COUNTERS snapshots of the threads' summed counters" "no hardware counters counted here (RUN_END C has no instructions)"
fi
if kill -0 "$wp" 2>/dev/null; then ok "the process runs on"; else not_ok "the process runs on"; fi
after=$(affinity "$wp")
if [ "$before" = "$after" ]; then ok "every thread's affinity unchanged"
else not_ok "every thread's affinity unchanged" "before: $before" "after: $after"; fi
run_capture "$PMANALYZE" "$T/a.zst"
if grep -Eq '^run status +window of [0-9.]+ s from [0-9.]+ s after the start, ended at --duration \(pmcollect -p' "$T/out"
then ok "pmanalyze labels the report with the window"; else not_ok "pmanalyze labels the report with the window" "$(diag)"; fi
# a plain -p window is no calibration run: not "left out of the calibration" as a failed one, and
# the omega note says why its windows cannot calibrate (a fixed length is no fixed work)
if ! grep -q "^note: left out of the calibration" "$T/out" &&
   grep -q "^note: omega unknown (.*windows of the running process $wp cannot give them, since a window of a fixed length does not do a fixed amount of work: record runs of the same program on the same input with 'pmcollect --calibrate -o calib.zst -- " "$T/out"
then ok "-p window: no 'left out of the calibration', the omega note names the process"
else not_ok "-p window: no 'left out of the calibration', the omega note names the process" "$(grep '^note' "$T/out")"; fi

# --perf-switch: the context switches of every thread of the running process (the events opened
# on each thread, not inherited from an exec pmcollect did not see)
run_capture "$PMCOLLECT" -o "$T/p.zst" -p "$wp" --perf-switch --no-sched --duration 0.5
if grep -q "context switches not recorded" "$T/err"; then
	skip "-p --perf-switch: every thread's context switches" "$(grep "context switches not recorded" "$T/err" | head -1)"
else
	want=$(ls /proc/$wp/task | sort -n | tr '\n' ' ')
	got=$("$PMANALYZE" --dump "$T/p.zst" 2>/dev/null | grep '"type":"pswitch"' | grep -E '"event":"(in|out)"' |
	      grep -o '"common_pid":[0-9]*' | cut -d: -f2 | sort -nu | tr '\n' ' ')
	if [ "$got" = "$want" ]; then ok "-p --perf-switch: every thread's context switches ($want)"
	else not_ok "-p --perf-switch: every thread's context switches" "threads: $want" "in PSWITCH: $got" "$(diag)"; fi
fi

# SIGTERM to pmcollect ends the window; the process is not signalled (SIGINT would do the same,
# but a background job of a non-interactive shell starts with SIGINT ignored)
"$PMCOLLECT" -q -o "$T/s.zst" -p "$wp" >"$T/s.out" 2>"$T/s.err" &
cp=$!
attached "$cp"; sleep 0.2
kill -TERM "$cp"; wait "$cp"; rc=$?
expect_status "-p PID ended by SIGTERM: exit 0" 0
rec s run_end
if [ "$(field s run_end window.end)" = signal ] && kill -0 "$wp" 2>/dev/null
then ok "SIGTERM ends the window (end signal), the process runs on"
else not_ok "SIGTERM ends the window (end signal), the process runs on" "$(cat "$T/s.run_end")"; fi

# the process's end ends the window
"$PMCOLLECT" -q -o "$T/e.zst" -p "$wp" >"$T/e.out" 2>"$T/e.err" &
cp=$!
attached "$cp"; sleep 0.2
kill "$wp"; wait "$cp"; rc=$?
cp "$T/e.err" "$T/err"
expect_status "-p PID of a process that ends: exit 0" 0
rec e run_end
if [ "$(field e run_end window.end)" = exit ] && [ "$(field e run_end exit.kind)" = ended ]
then ok "the process's end ends the window (end exit, exit kind ended)"
else not_ok "the process's end ends the window" "$(cat "$T/e.run_end")"; fi
wait "$wp" 2>/dev/null

# --- bad -p -------------------------------------------------------------------------------------
sleep 0 & gone=$!; wait "$gone"
run_capture "$PMCOLLECT" -q -o "$T/bad.zst" -p "$gone" --duration 1
expect_status "-p of no process: exit 2" 2
expect_err_line "-p of no process: one line" "^pmcollect: error: -p $gone: no such process$"
run_capture "$PMCOLLECT" -q -o "$T/bad.zst" -p 1 --duration 1
expect_status "-p 1: exit 2" 2
expect_err_line "-p 1: one line" '^pmcollect: error: -p 1: PID 1 \(init\) cannot be recorded$'
run_capture sh -c 'exec "$0" -q -o "$1" -p $$ --duration 1' "$PMCOLLECT" "$T/bad.zst"
expect_status "-p of pmcollect itself: exit 2" 2
expect_err_line "-p of pmcollect itself: one line" "^pmcollect: error: -p [0-9]+: pmcollect's own process cannot be recorded$"
run_capture "$PMCOLLECT" -q -o "$T/bad.zst" -p 12345 -- true
expect_status "-p with a command: exit 2" 2
expect_err_line "-p with a command: one line" '^pmcollect: error: -p cannot be combined with a command$'
# a zombie: a child its parent does not reap for a while
sh -c 'sleep 0 & sleep 3' & zp=$!
sleep 0.5
z=$(ps -o pid=,stat= --ppid "$zp" | awk '$2 ~ /^Z/ { print $1; exit }')
if [ -n "$z" ]; then
	run_capture "$PMCOLLECT" -q -o "$T/bad.zst" -p "$z" --duration 1
	expect_status "-p of a zombie: exit 2" 2
	expect_err_line "-p of a zombie: one line" "^pmcollect: error: -p $z: a zombie"
else
	skip "-p of a zombie" "no zombie child appeared"
fi
kill "$zp" 2>/dev/null; wait "$zp" 2>/dev/null
if [ "$(id -u)" -ne 0 ] && [ -d /proc/1 ]; then
	other=$(ps -eo pid=,uid= | awk -v me="$(id -u)" '$2 != me && $1 != 1 { print $1; exit }')
	if [ -n "$other" ]; then
		run_capture "$PMCOLLECT" -q -o "$T/bad.zst" -p "$other" --duration 1
		expect_status "-p of another user's process: exit 2" 2
		expect_err_line "-p of another user's process: one line" "^pmcollect: error: -p $other: a process of another user: permission denied"
	else skip "-p of another user's process" "none found"; fi
else
	skip "-p of another user's process" "root may record every process"
fi

done_testing
