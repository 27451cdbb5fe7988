#!/bin/sh
# SPDX-License-Identifier: MIT
# A program that ran one thread at a time is an answer, not an error: A(m,inf) = 1.00 with no ±,
# omega(1) = 0 at every n (no calibration needed), S = 1.00 and T(n) = T(1) at every n, the
# optimum 1 core, and the note serial ("more cores do not help"), exit 0. gzip is single-threaded
# by construction (Debian's gzip is essential: always installed); the trace's own records say the
# run had one thread (m = 1). The OpenMP hint ('pmcollect -t M') only where the run loaded an
# OpenMP runtime: omp_loop on one CPU without OMP_NUM_THREADS, recorded with --omp-regions
# (libgomp then starts one thread, and RUN_END omp_regions names the runtime it loaded).
. "$PMT_TOP/tests/cli/lib.sh"

SERIAL="note: the program ran one thread at a time: more cores do not help (A(m,inf) = 1, so S(m,n) = 1 and T(n) = T(1) at every n: the optimum is 1 core)"
OMP_HINT="; it loaded an OpenMP runtime and ran on 1 CPU without OMP_NUM_THREADS, and the runtime then starts one thread: give the thread count with 'pmcollect -t M' (or the program's own option)"

if ! command -v gzip >/dev/null 2>&1; then
	skip "gzip: a serial program's answer" "gzip is not installed"
else
	# 4 MB of text: a fraction of a second of gzip's CPU time
	seq 1 600000 >"$T/big.txt"
	run_capture "$PMCOLLECT" -q -o "$T/gz.zst" -- gzip -c "$T/big.txt"
	expect_status "pmcollect -- gzip -c (exit 0)" 0
	"$PMANALYZE" --info "$T/gz.zst" >"$T/info" 2>/dev/null
	check "the trace: run 0 had one thread (peak 1, 1 seen)" grep -q "^  run 0: .* peak 1 threads, 1 threads seen, exit exited 0$" "$T/info"
	run_capture "$PMANALYZE" -q --cores 1-4 "$T/gz.zst"
	expect_status "pmanalyze --cores 1-4 of gzip: an answer (exit 0), not an error" 0
	check "A(m,inf) 1.00 ± 0.00" grep -q "^A(m,inf)     1.00 ± 0.00 threads " "$T/out"
	check "the note serial, without the OpenMP hint (gzip loads no OpenMP runtime)" grep -qx "$SERIAL" "$T/out"
	check "the optimal line: 1 core, S = 1.00, the largest" grep -qx \
		"optimal      1 core (S = 1.00, the largest); 95% of it from 1 core; S increases over no interval" "$T/out"
	check "no 'pmcollect -t' hint, no omega-unknown note" sh -c '! grep -q "pmcollect -t\|^note: omega unknown" "$1"' sh "$T/out"
	"$PMANALYZE" -q --cores 1-4 --format json "$T/gz.zst" >"$T/gz.json" 2>/dev/null
	check "JSON: m 1, A_inf 1, A_err 0, S 1 and T(n) = T(1) at n = 1-4, omega 0 where on the machine, optimum 1" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["parallelism"]
assert p["m"] == 1 and p["A_inf"] == 1 and p["A_inf_err"] == 0, p
rows = d["predictions"]
assert [q["cores"] for q in rows] == [1, 2, 3, 4], rows
assert all(q["S"] == 1 and q["S_err"] == 0 and q["T_s"] == rows[0]["T_s"] for q in rows), rows
assert all(q["omega"] == 0 for q in rows if q["on_target"] == "cores"), rows
assert d["optimal_cores"] == 1, d["optimal_cores"]
assert [n["code"] for n in d["coded_notes"]].count("serial") == 1, d["coded_notes"]' "$T/gz.json"
fi

# the recorded fixture (tests/fixtures/README.md): the exact rows
run_capture "$PMANALYZE" -q --cores 1-4 "$PMT_TOP/tests/fixtures/traces/serial-gzip.zst"
expect_status "pmanalyze --cores 1-4 of the serial-gzip fixture: exit 0" 0
check "fixture: A(m,inf), T_cp and the rows n = 1-4, exact" python3 -c '
import sys
want = """A(m,inf)     1.00 ± 0.00 threads  (estimator sched-exact; runnable gives 1.00; paper gives 1.00)
T_cp         0.543 s
memory       C(n) from none; model none (one thread at a time: omega(1) = 0, no calibration needed)
       1     1.00    0.00     0%     1.00     0.00      0.543    0.00  {1}  <- optimal (eq. 11)
       2     1.00    0.00     0%     1.00     0.00      0.543    0.00  {1}  = S(m): m threads, the other cores idle
     3-4     1.00       ?      ?     1.00     0.00      0.543    0.00  -  = S(m): m threads, the other cores idle
optimal      1 core (S = 1.00, the largest); 95% of it from 1 core; S increases over no interval""".splitlines()
lines = open(sys.argv[1]).read().splitlines()
missing = [w for w in want if w not in lines]
assert not missing, missing' "$T/out"
check "fixture: the note serial" grep -qx "$SERIAL" "$T/out"

# an OpenMP program on one CPU without OMP_NUM_THREADS: libgomp starts one thread; the hint
run_capture "$PMCOLLECT" -q --cpus 0 --omp-regions -o "$T/omp1.zst" -- "$W/omp_loop" -r 1
expect_status "pmcollect --cpus 0 --omp-regions -- omp_loop (exit 0)" 0
run_capture "$PMANALYZE" -q "$T/omp1.zst"
expect_status "pmanalyze of the one-thread OpenMP run: exit 0" 0
check "the note serial with the OpenMP hint" grep -qx "$SERIAL$OMP_HINT" "$T/out"
done_testing
