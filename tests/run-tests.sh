#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs every test (cmocka unit tests in TAP mode, then tests/cli/t*.sh) against each build directory
# given (e.g. build and build-address-undefined) and ends with the line "N passed, N failed".
# A test program that crashes, exits non-zero or prints no TAP result counts as one failure.
# A TAP "ok N - ... # SKIP reason" counts as skipped, never as passed; the skips are listed.
#
# How they run: PMT_JOBS tests at once (default: two per build directory given, at most 4), taken
# from one queue of every build's tests, longest first (long_tests below), so that the two builds
# of make check end together rather than one waiting for the other. With one build directory (check-fast, check-accuracy, bench) the tests run
# one after the other, as the strict accuracy figures need. The checks of the source tree alone
# (source_tests) run with the first build only. Each test appends its docs/faults.md rows to a file of
# its own, joined in test order at the end, so the table does not depend on the order they ran in.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The tests whose sampled-accuracy checks need the program to have its CPU (below 0.90 of it they
# are "machine busy" skips that name make check-accuracy, which runs one test at a time on a quiet
# machine and asserts them): in make check they take their turn in the queue like the others (run
# alone afterwards, they added 8 minutes to a CI run beside stress-ng, where they skip anyway).
# The longest tests (seconds in a CI run at load 10-20): queued first, so that the last ones to
# start are short.
long_tests="t3000-ground-truth t3600-interfere t2700-invariants t3510-toep t3050-perf-switch t3100-openmp t3300-sched t3410-omp-regions-trace t2750-machines t3200-calibrate t1200-faults test_corrupt t2100-hostile-traces t3700-mpi t1100-collect-run t2600-plots-html t0910-analyzer-layers t2000-analyze-usage t3520-sweep t3500-learn t2630-suggested-commands"
# The checks of the source tree itself, which no build changes: run with the first build only.
source_tests="t0900-build-deps t0910-analyzer-layers"
in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# build_env DIR: the environment of the tests of one build directory
build_env() {
	b=$1
	case "$b" in *-address*) bindir="$b/bin";; *) bindir="$top/bin";; esac
	export PMT_BIN="$bindir" PMT_WORKLOADS="$b/workloads" PMT_TOP="$top" PMT_TMP="$b/test-tmp"
}

# run_one BUILD LABEL COMMAND...: runs one test, prints its PASS or FAIL line (one write), and
# adds its counts to the calling worker's
passed=0; failed=0; skipped=0
run_one() {
	b=$1; label=$2; shift 2
	build_env "$b"
	name=${label##*/}
	# docs/faults.md rows of this test (tests/faults-table.sh), joined per build at the end
	export PMT_FAULTS_TSV="$b/faults.d/${name%.sh}.tsv"
	log="$b/test-logs/$(echo "$label" | tr '/ ' '__').log"
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
		printf '%s\n' "$(printf 'FAIL %-44s %3d ok, %d failed (exit %d, %ds, load %s), log: %s\n' \
			"$label" "$ok" "$nok" "$rc" "$secs" "$load" "$log"
			grep '^not ok ' "$log" | head -20 | sed 's/^/     /'
			tail -5 "$log" | sed 's/^/     | /')"
	fi
}

# The queue: one line per test, "BUILD<TAB>LABEL<TAB>COMMAND", long tests first, then every build's
# tests in their order.
i=0; builds=""
: >"$work/all"
for arg in "$@"; do
	b=$(cd "$top" && cd "$arg" && pwd) || { echo "FAIL $arg: no such build directory"; echo "x" >>"$work/missing"; continue; }
	builds="$builds $b"; [ -n "${first_build:-}" ] || first_build=$b
	rm -rf "$b/test-tmp" "$b/faults.d" "$b/faults.tsv"; mkdir -p "$b/test-tmp" "$b/faults.d" "$b/test-logs"
	tag=$(basename "$b")
	for t in "$b"/tests/test_*; do
		[ -x "$t" ] && printf '%s\t%s\t%s\n' "$b" "$tag/$(basename "$t")" "$t" >>"$work/all"
	done
	for t in "$top"/tests/cli/t*.sh; do
		[ -f "$t" ] && printf '%s\t%s\tsh %s\n' "$b" "$tag/$(basename "$t")" "$t" >>"$work/all"
	done
done
# PMT_ONLY=PATTERN (a shell glob on the label, e.g. '*t3000*') runs only the matching tests
: >"$work/queue"; : >"$work/rest"
while IFS="$(printf '\t')" read -r b label cmd; do
	case "$label" in ${PMT_ONLY:-*}) ;; *) continue ;; esac
	name=${label##*/}; name=${name%.sh}
	# the checks of the source tree alone (layers, paths, function lengths): once, with the first
	# build given
	if in_list "$name" "$source_tests" && [ "$b" != "$first_build" ]; then continue; fi
	if in_list "$name" "$long_tests"; then echo "$b	$label	$cmd" >>"$work/queue"
	else echo "$b	$label	$cmd" >>"$work/rest"; fi
done <"$work/all"
# long tests in long_tests' order, the sanitizer build's first (it is the slower one)
: >"$work/q"
for n in $long_tests; do
	grep "/$n[.	]" "$work/queue" | sort -r >>"$work/q"
done
cat "$work/rest" >>"$work/q"

# worker K FILE: takes the tests of FILE in order, each one that no other worker has claimed yet
# (mkdir is atomic), and writes its counts and skips
worker() {
	k=$1; file=$2
	skiplist="$work/w$k.skips"; : >"$skiplist"
	passed=0; failed=0; skipped=0; n=0
	while IFS="$(printf '\t')" read -r b label cmd; do
		n=$((n + 1))
		mkdir "$work/claim-$(basename "$file")-$n" 2>/dev/null || continue
		# shellcheck disable=SC2086
		run_one "$b" "$label" $cmd </dev/null
	done <"$file"
	echo "$passed $failed $skipped" >"$work/w$k.counts"
}
nb=$(echo $builds | wc -w)
# two at a time per build directory given, at most 4: most tests wait on their programs (sleeps,
# timeouts, short runs) more than they compute, and on a shared host (other jobs at load 10) the
# suite's share of the CPUs grows with the tests it runs at once; one build directory runs one
# test at a time (check-accuracy, bench: the strict figures need the machine)
if [ "$nb" -gt 1 ]; then jobs=${PMT_JOBS:-$((2 * nb))}; else jobs=${PMT_JOBS:-1}; fi
[ "$jobs" -gt 4 ] && jobs=4; [ "$jobs" -lt 1 ] && jobs=1
k=0
while [ "$k" -lt "$jobs" ]; do
	k=$((k + 1))
	worker "q$k" "$work/q" &
done
wait

# counts and skips of every worker
passed=0; failed=0; skipped=0
[ -f "$work/missing" ] && failed=$(wc -l <"$work/missing")
: >"$work/skips"
for c in "$work"/w*.counts; do
	[ -f "$c" ] || continue
	read -r p f s <"$c"
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	cat "${c%.counts}.skips" >>"$work/skips"
done
# one docs/faults.md-style report of every build, in the first build directory; each build's rows
# in the order of its tests
tables=""; first=""
for b in $builds; do
	for t in "$b"/tests/test_* "$top"/tests/cli/t*.sh; do
		n=$(basename "$t"); n=${n%.sh}
		[ -f "$b/faults.d/$n.tsv" ] && cat "$b/faults.d/$n.tsv"
	done >"$b/faults.tsv"
	tables="$tables $b/faults.tsv $(basename "$b")"
	[ -n "$first" ] || first=$b
done
if [ -n "$first" ]; then
	# shellcheck disable=SC2086
	sh "$top/tests/faults-table.sh" $tables >"$first/faults.md"
	echo "faults table: $first/faults.md"
fi
if [ "$skipped" -gt 0 ]; then
	echo "$skipped skipped (not counted as passed):"
	sort "$work/skips" | sed 's/^/  /'
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
