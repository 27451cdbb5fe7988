#!/bin/sh
# SPDX-License-Identifier: MIT
# pmcollect --sweep quota=LIST: the mechanism, not the timings. Bad quota lists are refused with
# one line and exit 2 before anything runs; on a cgroup v2 fixture tree each sweep run runs in the
# transient cgroup with its own quota written (the baseline outside it, unlimited), RUN_BEGIN
# records the run's quota, META records no limit of pmcollect's; pmanalyze prints one row per
# quota (measured against predicted T(n,Q) and throttled periods), in the table, JSON and CSV; as
# root on the machine's own cpu controller each run's RUN_END has the cgroup's cpu.stat counters
# and the cgroup is removed at the end.
. "$PMT_TOP/tests/cli/lib.sh"

# bad input: one line, exit 2, nothing run, no trace
for bad in "quota=0|quota=0: a quota must be above 0 CPUs" \
	"quota=-1|quota=-1: a quota must be above 0 CPUs" \
	"quota=|quota= has an empty list" \
	"quota=0.5/500us|quota 0.5/500us: want a period from 1ms to 1s \\(the kernel's limits\\)" \
	"quota=0.005|quota=0.005: 0.5 ms per period is below the kernel's minimum quota of 1 ms" \
	"quota=fast|quota 'fast' is not CPUs\\[/PERIOD\\] \\(0.5, 1.5/10ms\\)" \
	"quota=1;quota=2|quota given twice"; do
	spec=${bad%%|*}; msg=${bad#*|}
	run_capture "$PMCOLLECT" -o "$T/bad.pmt" --sweep "$spec" -- touch "$T/ran"
	expect_status "--sweep $spec: exit 2" 2
	expect_err_line "--sweep $spec: one line" "^pmcollect: error: invalid --sweep '$spec': $msg\$"
done
run_capture "$PMCOLLECT" -o "$T/bad.pmt" --quota 1 --sweep quota=1,2 -- touch "$T/ran"
expect_status "--quota beside a quota= sweep: exit 2" 2
expect_err_line "--quota beside a quota= sweep: one line" \
	"^pmcollect: error: --quota cannot be combined with a quota= sweep \\(each run has the sweep's\\)\$"
run_capture "$PMCOLLECT" -o "$T/bad.pmt" --no-baseline --sweep quota=1,2 -- touch "$T/ran"
expect_status "--no-baseline with a quota= sweep: exit 2" 2
expect_err_line "--no-baseline with a quota= sweep: one line" \
	"^pmcollect: error: --no-baseline cannot be combined with a quota= sweep \\(the predictions replay the unlimited baseline\\)\$"
if [ -e "$T/ran" ] || [ -e "$T/bad.pmt" ]; then not_ok "bad --sweep quota=: nothing ran, no trace" "$(ls "$T")"
else ok "bad --sweep quota=: nothing ran, no trace"; fi

# a cgroup v2 tree: each run says which quota its cgroup had when it started
V="$T/v2"
mkdir -p "$V/proc/self" "$V/sys/fs/cgroup"
echo "30 22 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw" >"$V/proc/self/mountinfo"
echo "0::/" >"$V/proc/self/cgroup"
probe='d=$(ls -d '"$V"'/sys/fs/cgroup/pmcollect-*); echo "$(cat "$d/cpu.max" 2>/dev/null | tr -d "\n") in:$(grep -cx $$ "$d/cgroup.procs" 2>/dev/null)" >>'"$T/v2.seen"'; exec "$0" "$@"'
run_capture env PMT_SYSFS_ROOT="$V" "$PMCOLLECT" --progress -o "$T/v2.pmt" --sweep 'quota=0.5,1.5/10ms' --repeat 2 -- \
	sh -c "$probe" "$W/phases" -t 2 -w 20 -r 2 balanced
expect_status "v2 tree: pmcollect exits 0" 0
n=$(nproc)
check "v2 tree: the progress line of the baseline" sh -c '[ "$(grep -Ec "$1" "$2")" -eq 1 ]' sh "^pmcollect: \\[1/5\\] baseline cores=1: [0-9]+\\.[0-9]{2} s\$" "$T/err"
check "v2 tree: the progress line of quota 0.5" sh -c '[ "$(grep -Ec "$1" "$2")" -eq 1 ]' sh "^pmcollect: \\[2/5\\] quota=0\\.5 rep 1/2: [0-9]+\\.[0-9]{2} s\$" "$T/err"
check "v2 tree: the progress line of quota 1.5 per 10 ms" sh -c '[ "$(grep -Ec "$1" "$2")" -eq 1 ]' sh "^pmcollect: \\[5/5\\] quota=1\\.5/10ms rep 2/2: [0-9]+\\.[0-9]{2} s\$" "$T/err"
if [ "$n" -le 1 ]; then
	check "v2 tree: quota 1.5 on 1 CPU: a warning" grep -Eq \
		"^pmcollect: warning: --sweep quota=1.5: not below the run's CPUs \\(1\\): throttled only where the kernel's per-CPU slices of the quota run out \\(short periods\\)\$" "$T/err"
fi
check "v2 tree: the baseline outside the cgroup, then each run under its quota (cpu.max), in the order of the plan" \
	sh -c 'sed "1s/^.* in:0*\$/outside/" "$1" | tr "\n" "|" | grep -qx "outside|50000 100000 in:1|15000 10000 in:1|50000 100000 in:1|15000 10000 in:1|"' sh "$T/v2.seen"
if ls -d "$V"/sys/fs/cgroup/pmcollect-* >/dev/null 2>&1; then not_ok "v2 tree: the cgroup folder is removed" "$(ls "$V/sys/fs/cgroup")"
else ok "v2 tree: the cgroup folder is removed"; fi
"$PMANALYZE" --dump "$T/v2.pmt" >"$T/v2.dump"
check "v2 tree: RUN_BEGIN sweep.quota_cpus and quota of each run; the baseline has neither; META no limit of pmcollect's" python3 -c 'import json,sys,re
d=[json.loads(l) for l in open(sys.argv[1])]
m=[x for x in d if x["type"]=="meta"][0]
assert (m.get("cpu_limit") or {}).get("applied_by")!="pmcollect", m.get("cpu_limit")
b=[x for x in d if x["type"]=="run_begin"]
assert [x["role"] for x in b]==["baseline"]+["sweep"]*4, b
assert "quota" not in b[0] and "sweep" not in b[0], b[0]
got=[(x["sweep"]["config"], x["sweep"]["quota_cpus"], x["quota"]["cpus"], x["quota"]["quota_us"], x["quota"]["period_us"], x["rep"]) for x in b[1:]]
assert got==[(0,0.5,0.5,50000,100000,0),(1,1.5,1.5,15000,10000,0),(0,0.5,0.5,50000,100000,1),(1,1.5,1.5,15000,10000,1)], got
assert all(re.fullmatch(r"/sys/fs/cgroup/pmcollect-[0-9]+", x["quota"]["cgroup"]) for x in b[1:]), b' "$T/v2.dump"

# pmanalyze: one row per quota, with its period, the cores, the two runs; no cpu.stat in the tree
"$PMANALYZE" --info "$T/v2.pmt" >"$T/info" 2>&1
run_capture "$PMANALYZE" "$T/v2.pmt"
expect_status "pmanalyze: exit 0" 0
# a quota sweep measures the wake-up cost (META wake_cost); a replay without per-CPU slices (no
# cost between cores, or switch-exact's) says it has one pool, and why
check "pmanalyze: the quota sweep's heading names the replay and its pool" \
	grep -Eqx 'Quota sweep: measured against predicted T\(n,Q\) \((replay under CFS bandwidth control, (per-CPU runtime slices|one runtime pool for all cores \(.*per-CPU slices. replay needs.*\))|fluid approximation: no throttled periods)\)' "$T/out"
check "pmanalyze --info: the sweep measured the wake-up cost" grep -q '^wake cost ' "$T/info"
num='[0-9]+\.[0-9]{3}'
check "pmanalyze: the row of quota 0.5 per 100 ms on $n cores, 2 runs, no throttling measured" \
	grep -Eqx "      0\\.50       100 +$n    2 +$num +-?$num +$num +[-+][0-9]+\\.[0-9]% +- +([0-9]+|-)" "$T/out"
check "pmanalyze: the row of quota 1.5 per 10 ms on $n cores, 2 runs" \
	grep -Eqx "      1\\.50        10 +$n    2 +$num +-?$num +$num +[-+][0-9]+\\.[0-9]% +- +([0-9]+|-)" "$T/out"
check "pmanalyze: the mean error over the 2 quotas" grep -Eqx '  mean \|error\| [0-9.]+% over 2 quotas' "$T/out"
check "pmanalyze: the quota runs are not the scaling study's (no measured-vs-predicted cores table)" \
	sh -c '! grep -q "^sweep" "$1"' sh "$T/out"
run_capture "$PMANALYZE" --format json "$T/v2.pmt"
check "pmanalyze JSON: quota_sweep rows (quota, period, cores, runs; throttled measured null)" python3 -c 'import json,sys
q=json.load(open(sys.argv[1]))["quota_sweep"]
r=[(x["quota_cpus"], x["period_ms"], x["cores"], x["runs"], x["throttled_measured"]) for x in q["rows"]]
assert r==[(0.5,100,int(sys.argv[2]),2,None),(1.5,10,int(sys.argv[2]),2,None)], r
assert all(x["T_predicted_s"]>0 and x["T_measured_s"]>0 for x in q["rows"]), q
# the fixture tree has no kernel configuration: the kernel default tick, where the replay has one
assert (q["tick_ms"], q["tick_source"])==((4, "default") if q["slices"] else (None, None)), q' "$T/out" "$n"
# each row's contention is held out: the median C(run)/C(baseline) - 1 of the other quota's two runs
check "pmanalyze JSON: each row's omega from the other quota's runs (RUN_END C against the baseline's)" python3 -c 'import json,sys
q=json.load(open(sys.argv[1]))["quota_sweep"]
d=[json.loads(l) for l in open(sys.argv[2])]
cfg={x["run_id"]: x["sweep"]["config"] for x in d if x["type"]=="run_begin" and "sweep" in x}
C={x["run_id"]: x["C"]["value"] for x in d if x["type"]=="run_end"}
for row in q["rows"]:
    om=sorted(C[i]/C[0]-1 for i in cfg if cfg[i]!=row["config"])
    want=(om[0]+om[1])/2
    assert row["omega_runs"]==2 and abs(row["omega"]-want)<1e-9, (row, om)' "$T/out" "$T/v2.dump"
run_capture "$PMANALYZE" --format csv "$T/v2.pmt"
check "pmanalyze CSV: the quota sweep's header" \
	grep -qx 'quota_cpus,period_ms,cores,runs,method,T_measured_s,T_predicted_s,err_pct,throttled_measured,throttled_predicted,omega,omega_runs,tick_ms,tick_source' "$T/out"
check "pmanalyze CSV: one row per quota" sh -c 'grep -Ec "^(0\.5,100|1\.5,10),$2,2,(replay|fluid)," "$1" | grep -qx 2' sh "$T/out" "$n"

# the machine's own cpu controller, as root: cpu.stat over each run, the cgroup removed
cpu_mount=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") break; t = $(i + 1); o = $(i + 3)
	if (t == "cgroup" && ("," o ",") ~ /,cpu,/) { print $5; exit } }' /proc/self/mountinfo)
[ -n "$cpu_mount" ] || cpu_mount=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
if [ "$(id -u)" -ne 0 ] || [ -z "$cpu_mount" ] || [ ! -w "$cpu_mount" ]; then
	skip "--sweep quota= on the machine's cgroups" "needs root and a writable cpu controller hierarchy (uid $(id -u), mount '${cpu_mount:-none}')"
	done_testing; exit
fi
"$PMCOLLECT" -q -o "$T/real.pmt" --sweep quota=0.5,1 -- "$W/phases" -t 2 -w 20 -r 1 balanced >/dev/null 2>"$T/real.err" &
pid=$!
wait "$pid"; rc=$?
expect_status "machine: pmcollect --sweep quota=0.5,1 exits 0" 0
if [ -e "$cpu_mount/pmcollect-$pid" ]; then not_ok "machine: the cgroup is removed" "$(ls -d "$cpu_mount/pmcollect-$pid")"
else ok "machine: the cgroup pmcollect-$pid is removed"; fi
"$PMANALYZE" --dump "$T/real.pmt" >"$T/real.dump"
check "machine: each sweep run in pmcollect-$pid under its quota, RUN_END cpu_stat of that cgroup" python3 -c 'import json,sys
d=[json.loads(l) for l in open(sys.argv[1])]
b=[x for x in d if x["type"]=="run_begin"]; e=[x for x in d if x["type"]=="run_end"]
got=[(x["quota"]["cpus"], x["quota"]["cgroup"].endswith("/pmcollect-"+sys.argv[2])) for x in b[1:]]
assert got==[(0.5,True),(1,True)], got
assert all(set(x["cpu_stat"])=={"nr_periods","nr_throttled","throttled_us"} for x in e[1:]), e' "$T/real.dump" "$pid"
run_capture "$PMANALYZE" --format json "$T/real.pmt"
check "machine: the replay's tick is the recorded CONFIG_HZ's when META has it" python3 -c 'import json,sys
m=[x for x in map(json.loads, open(sys.argv[1])) if x["type"]=="meta"][0]
q=json.load(open(sys.argv[2]))["quota_sweep"]
if not q["slices"]:
    assert q["tick_ms"] is None, q
elif m.get("config_hz"):
    assert q["tick_source"]=="recorded" and abs(q["tick_ms"]-1000/m["config_hz"]) < 1e-9, (m["config_hz"], q)
else:
    assert q["tick_source"]=="default" and q["tick_ms"]==4 and m["config_hz_why"], (m["config_hz_why"], q)' "$T/real.dump" "$T/out"
done_testing
