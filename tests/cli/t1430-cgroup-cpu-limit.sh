#!/bin/sh
# SPDX-License-Identifier: MIT
# pmcollect records the CPU limit it ran under (META cpu_limit) and the cgroup's throttling over
# each run (RUN_END cpu_stat), on fixture trees: PMT_SYSFS_ROOT points pmcollect's cgroup lookup
# (collector/sources/cpuset.c pmc_cgroup_cpu_limit: <root>/proc/self/mountinfo, <root>/proc/self/
# cgroup, the cgroup's files) at a tree made here, cgroup v2 and v1. The program itself rewrites
# the fixture's cpu.stat, so the counters' change over the run is known by construction.
. "$PMT_TOP/tests/cli/lib.sh"

# tree V: a cgroup v2 container cgroup (1.5 CPUs per 100 ms, 20 ms burst)
V="$T/v2"
mkdir -p "$V/proc/self" "$V/sys/fs/cgroup/pod1"
echo "30 22 0:26 /kubepods /sys/fs/cgroup rw - cgroup2 cgroup2 rw" >"$V/proc/self/mountinfo"
echo "0::/kubepods/pod1" >"$V/proc/self/cgroup"
echo "150000 100000" >"$V/sys/fs/cgroup/pod1/cpu.max"
echo "20000" >"$V/sys/fs/cgroup/pod1/cpu.max.burst"
printf 'usage_usec 10\nnr_periods 100\nnr_throttled 7\nthrottled_usec 5000\n' >"$V/sys/fs/cgroup/pod1/cpu.stat"
run_capture env PMT_SYSFS_ROOT="$V" "$PMCOLLECT" -o "$T/v2.pmt" -- sh -c \
	"printf 'usage_usec 99\nnr_periods 117\nnr_throttled 23\nthrottled_usec 401160\n' >'$V/sys/fs/cgroup/pod1/cpu.stat'"
expect_status "v2: pmcollect exits 0" 0
"$PMANALYZE" --dump "$T/v2.pmt" >"$T/v2.dump"
check "v2: META cpu_limit is the cgroup's cpu.max and cpu.max.burst" python3 -c 'import json,sys
m=[d for l in open(sys.argv[1]) for d in [json.loads(l)] if d["type"]=="meta"][0]
c=m["cpu_limit"]
assert c=={"cgroup":"v2","dir":"/sys/fs/cgroup/pod1","quota_us":150000,"period_us":100000,"burst_us":20000,"cpus":1.5,"applied_by":"environment"}, c' "$T/v2.dump"
check "v2: RUN_END cpu_stat is the counters' change over the run (17 periods, 16 throttled, 396160 us)" \
	python3 -c 'import json,sys
e=[d for l in open(sys.argv[1]) for d in [json.loads(l)] if d["type"]=="run_end"]
assert len(e)==1 and e[0]["cpu_stat"]=={"nr_periods":17,"nr_throttled":16,"throttled_us":396160}, e' "$T/v2.dump"
run_capture "$PMANALYZE" --info "$T/v2.pmt"
check "v2: pmanalyze --info says the trace ran under a 1.5-CPU limit" \
	grep -q '^cpu limit    1.50 CPUs (150000 us per 100000 us period, burst 20000 us): a container; pmanalyze --quota predicts under it$' "$T/out"

# tree W: cgroup v1, the cpu,cpuacct hierarchy without a limit (-1); throttled_time in ns
W="$T/v1"
mkdir -p "$W/proc/self" "$W/sys/fs/cgroup/cpu,cpuacct/pmq"
echo "32 25 0:28 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct" >"$W/proc/self/mountinfo"
echo "4:cpu,cpuacct:/pmq" >"$W/proc/self/cgroup"
echo "-1" >"$W/sys/fs/cgroup/cpu,cpuacct/pmq/cpu.cfs_quota_us"
echo "100000" >"$W/sys/fs/cgroup/cpu,cpuacct/pmq/cpu.cfs_period_us"
printf 'nr_periods 3\nnr_throttled 0\nthrottled_time 0\n' >"$W/sys/fs/cgroup/cpu,cpuacct/pmq/cpu.stat"
run_capture env PMT_SYSFS_ROOT="$W" "$PMCOLLECT" -o "$T/v1.pmt" -- sh -c \
	"printf 'nr_periods 5\nnr_throttled 1\nthrottled_time 2500000\n' >'$W/sys/fs/cgroup/cpu,cpuacct/pmq/cpu.stat'"
expect_status "v1: pmcollect exits 0" 0
"$PMANALYZE" --dump "$T/v1.pmt" >"$T/v1.dump"
check "v1: META cpu_limit without a limit: quota_us and cpus null; RUN_END cpu_stat in us" python3 -c 'import json,sys
d=[json.loads(l) for l in open(sys.argv[1])]
c=[x for x in d if x["type"]=="meta"][0]["cpu_limit"]
assert c=={"cgroup":"v1","dir":"/sys/fs/cgroup/cpu,cpuacct/pmq","quota_us":None,"period_us":100000,"burst_us":0,"cpus":None,"applied_by":"environment"}, c
e=[x for x in d if x["type"]=="run_end"][0]["cpu_stat"]
assert e=={"nr_periods":2,"nr_throttled":1,"throttled_us":2500}, e' "$T/v1.dump"

# tree N: no cgroup with the cpu controller: null with the reason, no cpu_stat
N="$T/none"
mkdir -p "$N/proc/self"
echo "22 1 0:20 / /sys rw - sysfs sysfs rw" >"$N/proc/self/mountinfo"
run_capture env PMT_SYSFS_ROOT="$N" "$PMCOLLECT" -o "$T/none.pmt" -- true
expect_status "no cpu controller: pmcollect exits 0" 0
"$PMANALYZE" --dump "$T/none.pmt" >"$T/none.dump"
check "no cpu controller: META cpu_limit null with the reason, RUN_END without cpu_stat" python3 -c 'import json,sys
d=[json.loads(l) for l in open(sys.argv[1])]
m=[x for x in d if x["type"]=="meta"][0]
assert m["cpu_limit"] is None and m["cpu_limit_reason"]=="no cgroup with the cpu controller", m.get("cpu_limit_reason")
assert "cpu_stat" not in [x for x in d if x["type"]=="run_end"][0]' "$T/none.dump"

done_testing
