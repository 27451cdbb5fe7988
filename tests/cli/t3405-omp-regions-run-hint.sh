#!/bin/sh
# SPDX-License-Identifier: MIT
# A trace of several runs made for a per-region study (pmcollect --omp-regions -t 1-2): run 0 ran
# one thread, and pmanalyze said only "the program ran one thread at a time: nothing to predict"
# (exit 3). The error now names the run that had threads and the option that analyzes it
# (issue 29, item 8), and that option works.
. "$(dirname "$0")/lib.sh"

run_capture "$PMCOLLECT" -q --omp-regions -t 1-2 -o "$T/t.zst" -- "$W/omp_loop" -r 3
expect_status "pmcollect --omp-regions -t 1-2 -- omp_loop (exit 0)" 0
run_capture "$PMANALYZE" -q "$T/t.zst"
expect_status "pmanalyze of the 1-2 thread trace: exit 3 (nothing to predict in run 0)" 3
expect_err_line "the error names run 1 and --run 1" \
	"^pmanalyze: error: '$T/t.zst': the program ran one thread at a time: nothing to predict \(A\(m,inf\) = 1\) in run 0; run 1 of the trace ran 2 threads: analyze it with --run 1$"
run_capture "$PMANALYZE" -q --run 1 "$T/t.zst"
if [ "$rc" -eq 0 ] && grep -q "^A(m,inf) " "$T/out"; then ok "--run 1 as suggested: a report (exit 0)"
else not_ok "--run 1 as suggested: a report (exit 0)" "$(diag)"; fi

done_testing
