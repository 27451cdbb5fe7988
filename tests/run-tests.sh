#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs every test (cmocka unit tests in TAP mode, then tests/cli/t*.sh) against each build directory
# given (e.g. build and build-address-undefined) and ends with the line "N passed, N failed".
# A test program that crashes, exits non-zero or prints no TAP result counts as one failure.
# A TAP "ok N - ... # SKIP reason" counts as skipped, never as passed; the skips are listed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
passed=0; failed=0; skipped=0; tables=""; first=""
export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
run_one() { # $1 label, $2.. command; counts TAP lines of its output
	label=$1; shift
	# PMT_ONLY=PATTERN (a shell glob on the label, e.g. '*t3000*') runs only the matching tests
	case "$label" in ${PMT_ONLY:-*}) ;; *) return 0 ;; esac
	log="$logdir/$(echo "$label" | tr '/ ' '__').log"
	t0=$(date +%s)
	"$@" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	# the machine's load beside each result: a slow or failed test on a busy machine shows it
	load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)
	skip=$(grep -c '^ok .*# *SKIP' "$log")
	ok=$(($(grep -c '^ok ' "$log") - skip))
	nok=$(grep -c '^not ok ' "$log")
	if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then nok=1; fi
	if [ "$ok" -eq 0 ] && [ "$nok" -eq 0 ] && [ "$skip" -eq 0 ]; then nok=1; fi
	passed=$((passed + ok)); failed=$((failed + nok)); skipped=$((skipped + skip))
	if [ "$skip" -gt 0 ]; then
		grep '^ok .*# *SKIP' "$log" | sed "s|^|$label: |" >>"$skiplist"
	fi
	if [ "$nok" -eq 0 ]; then
		printf 'PASS %-44s %3d ok%s (%ds, load %s)\n' "$label" "$ok" \
			"$([ "$skip" -gt 0 ] && echo ", $skip skipped")" "$secs" "$load"
	else
		printf 'FAIL %-44s %3d ok, %d failed (exit %d, %ds, load %s), log: %s\n' "$label" "$ok" \
			"$nok" "$rc" "$secs" "$load" "$log"
		grep '^not ok ' "$log" | head -20 | sed 's/^/     /'
		tail -5 "$log" | sed 's/^/     | /'
	fi
}
# Several build directories run at once, one child per build (PMT_JOBS=1: one after the other):
# the normal and the sanitizer build take about as long each, and the tests are single-threaded
# most of the time, so two at once on 2 CPUs halve the suite's wall time. The first build's lines
# are printed as they come, the others' when they end; counts and skips are summed here.
if [ $# -gt 1 ] && [ "${PMT_JOBS:-2}" != 1 ] && [ -z "${PMT_CHILD:-}" ]; then
	work=$(mktemp -d)
	i=0
	for b in "$@"; do
		i=$((i + 1))
		if [ "$i" -eq 1 ]; then
			PMT_CHILD="$work/$i" sh "$0" "$b" &
		else
			PMT_CHILD="$work/$i" sh "$0" "$b" >"$work/$i.out" 2>&1 &
		fi
	done
	wait
	skiplist="$work/skips"; : >"$skiplist"
	i=0
	for b in "$@"; do
		i=$((i + 1))
		[ "$i" -eq 1 ] || cat "$work/$i.out"
		if [ -f "$work/$i.counts" ]; then
			read -r p f s t <"$work/$i.counts"
			passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
			tables="$tables $t $(basename "$(dirname "$t")")"
			[ -n "$first" ] || first=$(dirname "$t")
			cat "$work/$i.skips" >>"$skiplist"
		else
			echo "FAIL $b: its test run ended without counts"; failed=$((failed + 1))
		fi
	done
else
skiplist=$(mktemp)
for b in "$@"; do
	b=$(cd "$top" && cd "$b" && pwd) || { failed=$((failed + 1)); continue; }
	logdir="$b/test-logs"; mkdir -p "$logdir"
	case "$b" in *-address*) bindir="$b/bin";; *) bindir="$top/bin";; esac
	export PMT_BIN="$bindir" PMT_WORKLOADS="$b/workloads" PMT_TOP="$top" PMT_TMP="$b/test-tmp"
	# fault and bad-input rows of this build, rendered as $b/faults.md (docs/faults.md)
	export PMT_FAULTS_TSV="$b/faults.tsv"
	rm -rf "$PMT_TMP" "$PMT_FAULTS_TSV"; mkdir -p "$PMT_TMP"; : >"$PMT_FAULTS_TSV"
	tag=$(basename "$b")
	for t in "$b"/tests/test_*; do
		[ -x "$t" ] || continue
		run_one "$tag/$(basename "$t")" "$t"
	done
	for t in "$top"/tests/cli/t*.sh; do
		[ -f "$t" ] || continue
		run_one "$tag/$(basename "$t")" sh "$t"
	done
	tables="$tables $PMT_FAULTS_TSV $tag"
	[ -n "$first" ] || first=$b
done
fi
# a child reports its counts and skips to the parent, which prints the summary
if [ -n "${PMT_CHILD:-}" ]; then
	echo "$passed $failed $skipped $PMT_FAULTS_TSV" >"$PMT_CHILD.counts"
	cp "$skiplist" "$PMT_CHILD.skips"
	rm -f "$skiplist"
	exit 0
fi
# one docs/faults.md-style report of every build, in the first build directory
if [ -n "$first" ]; then
	# shellcheck disable=SC2086
	sh "$top/tests/faults-table.sh" $tables >"$first/faults.md"
	echo "faults table: $first/faults.md"
fi
if [ "$skipped" -gt 0 ]; then
	echo "$skipped skipped (not counted as passed):"
	sed 's/^/  /' "$skiplist"
fi
rm -f "$skiplist"
[ -z "${work:-}" ] || rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
