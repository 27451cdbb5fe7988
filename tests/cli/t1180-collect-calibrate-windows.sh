#!/bin/sh
# SPDX-License-Identifier: MIT
# pmcollect --calibrate --repeat 2 -p PID --window 0.5: a running phases workload calibrated in
# windows. Checked in what the trace says the tool did: the runs' CPU sets alternate 1 CPU and
# the c CPUs of the plan (--dry-run cannot name them, the plan's compact order does: run 0 is
# one CPU and run 1 more), every run is an attached window of a length that ran to its end,
# whose threads were moved onto the run's CPUs and restored; afterwards every thread's own
# affinity is back (Cpus_allowed_list of /proc/PID/task/*/status); pmanalyze prints the windows'
# table and the note, line for line; SIGTERM in a window stops the plan there. No timing is
# asserted.
. "$PMT_TOP/tests/cli/lib.sh"

cd "$T" || exit 1
ncpu=$(getconf _NPROCESSORS_ONLN)
if [ "$ncpu" -lt 2 ] || ! command -v taskset >/dev/null 2>&1; then
	skip "--calibrate -p --window" "needs 2 CPUs and taskset (util-linux)"; done_testing; exit 0
fi
case "$W" in *-address*) WL="env ASAN_OPTIONS=detect_leaks=0";; *) WL="";; esac
# allowed PID: every thread's "tid Cpus_allowed_list" line, sorted
allowed() { for s in /proc/"$1"/task/*/status; do t=${s%/status}; echo "${t##*/} $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$s")"; done | sort; }

$WL "$W/phases" -t 3 -w 10 -r 1000000 balanced >/dev/null 2>&1 &
wp=$!
i=0; while [ "$(ls /proc/$wp/task 2>/dev/null | wc -l)" -lt 3 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
set -- $(ls /proc/$wp/task | sort -n)
# distinct affinities: the main thread on every CPU, the workers on CPU 1 and on CPU 0
taskset -p 3 "$1" >/dev/null; taskset -p 2 "$2" >/dev/null; taskset -p 1 "$3" >/dev/null
before=$(allowed "$wp")

run_capture "$PMCOLLECT" -q -o "$T/w.zst" --calibrate --repeat 2 -p "$wp" --window 0.5
if grep -q "cannot plan the calibration runs: one core" "$T/err"; then
	skip "--calibrate -p --window" "one core on the first socket: no second core count"
	kill "$wp"; wait "$wp" 2>/dev/null; done_testing; exit 0
fi
expect_status "--calibrate --repeat 2 -p PID --window 0.5: exit 0" 0
after=$(allowed "$wp")
if [ "$before" = "$after" ]; then ok "afterwards every thread's own Cpus_allowed_list is back"
else not_ok "afterwards every thread's own Cpus_allowed_list is back" "before: $before" "after: $after"; fi

# SIGTERM during the first window (every thread on one CPU, polled up to 20 s): the plan stops
# there, the threads get their own CPUs back
"$PMCOLLECT" -q -o "$T/s.zst" --calibrate --repeat 3 -p "$wp" --window 30 >"$T/s.out" 2>"$T/err" &
cp=$!
i=0; while [ $i -lt 400 ] && ! allowed "$wp" | awk '$2 ~ /[-,]/ { bad = 1 } END { exit bad }'; do sleep 0.05; i=$((i + 1)); done
kill -TERM "$cp"; wait "$cp"; rc=$?
last_cmd="pmcollect --calibrate --repeat 3 -p $wp --window 30, SIGTERM in the first window"
expect_status "SIGTERM in the first window: exit 143" 143
expect_err_line "SIGTERM in the first window: one line" '^pmcollect: error: stopped by signal 15 after 1 of [0-9]+ runs$'
after=$(allowed "$wp")
if [ "$before" = "$after" ]; then ok "after SIGTERM every thread's own Cpus_allowed_list is back"
else not_ok "after SIGTERM every thread's own Cpus_allowed_list is back" "before: $before" "after: $after"; fi
kill "$wp"; wait "$wp" 2>/dev/null

# one line per run: run_id role cpus | duration_ns attached-pid | end after length>0 affinity
"$PMANALYZE" --dump "$T/w.zst" 2>/dev/null | python3 -c '
import json, sys
begin, end = {}, {}
for line in sys.stdin:
    o = json.loads(line)
    if o.get("type") == "run_begin":
        begin[o["run_id"]] = o
    elif o.get("type") == "run_end":
        end[o["run_id"]] = o
for k in sorted(begin):
    b, e = begin[k], end.get(k, {})
    w, a = e.get("window", {}), e.get("window", {}).get("affinity", {})
    print(k, b["role"], b["cpus"], 1 if b["cpus"] and b["cpus"].isdigit() else 2,
          b["window"]["duration_ns"], b["window"]["attached"] == [int(sys.argv[1])],
          w.get("end"), w.get("after"), w.get("length_ns", 0) > 0, a.get("cpus") == b["cpus"],
          a.get("moved"), a.get("restored"))
' "$wp" >"$T/runs" 2>"$T/runs.err"
one=$(awk '$1 == 0 { print $3 }' "$T/runs")
c=$(awk '$1 == 1 { print $3 }' "$T/runs")
want=$(printf '%s\n' "0 baseline $one" "1 calibration $c" "2 baseline $one" "3 calibration $c")
if [ "$(cut -d' ' -f1-3 "$T/runs")" = "$want" ] && [ "$(awk '$1 == 0 { print $4 }' "$T/runs")" = 1 ] &&
   [ "$(awk '$1 == 1 { print ($4 > 1) }' "$T/runs")" = 1 ]
then ok "4 runs alternate 1 CPU ($one) and c CPUs ($c)"
else not_ok "4 runs alternate 1 CPU and c CPUs" "$(cat "$T/runs" "$T/runs.err")"; fi
if [ "$(cut -d' ' -f5- "$T/runs" | sort -u)" = "500000000 True duration left True True 3 3" ]
then ok "every run is a window of 0.5 s of the process, ran its length, threads moved and restored"
else not_ok "every run is a window of 0.5 s of the process, ran its length, threads moved and restored" "$(cat "$T/runs")"; fi
"$PMANALYZE" --dump "$T/w.zst" 2>/dev/null | grep '"type":"summary"' >"$T/summary"
if [ "$(json_get "$T/summary" calibration.rounds none)" = 2 ] && [ "$(json_get "$T/summary" calibration.stop none)" = repeat ] &&
   [ "$(json_get "$T/summary" calibration.omega_se none)" = none ]
then ok "SUMMARY calibration: 2 rounds, stopped by --repeat, no omega standard error"
else not_ok "SUMMARY calibration: 2 rounds, stopped by --repeat, no omega standard error" "$(cat "$T/summary")"; fi

run_capture "$PMANALYZE" "$T/w.zst"
expect_status "pmanalyze of the windows: exit 0" 0
if grep -qx 'calibration  in windows of a running process (C(n) unknown: see the notes)' "$T/out"
then ok "the calibration is labelled as windows"
else not_ok "the calibration is labelled as windows" "$(cat "$T/out")"; fi
if grep -qx ' *run  cores  window (s)  CPU time (s)  busy cores' "$T/out"; then ok "the windows' table head"
else not_ok "the windows' table head" "$(cat "$T/out")"; fi
rows=$(grep -E '^ {13} +[0-3] +[0-9]+ +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{2}$' "$T/out" | awk '{ print $1, $2 }' | tr '\n' ' ')
n=$(echo "$rows" | awk '{ print $4 }')
if [ "$rows" = "0 1 1 $n 2 1 3 $n " ] && [ "$n" -gt 1 ] 2>/dev/null
then ok "one row per window: runs 0 and 2 on 1 core, 1 and 3 on $n"
else not_ok "one row per window: runs 0 and 2 on 1 core, 1 and 3 on c" "rows: $rows" "$(cat "$T/out")"; fi
if grep -Eqx "note: the calibration is 4 windows of [0-9.]+ s of a running process on 1, [0-9]+ cores \(pmcollect --calibrate -p --window\): a window of a fixed length does not do a fixed amount of the program's work, so its CPU time is not C\(n\) and omega\(n\) = C\(n\)/C\(1\) - 1 \(eq\. 7\) is not computed from it; .*" "$T/out"
then ok "the note says why omega is not computed from windows"
else not_ok "the note says why omega is not computed from windows" "$(cat "$T/out")"; fi
if grep -q "omega unknown (no finished run" "$T/out"; then not_ok "no note asking for runs the windows are" "$(cat "$T/out")"
else ok "no note asking for runs the windows are"; fi

# bad input: --window without -p, with --duration
run_capture "$PMCOLLECT" -q -o "$T/x.zst" --calibrate --window 1 -- true
expect_status "--window without -p: exit 2" 2
expect_err_line "--window without -p: one line" '^pmcollect: error: --window needs --calibrate \(or --runs\) and -p$'
run_capture "$PMCOLLECT" -q -o "$T/x.zst" --calibrate -p 1 --window 1 --duration 1
expect_status "--window with --duration: exit 2" 2
expect_err_line "--window with --duration: one line" '^pmcollect: error: --window cannot be combined with --duration \(--window is each run.s window\)$'

run_capture "$PMCOLLECT" -q -o "$T/x.zst" --calibrate -p 1 --window 1 --omega-se 0.05
expect_status "--window with --omega-se: exit 2" 2
expect_err_line "--window with --omega-se: one line" '^pmcollect: error: --omega-se cannot be combined with --window \(windows give no omega to stop on: their rounds are --repeat K, 3 by default\)$'

done_testing
