#!/bin/sh
# SPDX-License-Identifier: MIT
# CPU expressions (common/cpuexpr.c, docs/cpu-expressions.md) in pmcollect's --cpus, --runs and
# --interfere-cpus on
# this machine's topology: the expression selects the CPUs the run is recorded on; a CPU
# selected twice or an unknown domain is one error line and exit 2 (plain lists keep their own
# parser: t1000, t1050).
. "$PMT_TOP/tests/cli/lib.sh"

run_capture "$PMCOLLECT" -q --cpus N:0 -o "$T/n0.zst" -- "$W/phases" -t 2 -w 5 -r 1 mixed
expect_status "--cpus N:0 records (exit 0)" 0
run_capture "$PMANALYZE" --info "$T/n0.zst"
if grep -q '^  run 0: CPUs 0,' "$T/out"; then ok "N:0 is CPU 0 (logical index 0 of the node)"
else not_ok "N:0 is CPU 0" "$(grep 'run 0' "$T/out")"; fi

run_capture "$PMCOLLECT" -q --cpus 'S0:0@0' -- true
expect_status "a CPU selected twice is a usage error (exit 2)" 2
expect_err_line "one line naming both selections" "^pmcollect: error: invalid CPU list 'S0:0@0': CPU [0-9]+ is selected twice, by 'S0:0' and by '0'$"
run_capture "$PMCOLLECT" -q --cpus 'S9:0' -- true
expect_status "an unknown socket is a usage error (exit 2)" 2
expect_err_line "one line naming the socket" "^pmcollect: error: invalid CPU list 'S9:0': .*'S9'"

# --interfere-cpus takes expressions too: N:0 is CPU 0, so it overlaps --cpus 0
run_capture "$PMCOLLECT" -q --cpus 0 --interfere-cpus N:0 --interfere bandwidth -- true
expect_status "--interfere-cpus N:0 beside --cpus 0: usage error (exit 2)" 2
expect_err_line "--interfere-cpus N:0 evaluated to CPU 0: the overlap is named" "^pmcollect: error: --interfere-cpus N:0 overlaps --cpus 0: "
run_capture "$PMCOLLECT" -q --interfere-cpus 'S9:0' --interfere bandwidth -- true
expect_status "--interfere-cpus with an unknown socket: usage error (exit 2)" 2
expect_err_line "--interfere-cpus S9:0: one line naming the socket" "^pmcollect: error: invalid CPU list 'S9:0': .*'S9'"

if [ "$(nproc)" -ge 2 ]; then
	run_capture "$PMCOLLECT" -q --runs 'N:0 E:N:2' -o "$T/runs.zst" -- "$W/phases" -t 2 -w 5 -r 1 mixed
	expect_status "--runs with expressions records (exit 0)" 0
	run_capture "$PMANALYZE" --info "$T/runs.zst"
	if grep -q '^  run 0: CPUs 0,' "$T/out" && grep -q '^  run 1: CPUs 0-1,' "$T/out"; then
		ok "--runs 'N:0 E:N:2' gives the runs CPUs 0 and 0-1"
	else not_ok "--runs expressions" "$(grep '  run ' "$T/out")"; fi
	# the program is given the set: the trace records it sorted (docs/cpu-expressions.md)
	run_capture "$PMCOLLECT" -q --cpus 'N:1@N:0' -o "$T/rev.zst" -- "$W/phases" -t 2 -w 5 -r 1 mixed
	expect_status "--cpus 'N:1@N:0' records (exit 0)" 0
	"$PMANALYZE" --dump "$T/rev.zst" 2>/dev/null | head -n 1 >"$T/meta.json"
	if [ "$(json_get "$T/meta.json" cpus '' 2>/dev/null)" = "0-1" ]; then ok "N:1@N:0 is recorded in META as the set 0-1"
	else not_ok "N:1@N:0 recorded as 0-1" "$(grep -o '"cpus":"[^"]*"' "$T/meta.json" | head -3)"; fi
else
	tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP --runs with two CPUs: one CPU online"
fi
done_testing
