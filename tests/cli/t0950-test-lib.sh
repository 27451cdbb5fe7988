#!/bin/sh
# SPDX-License-Identifier: MIT
# The helpers of tests/cli/lib.sh that decide what a check of an error line accepts (issue 33): a
# warning about the machine (late samples, stolen time) may come anywhere in stderr, at any load;
# a second error, a usage line or stray output may not. The helpers run on made-up stderr files.
. "$PMT_TOP/tests/cli/lib.sh"

re="^pmanalyze: error: cannot open '/nonexistent': No such file or directory$"
err="pmanalyze: error: cannot open '/nonexistent': No such file or directory"
late="pmanalyze: warning: late or lost samples: 40 of 233 samples were late"
# accepts FILE-LINES...: err_line_only must accept stderr made of these lines
accepts() { name=$1; shift; printf '%s\n' "$@" >"$T/e"; if err_line_only "$T/e" "$re"; then ok "accepts $name"; else not_ok "accepts $name" "$(cat "$T/e")"; fi; }
refuses() { name=$1; shift; printf '%s\n' "$@" >"$T/e"; if err_line_only "$T/e" "$re"; then not_ok "refuses $name" "$(cat "$T/e")"; else ok "refuses $name"; fi; }
accepts "the error line alone" "$err"
accepts "late-sample warnings before the error (t3200 #36 on a busy machine)" "$late" "$late" "$err"
accepts "a warning after the error" "$err" "pmcollect: warning: cannot keep a 5.00 ms interval"
refuses "no stderr" 
refuses "another error line" "$err" "pmanalyze: error: something else"
refuses "the error twice" "$err" "$err"
refuses "a usage line" "$err" "usage: pmanalyze [options] <trace>..."
refuses "stray output" "$err" "debug: x=1"
refuses "a different error" "pmanalyze: error: cannot open '/other': No such file or directory"

# expect_err_line and expect_status print the command, its exit status and its stderr on failure
(
	tap_n=0
	run_capture sh -c 'echo "pmanalyze: error: what went wrong" >&2; exit 3'
	expect_status "x" 0
	expect_err_line "y" "^never$"
) >"$T/diag.out"
if [ "$(grep -c "^#   command: sh -c echo \"pmanalyze: error: what went wrong\" >&2; exit 3$" "$T/diag.out")" -eq 2 ] &&
   [ "$(grep -c '^#   exit status: 3$' "$T/diag.out")" -eq 2 ] &&
   [ "$(grep -c '^#   stderr: pmanalyze: error: what went wrong$' "$T/diag.out")" -eq 2 ]
then ok "a failed expect_status or expect_err_line prints the command, its exit status and its stderr"
else not_ok "failed checks print the command, exit status and stderr" "$(cat "$T/diag.out")"; fi

done_testing
