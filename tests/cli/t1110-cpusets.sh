#!/bin/sh
# SPDX-License-Identifier: MIT
# Restricted CPU sets and intervals pmcollect cannot keep (issue 19, cases 3 and 1).
# Case 3: `taskset -c 0 pmcollect -t 2 -- ./app` ran every thread on CPU 0 while the trace said
# CPUs 0-1 and the report "enough CPUs for every thread", with the collector on the program's CPU
# and no warning. Now the CPUs pmcollect may use (online ∩ affinity ∩ cgroup cpuset) are the run's:
# RUN_BEGIN cpus 0, role baseline, META usable_cpus, a warning that the collector shares CPU 0,
# and pmanalyze reports "CPUs 0 (1)" with a note. The same inside a cgroup cpuset (as root).
# Case 1: at -i 0.1 the collector fell behind (27035 of 30473 samples late); now it lengthens
# the interval it cannot keep, says so, and RUN_END "interval" records it.
. "$(dirname "$0")/lib.sh"

ncpu=$(nproc --all 2>/dev/null || nproc)
dump_key() { # dump_key TRACE TYPE: the first record of TYPE as one line of JSON
	"$PMANALYZE" --dump "$1" | grep "\"type\":\"$2\"" | head -1
}
if [ "$ncpu" -lt 2 ] || ! command -v taskset >/dev/null 2>&1; then
	skip "taskset -c 0 pmcollect" "needs 2 CPUs and taskset"
else
	run_capture taskset -c 0 "$PMCOLLECT" -t 2 -o "$T/c3.zst" -- "$W/phases" -t 2 -w 30 -r 2 imbalanced
	rb=$(dump_key "$T/c3.zst" run_begin); meta=$(dump_key "$T/c3.zst" meta)
	if [ "$rc" -eq 0 ] && echo "$rb" | grep -q '"role":"baseline"' && echo "$rb" | grep -q '"cpus":"0"' &&
	   echo "$meta" | grep -q '"usable_cpus":"0"' && echo "$meta" | grep -q "\"online_cpus\":\"0-$((ncpu - 1))\""
	then ok "taskset -c 0: the run is a baseline on CPU 0 of the online 0-$((ncpu - 1)) (RUN_BEGIN, META)"
	else not_ok "taskset -c 0: the run is a baseline on CPU 0 of the online 0-$((ncpu - 1)) (RUN_BEGIN, META)" "exit $rc" "$rb" "$(echo "$meta" | grep -o '"[a-z_]*cpus":"[^"]*"' | tr '\n' ' ')"; fi
	if grep -q "^pmcollect: warning: the collector shares the program's CPUs 0: pmcollect may use CPUs 0 (affinity 0" "$T/err"
	then ok "taskset -c 0: warning that the collector shares CPU 0"
	else not_ok "taskset -c 0: warning that the collector shares CPU 0" "$(cat "$T/err")"; fi
	run_capture "$PMANALYZE" "$T/c3.zst"
	if grep -q "^baseline     run 0 on CPUs 0 (1): oversubscribed baseline" "$T/out" &&
	   grep -q "^note: the collector shared the baseline's CPU 0 (pmcollect was not pinned: it was allowed no CPU outside them)" "$T/out"
	then ok "pmanalyze: baseline on CPUs 0 (1), note that the collector shared it"
	else not_ok "pmanalyze: baseline on CPUs 0 (1), note that the collector shared it" "$(grep -E '^baseline|^note' "$T/out")"; fi
	run_capture "$PMANALYZE" --info "$T/c3.zst"
	if grep -q "^cpu sets     online 0-$((ncpu - 1)); pmcollect's affinity 0; cgroup cpuset .*; usable 0$" "$T/out" &&
	   grep -q "^  recorded: the collector shares the program's CPUs 0" "$T/out" &&
	   grep -q "^interval     .*; program CPUs 0; collector not pinned (it ran on the program's CPUs)$" "$T/out"
	then ok "pmanalyze --info: the whole machine, the allowed set, the unpinned collector (no CPU -1) and the recorded warning"
	else not_ok "pmanalyze --info: the whole machine, the allowed set, the unpinned collector (no CPU -1) and the recorded warning" "$(cat "$T/out")"; fi

	# --cpus outside the affinity: a usage error, not a child that cannot be pinned
	run_capture taskset -c 0 "$PMCOLLECT" --cpus 1 -o "$T/bad.zst" -- true
	expect_status "taskset -c 0 pmcollect --cpus 1: exit 2" 2
	expect_err_line "taskset -c 0 pmcollect --cpus 1: one line naming the usable CPUs" \
		"^pmcollect: error: invalid CPU list '1': CPU 1 is not one pmcollect may use: CPUs 0 \\(affinity 0"

	# a CPU left for the collector: pinned there, no warning
	run_capture taskset -c 0,1 "$PMCOLLECT" -q --cpus 0 -t 2 -o "$T/pinned.zst" -- "$W/phases" -t 2 -w 10 -r 1 balanced
	meta=$(dump_key "$T/pinned.zst" meta)
	if [ "$rc" -eq 0 ] && echo "$meta" | grep -q '"collector_cpu":1,' && ! grep -q "collector shares" "$T/err"
	then ok "taskset -c 0,1 pmcollect --cpus 0: the collector on CPU 1, no warning"
	else not_ok "taskset -c 0,1 pmcollect --cpus 0: the collector on CPU 1, no warning" "exit $rc" "$(cat "$T/err")"; fi
fi

# A cgroup cpuset (Slurm, containers): a child cpuset of CPU 0 under the cpuset hierarchy, entered
# by a subshell that then runs pmcollect without taskset.
cg=""
if [ "$(id -u)" -eq 0 ] && [ "$ncpu" -ge 2 ]; then
	if [ -f /sys/fs/cgroup/cpuset/cpuset.cpus ]; then
		cg=/sys/fs/cgroup/cpuset/pmt-t1110-$$; cpusf=cpuset.cpus; memsf=cpuset.mems
	elif [ -f /sys/fs/cgroup/cpuset.cpus.effective ] && grep -qw cpuset /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
		cg=/sys/fs/cgroup/pmt-t1110-$$; cpusf=cpuset.cpus; memsf=cpuset.mems
	fi
fi
if [ -n "$cg" ] && mkdir "$cg" 2>/dev/null && echo 0 >"$cg/$cpusf" 2>/dev/null &&
   { [ -z "$memsf" ] || cat "$(dirname "$cg")/$memsf" >"$cg/$memsf" 2>/dev/null; }; then
	tasks=$cg/tasks; [ -f "$tasks" ] || tasks=$cg/cgroup.procs
	sh -c 'echo $$ > "$1"; shift; exec "$@"' sh "$tasks" "$PMCOLLECT" -q -t 2 -o "$T/cg.zst" -- \
		"$W/phases" -t 2 -w 10 -r 1 balanced >/dev/null 2>"$T/err"
	rc=$?
	rmdir "$cg" 2>/dev/null
	meta=$(dump_key "$T/cg.zst" meta); rb=$(dump_key "$T/cg.zst" run_begin)
	if [ "$rc" -eq 0 ] && echo "$meta" | grep -q '"usable_cpus":"0"' &&
	   echo "$meta" | grep -q '"cgroup_cpuset":{"cpus":"0","file":"' && echo "$rb" | grep -q '"cpus":"0"'
	then ok "inside a cgroup cpuset of CPU 0: META cgroup_cpuset and usable_cpus 0, the run on CPU 0"
	else not_ok "inside a cgroup cpuset of CPU 0: META cgroup_cpuset and usable_cpus 0, the run on CPU 0" "exit $rc" "$(echo "$meta" | grep -o '"usable_cpus":"[^"]*"\|"cgroup_cpuset":[^}]*}')" "$rb" "$(cat "$T/err")"; fi
else
	[ -n "$cg" ] && rmdir "$cg" 2>/dev/null
	skip "inside a cgroup cpuset" "needs root, 2 CPUs and a writable cpuset hierarchy"
fi

# Case 1: an interval the collector cannot keep. 0.1 ms with 16 threads: reading every thread's
# schedstat plus the timer's wake-up takes 0.4-3 ms of the collector's own CPU here, whatever the
# machine's load (the issue: 27035 of 30473 samples late with 4 threads on a busy VM; with 4
# threads a quiet VM once kept 0.1 ms, and this check failed); pmcollect doubles the interval
# until it keeps it and says so.
run_capture "$PMCOLLECT" --no-sched -i 0.1 -t 16 -o "$T/fine.zst" -- "$W/phases" -t 16 -w 20 -r 3 balanced
re=$(dump_key "$T/fine.zst" run_end)
changes=$(echo "$re" | sed -n 's/.*"interval":{"requested_ms":0.1,"final_ms":\([0-9.]*\),"changes":\([0-9]*\).*/\2 \1/p')
if [ "$rc" -eq 0 ] && [ -n "$changes" ] && [ "${changes%% *}" -ge 1 ] &&
   grep -q "^pmcollect: warning: could not keep the 0.10 ms interval: lengthened [0-9]* times\?, the first at" "$T/err" &&
   "$PMANALYZE" --info "$T/fine.zst" 2>/dev/null | grep -q "^  recorded: cannot keep a 0.10 ms interval ("
then ok "-i 0.1: lengthened ${changes%% *} times to ${changes#* } ms, warned and recorded"
else not_ok "-i 0.1: lengthened, warned and recorded" "exit $rc" "RUN_END interval: $(echo "$re" | grep -o '"interval":{[^}]*}')" "$(cat "$T/err")"; fi
# an interval it keeps stays as asked
run_capture "$PMCOLLECT" -q --no-sched -i 20 -o "$T/kept.zst" -- "$W/phases" -t 2 -w 20 -r 2 balanced
if dump_key "$T/kept.zst" run_end | grep -q '"interval":{"requested_ms":20,"final_ms":20,"changes":0}'
then ok "-i 20: kept (RUN_END interval changes 0)"
else not_ok "-i 20: kept (RUN_END interval changes 0)" "$(dump_key "$T/kept.zst" run_end | grep -o '"interval":{[^}]*}')" "$(machine_load)"; fi

done_testing
