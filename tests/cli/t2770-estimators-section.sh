#!/bin/sh
# SPDX-License-Identifier: MIT
# The report's "estimators" section (analyzer/render/report_estimators.c): which estimators of
# A(m,inf) the run had the data for, what each reads, and which one the headline numbers use and
# why. Checked against what the traces hold, read back by --dump and --info: the sched trace has
# 2258 SCHED records in run 0, none lost, so the exact mode is the default; the phases trace has
# none, its META says sched_events was not recorded and why, so the runnable estimator is; and
# --estimator paper is said to be asked for. The JSON's A(m,inf) are the parallelism section's.
. "$(dirname "$0")/lib.sh"

S="$PMT_TOP/sample-traces/pipeline-4t-cpu0-sched.zst"
P="$PMT_TOP/sample-traces/phases-mixed-8t-cpu0.zst"

# ground truth: the SCHED records of the sched trace, the META reason of the phases trace
nsched=$("$PMANALYZE" --dump "$S" 2>/dev/null | grep -c '"type":"sched"')
nsched_p=$("$PMANALYZE" --dump "$P" 2>/dev/null | grep -c '"type":"sched"\|"type":"pswitch"')
reason=$("$PMANALYZE" --info --format json "$P" | json_get /dev/stdin trace.sources.sched_events.reason "")
[ "$nsched" -gt 0 ] && [ "$nsched_p" -eq 0 ] && [ -n "$reason" ] ||
	not_ok "the traces hold what this test assumes" "SCHED records: $nsched and $nsched_p, reason '$reason'"

run_capture "$PMANALYZE" "$S"
expect_status "table of the sched trace (exit 0)" 0
if grep -qx "estimators   sched-exact used (the default with scheduler events: 0 of $nsched lost)" "$T/out" &&
   grep -q "^  sched-exact  *[0-9.]*  scheduler events (SCHED records)  <- used$" "$T/out"
then ok "sched trace: sched-exact used, by default, with its $nsched events"
else not_ok "sched trace: sched-exact used, by default, with its $nsched events" "$(sed -n '/^estimators/,/switch-exact/p' "$T/out")"; fi

run_capture "$PMANALYZE" "$P"
if grep -qx "estimators   runnable used (the default without scheduler events or perf context switches)" "$T/out" &&
   grep -qx "  sched-exact       -  scheduler events (SCHED records): sched_events not recorded: $reason" "$T/out" &&
   grep -q "^  runnable  *[0-9.]*  samples: running and run-queue wait (schedstat)  <- used$" "$T/out"
then ok "phases trace: runnable used, sched-exact missing with META's reason"
else not_ok "phases trace: runnable used, sched-exact missing with META's reason" "$(sed -n '/^estimators/,/switch-exact/p' "$T/out")"; fi

run_capture "$PMANALYZE" --estimator paper "$S"
if grep -qx "estimators   paper used (asked for by --estimator)" "$T/out" &&
   grep -q "^  paper  *[0-9.]*  samples: CPU time per interval (stat)  <- used$" "$T/out"
then ok "--estimator paper: said to be asked for"
else not_ok "--estimator paper: said to be asked for" "$(sed -n '/^estimators/,/switch-exact/p' "$T/out")"; fi

# JSON: every available estimator's A(m,inf) is the parallelism section's, the missing ones say why
"$PMANALYZE" --format json "$S" >"$T/s.json" 2>/dev/null
"$PMANALYZE" --format json "$P" >"$T/p.json" 2>/dev/null
check "JSON: estimators.list against parallelism.estimates, used and missing" python3 - "$T/s.json" "$T/p.json" <<'PY'
import json, sys
for path, used in zip(sys.argv[1:], ["sched-exact", "runnable"]):
    d = json.load(open(path))
    e, est = d["estimators"], d["parallelism"]["estimates"]
    assert e["used"] == used == d["parallelism"]["estimator"], (path, e["used"])
    assert [x["name"] for x in e["list"]] == ["paper", "runnable", "sched-exact", "switch-exact"], e
    for x in e["list"]:
        assert x["available"] == (x["name"] in est), (path, x)
        if x["available"]:
            assert x["A_inf"] == est[x["name"]]["A_inf"], (path, x)
        else:
            assert x["missing"], (path, x)
PY

# HTML: the section, the used estimator's row marked
run_capture "$PMANALYZE" -q --html "$T/p.html" "$P"
if grep -q '^<section id="estimators">$' "$T/p.html" && grep -q '<tr class="best"><td>runnable</td>' "$T/p.html"
then ok "HTML: the estimators section, the used row marked"
else not_ok "HTML: the estimators section, the used row marked" "$(grep -A12 'id="estimators"' "$T/p.html" | head -c 1500)"; fi

done_testing
