#!/bin/sh
# SPDX-License-Identifier: MIT
# tracefs present, absent, and present without the sched events (issue 33), whatever this
# machine's tracefs is: PMT_SYSFS_ROOT points pmcollect's tracefs check (pmc_sched_probe) at
# <root>/sys/kernel/tracing of a fixture tree (tests/fixtures/sysfs/README.md). What pmcollect
# records is checked for each: META sources.sched_events (recorded, or false with the reason), the
# warning line, the SCHED records, the perf_switch fallback, and pmanalyze --info. A fixture holds
# no ring buffer: when the fixture's tracefs passes, the machine's own records the events, so that
# case is checked for consistency with what this machine allows (root or not).
. "$PMT_TOP/tests/cli/lib.sh"

FIX="$PMT_TOP/tests/fixtures/sysfs"
W="$PMT_WORKLOADS"

# tree name, the reason's extended regex (empty: the fixture's tracefs is usable)
check_tree() {
	tree=$1 want=$2
	run_capture env PMT_SYSFS_ROOT="$FIX/$tree" "$PMCOLLECT" -o "$T/$tree.pmt" -- "$W/phases" -t 2 -w 50 -r 1 balanced
	"$PMANALYZE" --dump "$T/$tree.pmt" >"$T/$tree.dump" 2>"$T/$tree.dump.err"
	cp "$T/err" "$T/$tree.err"
	expect_status "$tree: pmcollect exits 0 (scheduler events are optional)" 0
	meta=$(grep '"type":"meta"' "$T/$tree.dump" | grep -o '"sched_events":{[^}]*}')
	scheds=$(grep -c '"type":"sched"' "$T/$tree.dump")
	pswitch=$(grep '"type":"meta"' "$T/$tree.dump" | grep -o '"perf_switch":{[^}]*}')
	if [ -n "$want" ]; then
		if printf '%s\n' "$meta" | grep -Eq "^\"sched_events\":\\{\"recorded\":false,\"reason\":\"$want\"\\}$" &&
		   [ "$scheds" -eq 0 ]
		then ok "$tree: META sched_events not recorded with the reason, no SCHED records"
		else not_ok "$tree: META sched_events not recorded with the reason" "META: $meta" "SCHED records: $scheds" "$(diag)"; fi
		if err_line_only "$T/$tree.err" "^pmcollect: warning: scheduler events not recorded: $want$"
		then ok "$tree: one warning with the reason"
		else not_ok "$tree: one warning with the reason" "$(diag "$T/$tree.err")"; fi
		# the fallback: perf context switches where perf_event_open is allowed, else its own reason
		if printf '%s\n' "$pswitch" | grep -q '"recorded":true' && grep -q '"type":"pswitch"' "$T/$tree.dump" ||
		   printf '%s\n' "$pswitch" | grep '"recorded":false' | grep -vq 'scheduler events are recorded'
		then ok "$tree: perf_switch recorded instead, or not with its own reason ($pswitch)"
		else not_ok "$tree: perf_switch recorded instead" "$pswitch"; fi
		run_capture "$PMANALYZE" -q --info "$T/$tree.pmt"
		if [ "$rc" -eq 0 ] && grep '^sources ' "$T/out" | grep -vq 'sched_events' &&
		   grep -Eq "^ +sched_events: not recorded: $want$" "$T/out"
		then ok "$tree: --info lists sched_events as not recorded with the reason"
		else not_ok "$tree: --info lists sched_events as not recorded" "$(diag)" "$(grep -E '^sources|sched_events' "$T/out")"; fi
	elif printf '%s\n' "$meta" | grep -q '"recorded":true'; then
		if printf '%s\n' "$meta" | grep -q '"sched:sched_switch"' && [ "$scheds" -gt 0 ]
		then ok "$tree: the fixture's tracefs passes; META sched_events recorded, $scheds SCHED records"
		else not_ok "$tree: sched_events recorded with SCHED records" "META: $meta" "SCHED records: $scheds"; fi
	elif [ "$(id -u)" -ne 0 ]; then
		skip "$tree: the fixture's tracefs passes and the events are recorded" "not root: the tracefs instance needs root ($meta)"
	else
		# root, and the fixture passed the check: only this machine's tracefs can refuse now
		if printf '%s\n' "$meta" | grep -Eq 'not mounted \(no |has no sched:' && printf '%s\n' "$meta" | grep -q "$FIX"
		then not_ok "$tree: the fixture's tracefs must pass the check" "META: $meta"
		else ok "$tree: the fixture's tracefs passes; this machine's tracefs refused ($meta)"; fi
	fi
}

D='[^"]*/sysfs'
check_tree none "tracefs is not mounted \\(no $D/none/sys/kernel/tracing/events; mount -t tracefs nodev /sys/kernel/tracing\\)"
check_tree tracefs-nosched "the kernel has no sched:sched_switch event \\(no $D/tracefs-nosched/sys/kernel/tracing/events/sched/sched_switch/format\\)"
check_tree tracefs ""

# --sched asks for the events: without them it is an error, with the same reason (root only: as
# another user --sched is refused before any tracefs is looked at, t1300)
if [ "$(id -u)" -ne 0 ]; then
	skip "--sched with tracefs absent: an error with the reason" "not root"
else
	run_capture env PMT_SYSFS_ROOT="$FIX/none" "$PMCOLLECT" --sched -o "$T/sched.pmt" -- true
	expect_status "--sched with tracefs absent: exit 1" 1
	expect_err_line "--sched with tracefs absent: the error gives the reason" \
		"^pmcollect: error: cannot record scheduler events \\(--sched\\): tracefs is not mounted \\(no $D/none/sys/kernel/tracing/events; "
fi

done_testing
