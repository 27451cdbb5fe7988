#!/bin/sh
# SPDX-License-Identifier: MIT
# switch-exact on real programs, none written for this project: each is recorded once as root
# with both the scheduler events (--sched) and perf's context switches (--perf-switch), and
# switch-exact's A(m,inf) and T_cp must agree with sched-exact's on that same recording within
# 2%, or its ± must reach sched-exact's A within sched-exact's own resolution: its lost events
# and the switches it inferred where the kernel recorded none (a note gives the share of the
# work resting on bounded wakes and both ends). Under the sanitizers the ± is widened by
# PMT_SANITY_TOL of sched-exact's A (checks.py switch_corpus: a sanitizer build beside stress-ng
# read pigz at 3.20 ± 0.94 against 4.16). Both numbers come from one recording: no timing, any load. Two of
# the programs are also recorded as user nobody: the context switches are what any user gets.
. "$PMT_TOP/tests/cli/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	skip "switch-exact corpus" "needs root: the scheduler events (tracefs) give the reference"
	done_testing; exit $?
fi
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 9)
D="$T/corpus"; mkdir -p "$D"; chmod 777 "$D"
head -c 3000000 /dev/urandom | base64 >"$D/text.txt"
seq 1 300000 | awk '{ print ($1 * 7919) % 300007, $1 }' >"$D/lines.txt"

# corpus NAME CPUS-OPTION CMD...: records CMD with both sources and compares the estimators
corpus() {
	name=$1; cpus=$2; shift 2
	# a short program on a busy machine can end before the collector's first sampling interval
	# closes ('no samples to analyze'), or with too few samples for pmanalyze: record it again,
	# up to three times; the errors of every attempt are kept, and three failures fail (or skip,
	# when each had no sampling interval)
	: >"$D/sw.errs"
	for attempt in 1 2 3; do
		rm -f "$D/r.zst"
		run_capture "$PMCOLLECT" -q -f $cpus --sched --perf-switch -o "$D/r.zst" -- "$@"
		if [ "$rc" -ne 0 ]; then not_ok "$name: recorded" "$(diag)"; return; fi
		"$PMANALYZE" -q --format json -E switch-exact "$D/r.zst" >"$D/sw.json" 2>"$D/sw.err" && break
		{ printf 'attempt %s: ' "$attempt"; cat "$D/sw.err"; } >>"$D/sw.errs"
		cp "$D/r.zst" "$D/failed-$attempt.zst"
	done
	[ -s "$D/sw.errs" ] && sed 's/^/# retried: /' "$D/sw.errs"
	if [ ! -s "$D/sw.json" ]; then
		if [ "$(grep -c "no samples to analyze" "$D/sw.errs")" -ge 3 ]; then
			skip "$name" "machine busy: no sampling interval closed in 3 recordings"
		else
			not_ok "$name: pmanalyze -E switch-exact" "$(cat "$D/sw.errs")"
		fi
		return
	fi
	"$PMANALYZE" -q --format json -E runnable "$D/r.zst" >"$D/run.json" 2>"$D/run.err"
	"$PMANALYZE" -q -E switch-exact "$D/r.zst" >"$D/sw.txt" 2>/dev/null
	# under the sanitizers a sanity bound of PMT_SANITY_TOL too (checks.py switch_corpus)
	if PMT_SANITIZED=$PMT_SANITIZED PMT_SANITY_TOL=$PMT_SANITY_TOL \
		python3 "$PMT_TOP/tests/cli/checks.py" switch_corpus "$name" "$D/sw.json" "$D/run.json" \
		"$D/sw.txt" >"$D/row" 2>"$D/row.err"; then
		ok "$name: switch-exact agrees with sched-exact within 2% or its bounds hold it"
	else
		not_ok "$name: switch-exact agrees with sched-exact within 2% or its bounds hold it" \
			"$(cat "$D/row" "$D/row.err" "$D/sw.err" "$D/run.err")"
	fi
	sed 's/^/# /' "$D/row"
}

if [ "$paranoid" -gt 2 ]; then
	skip "switch-exact corpus" "kernel.perf_event_paranoid is $paranoid here: no context switches for users"
	done_testing; exit $?
fi
echo "# | program | sched-exact A ± resolution | T_cp s | switch-exact A (bounds) | T_cp s | runnable A | wakes bounded | agree |"
if r=$(need pigz pigz); then corpus "pigz -p 8" "--cpus 0" sh -c "pigz -p 8 -c '$D/text.txt' >/dev/null"
else skip "pigz" "$r"; fi
if r=$(need xz xz-utils); then corpus "xz -T4" "--cpus 0" sh -c "head -c 1000000 '$D/text.txt' | xz -T4 -1 --block-size=256KiB >/dev/null"
else skip "xz" "$r"; fi
if r=$(need zstd zstd); then corpus "zstd -T4" "--cpus 0" sh -c "zstd -q -T4 -3 --format=zstd -c '$D/text.txt' >/dev/null"
else skip "zstd" "$r"; fi
# sort takes its thread count from the CPUs it may use: all of them
if r=$(need sort coreutils); then corpus "sort --parallel=4" "" sh -c "sort --parallel=4 -S 8M -n '$D/lines.txt' >/dev/null"
else skip "sort" "$r"; fi
if r=$(need make make) && r=$(need cc gcc); then
	mkdir -p "$D/proj"
	for i in 1 2 3 4 5 6 7 8; do
		printf 'int f%s(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * %s; return s; }\n' "$i" "$i" >"$D/proj/f$i.c"
	done
	printf 'OBJ = f1.o f2.o f3.o f4.o f5.o f6.o f7.o f8.o\nlib.a: $(OBJ)\n\tar rc $@ $(OBJ)\n%%.o: %%.c\n\t$(CC) -O2 -c $< -o $@\n' >"$D/proj/Makefile"
	corpus "make -j4" "--cpus 0" make -s -C "$D/proj" -j4
else skip "make" "$r"; fi
if r=$(need python3 python3); then
	corpus "python ThreadPoolExecutor zlib" "--cpus 0" python3 -c '
import zlib, os
from concurrent.futures import ThreadPoolExecutor
bufs = [os.urandom(1 << 18) * 4 for _ in range(6)]
with ThreadPoolExecutor(4) as ex:
    list(ex.map(lambda b: len(zlib.compress(b, 6)), bufs))'
else skip "python" "$r"; fi
if r=$(need gcc gcc); then
	cat >"$D/tasks.c" <<'EOC'
#include <stdio.h>
static long fib(int n) { long a, b; if (n < 20) return n < 2 ? n : fib(n - 1) + fib(n - 2);
#pragma omp task shared(a)
	a = fib(n - 1);
#pragma omp task shared(b)
	b = fib(n - 2);
#pragma omp taskwait
	return a + b; }
int main(void) { long r;
#pragma omp parallel
#pragma omp single
	r = fib(32);
	printf("%ld\n", r); return 0; }
EOC
	if gcc -O2 -fopenmp -o "$D/tasks" "$D/tasks.c" 2>"$T/err"; then
		corpus "OpenMP tasks (fib)" "--cpus 0" env OMP_NUM_THREADS=4 OMP_WAIT_POLICY=passive "$D/tasks"
	else skip "OpenMP tasks" "gcc -fopenmp failed: $(head -c 200 "$T/err")"; fi
else skip "OpenMP tasks" "$r"; fi
# a producer-consumer chain over condition variables
corpus "pipeline over condvars" "--cpus 0" "$W/pipeline" -t 4 -w 5 -n 20

# as nobody: the same perf events open, and switch-exact runs on what they give
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	nuid=$(id -u nobody); ngid=$(id -g nobody)
	for prog in "pigz -p 8" "zstd -T4 -q"; do
		command -v "${prog%% *}" >/dev/null 2>&1 || { skip "$prog as nobody" "not installed"; continue; }
		rm -f "$D/n.zst"
		run_capture setpriv --reuid="$nuid" --regid="$ngid" --clear-groups "$PMCOLLECT" -q --cpus 0 \
			-o "$D/n.zst" -- sh -c "$prog -c '$D/text.txt' >/dev/null"
		ps=$("$PMANALYZE" --dump "$D/n.zst" 2>/dev/null | grep -o '"perf_switch":{[^}]*}' | head -1)
		if [ "$rc" -eq 0 ] && [ "$ps" = '"perf_switch":{"recorded":true}' ] &&
		   "$PMANALYZE" -q "$D/n.zst" 2>/dev/null | grep -q "^A(m,inf) .*(estimator switch-exact"; then
			ok "$prog as nobody: context switches recorded, switch-exact used"
			"$PMANALYZE" -q "$D/n.zst" 2>/dev/null | grep "^A(m,inf)\|^switches" | sed 's/^/# /'
		else
			not_ok "$prog as nobody: context switches recorded, switch-exact used" "$(diag)" "META $ps"
		fi
	done
else
	skip "as nobody" "no 'nobody' user or no setpriv"
fi
done_testing
