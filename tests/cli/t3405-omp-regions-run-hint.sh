#!/bin/sh
# SPDX-License-Identifier: MIT
# A trace of several runs made for a per-region study (pmcollect --omp-regions -t 1-2): run 0 ran
# one thread, and pmanalyze said only "the program ran one thread at a time: nothing to predict"
# (exit 3). Run 0's answer (S = 1 at every n, exit 0) now comes with a note that names the run
# that had threads and the option that analyzes it (issue 29, item 8), and that option works.
. "$(dirname "$0")/lib.sh"

run_capture "$PMCOLLECT" -q --omp-regions -t 1-2 -o "$T/t.zst" -- "$W/omp_loop" -r 3
expect_status "pmcollect --omp-regions -t 1-2 -- omp_loop (exit 0)" 0
run_capture "$PMANALYZE" -q "$T/t.zst"
expect_status "pmanalyze of the 1-2 thread trace: run 0's answer (exit 0)" 0
check "the note serial names run 1 and --run 1" grep -qx \
	"note: the program ran one thread at a time: more cores do not help (A(m,inf) = 1, so S(m,n) = 1 and T(n) = T(1) at every n: the optimum is 1 core); run 1 of the trace ran 2 threads: analyze it with --run 1" "$T/out"
run_capture "$PMANALYZE" -q --run 1 "$T/t.zst"
if [ "$rc" -eq 0 ] && grep -q "^A(m,inf) " "$T/out"; then ok "--run 1 as suggested: a report (exit 0)"
else not_ok "--run 1 as suggested: a report (exit 0)" "$(diag)"; fi

done_testing
