#!/bin/sh
# SPDX-License-Identifier: MIT
# pmcollect --dry-run prints what --cpus selects (docs/cpu-expressions.md) without running
# anything: the expression's order and the sorted set the trace records, on this machine or on
# an hwloc XML topology (--topology). Expected values are likwid-pin 5.2.2's on hwloc's
# 16em64t-4s2c2t (tests/fixtures/likwid/likwid-pin.tsv). Then, where likwid-pin is installed (or
# can be), the same expressions with likwid-pin -p -c and with pmcollect --dry-run on this
# machine's own topology must agree.
. "$PMT_TOP/tests/cli/lib.sh"
topo="$PMT_TOP/tests/fixtures/likwid/16em64t-4s2c2t.xml"

# dry EXPR WANT_ORDER WANT_SET: --dry-run on 16em64t-4s2c2t prints exactly those two lines
dry() {
	run_capture "$PMCOLLECT" --dry-run --cpus "$1" --topology "$topo"
	if [ "$rc" -eq 0 ] && [ "$(cat "$T/out")" = "$(printf 'order: %s\nset: %s' "$2" "$3")" ] &&
	   [ ! -s "$T/err" ]; then ok "--dry-run --cpus '$1': order $2, set $3"
	else not_ok "--dry-run --cpus '$1'" "$(cat "$T/out")" "$(diag)"; fi
}
dry 'N:1@N:0' 4,0 0,4
dry M0 0,8,1,9,2,10,3,11,4,12,5,13,6,14,7,15 0-15
dry M:balanced:4 0,8,1,9 0-1,8-9
dry M0:0-3 0,1,2,3 0-3
dry E:M0:4:1:2 0,1,2,3 0-3
dry C1 1,9,5,13 1,5,9,13
dry '3,0-1' 3,0,1 0-1,3

run_capture "$PMCOLLECT" --dry-run --cpus 'S9' --topology "$topo"
expect_status "--dry-run of a socket the topology lacks: usage error (exit 2)" 2
expect_err_line "one line naming it" "^pmcollect: error: invalid CPU list 'S9': in 'S9': 'S9': the topology has S0-S3$"
run_capture "$PMCOLLECT" --dry-run --cpus N --topology "$T/missing.xml"
expect_status "--topology of a missing file: usage error (exit 2)" 2
expect_err_line "one line naming the file" "^pmcollect: error: --topology $T/missing.xml: not an hwloc XML topology"
run_capture "$PMCOLLECT" --topology "$topo" --cpus 0 -- true
expect_status "--topology without --dry-run: usage error (exit 2)" 2
expect_err_line "one line saying so" "^pmcollect: error: --topology needs --dry-run$"
run_capture "$PMCOLLECT" --dry-run --cpus 0 -- true
expect_status "--dry-run with a command: usage error (exit 2)" 2
if [ -e "$PWD/pmtrace.zst" ] && [ "$PWD/pmtrace.zst" -nt "$T/err" ]; then not_ok "--dry-run wrote no trace"
else ok "--dry-run wrote no trace"; fi
run_capture "$PMCOLLECT" --dry-run --cpus N:0
if [ "$rc" -eq 0 ] && grep -q '^order: [0-9][0-9]*$' "$T/out"; then ok "--dry-run on this machine: N:0 is one CPU"
else not_ok "--dry-run on this machine" "$(cat "$T/out")" "$(diag)"; fi

# likwid-pin on this machine: expressions every machine has, whole domains and counts of 1
why=$(need likwid-pin likwid) || { skip "likwid-pin on this machine" "$why"; done_testing; exit $?; }
differ=""; same=0
for e in N S0 D0 C0 M0 N:0 S0:0 C0:0 M0:0 L:N:0 L:S0:0 E:N:1 E:S0:1:1:1 N:scatter:1 S:scatter:1 \
	 C:scatter:1 M:scatter:1 S:balanced:1 C:balanced:1 M:balanced:1 N:scatter S:scatter C:scatter \
	 M:scatter M:balanced; do
	l=$(likwid-pin -p -c "$e" 2>/dev/null | head -n 1)
	p=$("$PMCOLLECT" --dry-run --cpus "$e" 2>&1 | sed -n 's/^order: //p')
	if [ -n "$l" ] && [ "$l" = "$p" ]; then same=$((same + 1)); else differ="$differ $e (likwid '$l', pmtools '$p')"; fi
done
if [ -z "$differ" ]; then ok "likwid-pin -p -c and pmcollect --dry-run agree on this machine ($same expressions)"
else not_ok "likwid-pin and pmcollect --dry-run differ on this machine" "$differ" "$(likwid-pin -p 2>&1 | head -20)"; fi
done_testing
