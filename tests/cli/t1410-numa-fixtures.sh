#!/bin/sh
# SPDX-License-Identifier: MIT
# NUMA on fixtures (issue 33), whatever this machine has: pmcollect's topology comes from hwloc,
# and hwloc's Linux backend reads its /sys under HWLOC_FSROOT (hwloc's own variable, hwloc(7)),
# here a fixture tree of tests/fixtures/sysfs (README.md): one node, two nodes (CPU 0 on node 0,
# CPU 1 on node 1, SLIT distances 10/20), no node folder at all. What pmcollect records is checked
# for each: META topology numa_nodes, numa_node_ids, numa_distances and their source, hwloc's XML,
# and pmanalyze --info's machine line. The machine's own run is checked for consistency with its
# /sys/devices/system/node, whatever that holds.
. "$PMT_TOP/tests/cli/lib.sh"

FIX="$PMT_TOP/tests/fixtures/sysfs"
W="$PMT_WORKLOADS"

# tree, nodes, ids, distances, their source, local memory (yes/no), what the case is
numa_tree() {
	run_capture env HWLOC_FSROOT="$FIX/$1" "$PMCOLLECT" -q -o "$T/$1.pmt" -- "$W/phases" -t 2 -w 50 -r 1 balanced
	"$PMANALYZE" --dump "$T/$1.pmt" >"$T/$1.dump" 2>"$T/$1.dump.err"
	expect_status "$1: pmcollect exits 0" 0
	if python3 "$PMT_TOP/tests/cli/checks.py" numa_fixture "$T/$1.dump" "$2" "$3" "$4" "$5" "$6" >"$T/check" 2>&1
	then ok "$1 ($7): META $(cat "$T/check")"
	else not_ok "$1 ($7): META topology" "want numa_nodes $2, ids $3, distances $4 ($5), local memory $6" "$(head -c 600 "$T/check")" "$(diag)"; fi
	run_capture "$PMANALYZE" -q --info "$T/$1.pmt"
	if [ "$rc" -eq 0 ] && grep -Eq "^machine +.*, $2 NUMA nodes;" "$T/out"
	then ok "$1: --info says $2 NUMA nodes"
	else not_ok "$1: --info says $2 NUMA nodes" "$(diag)" "$(grep '^machine' "$T/out")"; fi
}

numa_tree numa-1node 1 '[0]' '[[10]]' none yes "one node, no distance matrix from the kernel's 1x1"
numa_tree numa-2nodes 2 '[0,1]' '[[10,20],[20,10]]' hwloc yes "two nodes, the kernel's SLIT"
numa_tree numa-nonode 1 '[0]' '[[10]]' none no "no node folder: hwloc's one node without memory"

# this machine: as many nodes as /sys/devices/system/node has node folders (one when none)
run_capture "$PMCOLLECT" -q -o "$T/real.pmt" -- "$W/phases" -t 2 -w 50 -r 1 balanced
"$PMANALYZE" --dump "$T/real.pmt" >"$T/real.dump" 2>&1
have=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
[ "$have" -gt 0 ] || have=1
got=$(grep '^{"type":"meta"\|"type":"meta"' "$T/real.dump" | python3 -c 'import json,sys
print([json.loads(l) for l in sys.stdin if l.startswith("{")][0]["topology"]["numa_nodes"])' 2>&1)
if [ "$got" = "$have" ]
then ok "the real machine: META numa_nodes $got, as /sys/devices/system/node has"
else not_ok "the real machine: META numa_nodes as /sys/devices/system/node has" "META: $got, node folders: $have" "$(diag)"; fi

done_testing
