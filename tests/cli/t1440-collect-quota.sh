#!/bin/sh
# SPDX-License-Identifier: MIT
# pmcollect --quota Q[/P]: the mechanism, not the timings. Bad input (one line, exit 2); a cgroup
# v2 fixture tree under PMT_SYSFS_ROOT (cpu.max written, the program moved in, the folder removed,
# META and RUN_BEGIN say so); and as root on the machine's own cpu controller (v1 or v2, whichever
# it has): the program runs in pmcollect-<pid> with the limit written, the cgroup is gone after the
# run and after SIGTERM to pmcollect, and without root nothing runs.
. "$PMT_TOP/tests/cli/lib.sh"

# bad input: one line, exit 2, nothing run
for bad in "0|a quota must be above 0 CPUs" "-1|a quota must be above 0 CPUs" \
	"0.5/500us|want a period from 1ms to 1s \\(the kernel's limits\\)" \
	"0.5/2s|want a period from 1ms to 1s \\(the kernel's limits\\)" \
	"0.005|0.5 ms per period is below the kernel's minimum quota of 1 ms" \
	"fast|want CPUs \\(1.5\\) or CPU time per period \\(150ms\\), optionally /<period>"; do
	q=${bad%%|*}; msg=${bad#*|}
	run_capture "$PMCOLLECT" -o "$T/bad.pmt" --quota "$q" -- touch "$T/ran"
	expect_status "--quota $q: exit 2" 2
	expect_err_line "--quota $q: one line" "^pmcollect: error: invalid --quota '$q': $msg\$"
done
if [ -e "$T/ran" ] || [ -e "$T/bad.pmt" ]; then not_ok "bad --quota: nothing ran, no trace" "$(ls "$T")"
else ok "bad --quota: nothing ran, no trace"; fi
run_capture "$PMCOLLECT" -o "$T/bad.pmt" --quota 1 -p $$
expect_status "--quota with -p: exit 2" 2
expect_err_line "--quota with -p: one line" "^pmcollect: error: -p cannot be combined with --quota\$"

# a cgroup v2 tree: the top cgroup holds pmcollect; the program reads its cgroup's files
V="$T/v2"
mkdir -p "$V/proc/self" "$V/sys/fs/cgroup"
echo "30 22 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw" >"$V/proc/self/mountinfo"
echo "0::/" >"$V/proc/self/cgroup"
probe='d=$(ls -d '"$V"'/sys/fs/cgroup/pmcollect-*); cat "$d/cpu.max" "$d/cgroup.procs" >'"$T/v2.seen"'; echo $$ >>'"$T/v2.seen"
run_capture env PMT_SYSFS_ROOT="$V" "$PMCOLLECT" -o "$T/v2.pmt" --quota 1.5/10ms --cpus 0 -- sh -c "$probe"
expect_status "v2 tree: pmcollect exits 0" 0
# (a run under --quota also measures the wake-up cost: its one informational line)
check "v2 tree: a quota above the program's 1 CPU: a warning, the program runs" sh -c \
	'grep -Eqx "$2" "$1" && ! grep -v -e "^pmcollect: warning: " -e "^pmcollect: wake-up cost " "$1"' sh "$T/err" \
	"pmcollect: warning: --quota 1.5/10ms: not below the program's CPUs \\(1\\): throttled only where the kernel's per-CPU slices of the quota run out \\(short periods\\)"
check "v2 tree: cpu.max '15000 10000' written, the program's pid in cgroup.procs before it ran" \
	python3 -c 'import sys; l=open(sys.argv[1]).read().split(); assert l[0:2]==["15000","10000"] and l[2]==l[3], l' "$T/v2.seen"
check "v2 tree: the cpu controller enabled in the top's cgroup.subtree_control" \
	grep -qx '+cpu' "$V/sys/fs/cgroup/cgroup.subtree_control"
if ls -d "$V"/sys/fs/cgroup/pmcollect-* >/dev/null 2>&1; then not_ok "v2 tree: the cgroup folder is removed" "$(ls "$V/sys/fs/cgroup")"
else ok "v2 tree: the cgroup folder is removed"; fi
"$PMANALYZE" --dump "$T/v2.pmt" >"$T/v2.dump"
check "v2 tree: META cpu_limit is the transient cgroup's, applied by pmcollect; RUN_BEGIN quota" python3 -c 'import json,sys,re
d=[json.loads(l) for l in open(sys.argv[1])]
c=[x for x in d if x["type"]=="meta"][0]["cpu_limit"]
assert re.fullmatch(r"/sys/fs/cgroup/pmcollect-[0-9]+", c["dir"]), c
assert {k: c[k] for k in ("cgroup","quota_us","period_us","cpus","applied_by")}=={"cgroup":"v2","quota_us":15000,"period_us":10000,"cpus":1.5,"applied_by":"pmcollect"}, c
b=[x for x in d if x["type"]=="run_begin"][0]["quota"]
assert b=={"cpus":1.5,"quota_us":15000,"period_us":10000,"cgroup":c["dir"],"applied_by":"pmcollect"}, b' "$T/v2.dump"

# pmanalyze on a trace recorded under --quota: without --quota of its own, it predicts at the
# recorded limit on the run's CPUs, labelled; the replay spends the work at 0.5 CPU at most but
# in the last period, whose work may run on both cores
rm -rf "$V/sys/fs/cgroup/cgroup.subtree_control"
run_capture env PMT_SYSFS_ROOT="$V" "$PMCOLLECT" -q -o "$T/v2w.pmt" --quota 0.5/10ms --cpus 0-1 -- \
	"$W/phases" -t 2 -w 20 -r 2 balanced
expect_status "v2 tree, phases: pmcollect exits 0" 0
run_capture "$PMANALYZE" --format json "$T/v2w.pmt"
check "pmanalyze: the quota study at the recorded limit (0.5 CPU per 10 ms on the run's 2 CPUs), T >= work / 0.5 - one period (the last one's work runs on both cores)" \
	python3 -c 'import json,sys
q=json.load(open(sys.argv[1]))["quota"]
assert q["limit"]=="recorded, pmcollect --quota" and q["cores"]==2 and q["period_ms"]==10, q
r=q["rows"]
assert len(r)==1 and r[0]["quota_cpus"]==0.5 and r[0]["T_s"]>=q["work_s"]/0.5-0.010, q' "$T/out"
run_capture "$PMANALYZE" "$T/v2w.pmt"
check "pmanalyze: the table says whose limit it is" \
	grep -qx '  the limit the trace was recorded under (set by pmcollect --quota), on the run.s CPUs' "$T/out"

# the check against the trace's own runs: runs under a 1-CPU quota are compared with
# T(1, Q) / T(2, Q), at most a little above 1 (the last period's work on both cores), not T(1) / T(2)
run_capture env PMT_SYSFS_ROOT="$V" "$PMCOLLECT" -q -o "$T/v2cal.pmt" --calibrate --repeat 1 --quota 1/10ms -- \
	"$W/phases" -t 4 -w 20 -r 2 balanced
expect_status "v2 tree, --calibrate under --quota: pmcollect exits 0" 0
run_capture "$PMANALYZE" --format json "$T/v2cal.pmt"
check "pmanalyze: runs_check at 2 CPUs predicts under the recorded quota of 1 CPU (S_predicted < 1.25)" \
	python3 -c 'import json,sys
c=[x for x in json.load(open(sys.argv[1]))["runs_check"] if x["cores"]==2]
assert len(c)==1 and c[0]["quota_cpus"]==1 and c[0]["S_predicted"]<1.25, c' "$T/out"

# a read-only tree: the cgroup cannot be made, nothing runs, no trace
R="$T/ro"
mkdir -p "$R/proc/self"
echo "30 22 0:26 / /nonexistent/cgroup rw - cgroup2 cgroup2 rw" >"$R/proc/self/mountinfo"
echo "0::/" >"$R/proc/self/cgroup"
run_capture env PMT_SYSFS_ROOT="$R" "$PMCOLLECT" -o "$T/ro.pmt" --quota 1 -- touch "$T/ran"
expect_status "cgroup cannot be made: exit 1" 1
expect_err_line "cgroup cannot be made: one line" \
	"^pmcollect: error: --quota: cannot enable the cpu controller in /nonexistent/cgroup/cgroup.subtree_control: No such file or directory\$"
if [ -e "$T/ran" ] || [ -e "$T/ro.pmt" ]; then not_ok "cgroup cannot be made: nothing ran, no trace" "$(ls "$T")"
else ok "cgroup cannot be made: nothing ran, no trace"; fi

# the machine's own cpu controller, as root
cpu_mount=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") break; t = $(i + 1); o = $(i + 3)
	if (t == "cgroup" && ("," o ",") ~ /,cpu,/) { print $5; exit } }' /proc/self/mountinfo)
[ -n "$cpu_mount" ] || cpu_mount=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
if [ "$(id -u)" -ne 0 ] || [ -z "$cpu_mount" ] || [ ! -w "$cpu_mount" ]; then
	skip "--quota on the machine's cgroups" "needs root and a writable cpu controller hierarchy (uid $(id -u), mount '${cpu_mount:-none}')"
	done_testing; exit
fi
if [ -e "$cpu_mount/cpu.cfs_quota_us" ] || [ -e "$cpu_mount/cgroup.procs" ] && [ ! -e "$cpu_mount/cgroup.controllers" ]; then
	files="cpu.cfs_quota_us cpu.cfs_period_us"; want="50000 100000"
else
	files="cpu.max"; want="50000 100000"
fi
probe='g=$(awk -F: '"'"'$2 ~ /(^|,)cpu(,|$)/ || $1 == "0" { print $3; exit }'"'"' /proc/self/cgroup)
d='"$cpu_mount"'$g; echo $g; for f in '"$files"'; do cat "$d/$f"; done | tr "\n" " "; echo'
run_capture "$PMCOLLECT" -q -o "$T/real.pmt" --quota 0.5 -- sh -c "$probe"
expect_status "machine: pmcollect --quota 0.5 exits 0" 0
g=$(sed -n 1p "$T/out")
case $g in
/pmcollect-[0-9]*) ok "machine: the program ran in cgroup $g" ;;
*) not_ok "machine: the program ran in a pmcollect-<pid> cgroup" "$(cat "$T/out")" ;;
esac
check "machine: the limit written is 50000 us per 100000 us ($files)" \
	sh -c 'v=$(sed -n 2p "$1" | tr -s " " | sed "s/ $//; s/^max //"); [ "$v" = "$2" ]' sh "$T/out" "$want"
if [ -n "$g" ] && [ -e "$cpu_mount$g" ]; then not_ok "machine: cgroup $g is removed after the run" "$(ls -d "$cpu_mount$g")"
else ok "machine: the cgroup is removed after the run"; fi

# SIGTERM to pmcollect: the program ends, and so does the cgroup
"$PMCOLLECT" -q -o "$T/term.pmt" --quota 1 -- sh -c "touch '$T/term.ready'; exec sleep 30" >/dev/null 2>"$T/term.err" &
pid=$!
i=0
while [ ! -e "$T/term.ready" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
if [ -d "$cpu_mount/pmcollect-$pid" ]; then ok "SIGTERM: cgroup pmcollect-$pid exists during the run"
else not_ok "SIGTERM: cgroup pmcollect-$pid exists during the run" "$(ls "$cpu_mount")"; fi
kill -TERM "$pid"
wait "$pid"; rc=$?
expect_status "SIGTERM: pmcollect exits 143 (the program's SIGTERM)" 143
if [ -e "$cpu_mount/pmcollect-$pid" ]; then not_ok "SIGTERM: the cgroup is removed" "$(ls -d "$cpu_mount/pmcollect-$pid")"
else ok "SIGTERM: the cgroup is removed"; fi

# without root: a clear error, nothing runs, no trace
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	mkdir -p "$T/nobody" && chmod 777 "$T/nobody"
	run_capture setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		"$PMCOLLECT" -o "$T/nobody/n.pmt" --quota 1 -- touch "$T/nobody/ran"
	expect_status "not root: exit 1" 1
	expect_err_line "not root: one line" "^pmcollect: error: --quota: cannot create cgroup $cpu_mount/pmcollect-[0-9]+: Permission denied\$"
	if [ -e "$T/nobody/ran" ] || [ -e "$T/nobody/n.pmt" ]; then not_ok "not root: nothing ran, no trace" "$(ls "$T/nobody")"
	else ok "not root: nothing ran, no trace"; fi
else
	skip "--quota without root" "needs a 'nobody' user and setpriv"
fi
done_testing
