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
# The tests whose accuracy checks need the program to have its CPU (a "machine busy" skip below
# 0.90 of it): when the builds run at once, these run after, one build at a time, so that the
# other build's suite does not turn them into skips on a quiet machine.
quiet_tests="t1400-energy t3000-ground-truth t3050-perf-switch t3100-openmp t3300-sched t3410-omp-regions-trace t3430-phases t3600-interfere"
is_quiet() { case " $quiet_tests " in *" ${1%.sh} "*) return 0 ;; esac; return 1; }
run_one() { # $1 label, $2.. command; counts TAP lines of its output
	label=$1; shift
	# PMT_ONLY=PATTERN (a shell glob on the label, e.g. '*t3000*') runs only the matching tests
	case "$label" in ${PMT_ONLY:-*}) ;; *) return 0 ;; esac
	# PMT_PHASE (set by the parent below): "parallel" leaves out the quiet tests, "serial" runs
	# only them
	case "${PMT_PHASE:-}" in
	parallel) is_quiet "${label##*/}" && return 0 ;;
	serial) is_quiet "${label##*/}" || return 0 ;;
	esac
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
# most of the time, so two at once on 2 CPUs nearly halve the suite's wall time. The first build's
# lines are printed as they come, the others' when they end; then the quiet tests of each build,
# one build at a time; counts and skips are summed here.
if [ $# -gt 1 ] && [ "${PMT_JOBS:-2}" != 1 ] && [ -z "${PMT_CHILD:-}" ]; then
	work=$(mktemp -d)
	i=0
	for b in "$@"; do
		i=$((i + 1))
		if [ "$i" -eq 1 ]; then
			PMT_PHASE=parallel PMT_CHILD="$work/p$i" sh "$0" "$b" &
		else
			PMT_PHASE=parallel PMT_CHILD="$work/p$i" sh "$0" "$b" >"$work/p$i.out" 2>&1 &
		fi
	done
	wait
	i=0
	for b in "$@"; do
		i=$((i + 1))
		[ "$i" -eq 1 ] || cat "$work/p$i.out"
	done
	i=0
	for b in "$@"; do
		i=$((i + 1))
		PMT_PHASE=serial PMT_CHILD="$work/s$i" sh "$0" "$b"
	done
	skiplist="$work/skips"; : >"$skiplist"
	i=0
	for b in "$@"; do
		i=$((i + 1))
		for c in "$work/p$i" "$work/s$i"; do
			if [ -f "$c.counts" ]; then
				read -r p f s t <"$c.counts"
				passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
				cat "$c.skips" >>"$skiplist"
			else
				echo "FAIL $b: a test run ended without counts ($c)"; failed=$((failed + 1))
			fi
		done
		[ -f "$work/p$i.counts" ] && read -r p f s t <"$work/p$i.counts" &&
			tables="$tables $t $(basename "$(dirname "$t")")" && { [ -n "$first" ] || first=$(dirname "$t"); }
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
	# the serial phase adds to what the parallel phase of this build left
	if [ "${PMT_PHASE:-}" != serial ]; then
		rm -rf "$PMT_TMP" "$PMT_FAULTS_TSV"; mkdir -p "$PMT_TMP"; : >"$PMT_FAULTS_TSV"
	fi
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
