#!/bin/sh
# SPDX-License-Identifier: MIT
# pmanalyze --quota (analyzer/studies/quota.c, the replay under CFS bandwidth control in
# analyzer/model/exact.c; docs/model.md "Containers and CPU quotas") on the sample traces: what
# any schedule under a quota must satisfy, checked on the report's numbers. A quota of Q CPUs
# lets the program run at most Q x P of CPU time per period P, so its work U needs at least
# U / (Q x P) - 1 periods, and the pipeline, with more ready threads than cores all along, spends
# every period's pool but the last: T(n, Q) is within one period P of U / Q; a quota of n CPUs on n cores cannot be spent, so nothing is
# throttled and T is the unlimited T(n); more quota never makes the run slower. The per-CPU
# slices' tick: 1 s / META config_hz, else the kernel's default 4 ms, named in the table, JSON and
# CSV. Then the bad input, each one line and exit status 2, and the sampled estimators' named
# approximation.
. "$PMT_TOP/tests/cli/lib.sh"

EX="$PMT_TOP/sample-traces/pipeline-4t-cpu0-sched.zst"
SA="$PMT_TOP/sample-traces/pigz-8t-cpu0.zst"

run_capture "$PMANALYZE" --quota 0.5-2.5:0.25 --cores 2 --format json "$EX"
cp "$T/out" "$T/q.json"
expect_status "--quota 0.5-2.5:0.25 --cores 2 on a sched-exact trace" 0
check "replay: T(n,Q) within P of U/Q, not increasing with Q, throttled below 2 CPUs, none from 2 on where T = T(n)" \
	python3 -c 'import json,sys
q=json.load(open(sys.argv[1]))["quota"]
assert q["method"]=="replay" and q["cores"]==2 and q["period_ms"]==100, q
r=q["rows"]; U=q["work_s"]; Tn=q["Tn_s"]
assert [x["quota_cpus"] for x in r]==[0.5+0.25*i for i in range(9)], r
for a,b in zip(r, r[1:]):
    assert b["T_s"] <= a["T_s"]*(1+1e-9), (a, b)
for x in r:
    assert x["T_s"] >= U/x["quota_cpus"] - 0.1 - 1e-9, x
    if x["quota_cpus"] < 2:
        assert x["throttled_periods"] > 0 and x["throttling_possible"], x
        # every period but the last ran out of quota with work left: at most P late per period
        assert x["T_s"] <= U/x["quota_cpus"] + 0.1 + 1e-9, x
    else:
        assert x["throttled_periods"]==0 and abs(x["T_s"]-Tn) < 1e-9 and not x["throttling_possible"], x
e=q["quota_enough_cpus"]
assert 1.75 < e <= 2, e
t=[x for x in r if abs(x["quota_cpus"]-1.75)<1e-9][0]
assert t["cost"] >= 0.05, t' "$T/q.json"

run_capture "$PMANALYZE" --quota 150ms/10ms --cores 2 "$EX"
check "150ms/10ms: 15 CPUs on 2 cores, the row says the replay throttles nothing" \
	grep -Eq '^ +15\.00 .*\(Q >= cores: the replay throttles nothing\)$' "$T/out"
check "150ms/10ms: the section names the period and the replay (one pool: the trace has no wake-up cost)" \
	grep -q '^CPU quota on 2 cores, period 10 ms: replay under CFS bandwidth control, one runtime pool for all cores (the traces hold no wake-up cost between cores, which the per-CPU slices. replay needs: record with --calibrate-wake)$' "$T/out"

run_capture "$PMANALYZE" --quota 1 --cores 2 --format csv "$EX"
check "CSV: the quota table's header and its row" python3 -c 'import sys
l=open(sys.argv[1]).read().split("\n")
i=l.index("quota_cpus,cores,period_ms,method,T_s,S,cost,periods,throttled_periods,throttled_s,tick_ms,tick_source")
f=l[i+1].split(",")
assert f[:4]==["1","2","100","replay"] and int(f[8]) > 0 and f[10:]==["",""], l[i+1]' "$T/out"

run_capture "$PMANALYZE" --quota 1,2 --cores 2 --format json "$SA"
cp "$T/out" "$T/s.json"
check "sampled estimator: the fluid approximation, named, T(n,Q) = max(T(n), U/Q)" python3 -c 'import json,sys
q=json.load(open(sys.argv[1]))["quota"]
assert q["method"]=="fluid", q
for x in q["rows"]:
    assert abs(x["T_s"]-max(q["Tn_s"], q["work_s"]/x["quota_cpus"])) < 1e-9, x' "$T/s.json"
run_capture "$PMANALYZE" --quota 1 --cores 2 "$SA"
check "table: the fluid approximation is named as such" \
	grep -q 'work-conserving fluid approximation' "$T/out"

# The tick the per-CPU slices are accounted at (docs/model.md "Containers and CPU quotas"): the
# trace kernel's CONFIG_HZ from META config_hz, else the kernel's default 250 (4 ms). A trace with
# a wake-up cost (per-CPU slices) with META config_hz set to 1000, 250, absent and not a tick rate.
WC="$PMT_TOP/tests/fixtures/traces/cond-barrier-100ms-cal.zst"
python3 "$PMT_TOP/tests/cli/checks.py" meta_set "$WC" "$T/hz1000.zst" config_hz 1000
python3 "$PMT_TOP/tests/cli/checks.py" meta_set "$WC" "$T/hz250.zst" config_hz 250
python3 "$PMT_TOP/tests/cli/checks.py" meta_set "$WC" "$T/hzbad.zst" config_hz 2.5
for f in hz1000 hz250 hzbad; do
	"$PMANALYZE" --quota 0.5,1,1.5,1.9 --cores 2 --format json "$T/$f.zst" >"$T/$f.json" 2>"$T/$f.err" ||
		not_ok "--quota on the trace with config_hz of $f" "$(cat "$T/$f.err")"
done
run_capture "$PMANALYZE" --quota 0.5,1,1.5,1.9 --cores 2 --format json "$WC"
cp "$T/out" "$T/hznone.json"
check "tick: 1 ms from config_hz 1000, 4 ms recorded from 250, the default 4 ms without it or for 2.5; 1 ms changes T(n,Q), 250 is the default's" \
	python3 -c 'import json,sys
q={k: json.load(open(sys.argv[1] + "/" + k + ".json"))["quota"] for k in ("hz1000", "hz250", "hznone", "hzbad")}
assert all(x["method"]=="replay" and x["slices"] for x in q.values()), q
got={k: (x["tick_ms"], x["tick_source"]) for k, x in q.items()}
assert got=={"hz1000": (1, "recorded"), "hz250": (4, "recorded"), "hznone": (4, "default"), "hzbad": (4, "default")}, got
T={k: [r["T_s"] for r in x["rows"]] for k, x in q.items()}
assert T["hz250"]==T["hznone"]==T["hzbad"], T
assert any(abs(a-b) > 1e-6 for a, b in zip(T["hz1000"], T["hznone"])), T' "$T"
run_capture "$PMANALYZE" --quota 1 --cores 2 "$T/hz1000.zst"
check "tick: the table says 1 ms, recorded" grep -qx '  tick 1 ms (CONFIG_HZ 1000, recorded)' "$T/out"
run_capture "$PMANALYZE" --quota 1 --cores 2 "$WC"
check "tick: the table says the default was assumed" \
	grep -qx "  tick 4 ms (CONFIG_HZ not recorded: the kernel's default 250 assumed)" "$T/out"
run_capture "$PMANALYZE" --quota 1 --cores 2 --format csv "$T/hz1000.zst"
check "tick: CSV tick_ms 1, recorded" python3 -c 'import sys
l=open(sys.argv[1]).read().split("\n")
i=[j for j, x in enumerate(l) if x.startswith("quota_cpus,cores,")][0]
assert l[i+1].split(",")[-2:]==["1","recorded"], l[i+1]' "$T/out"
run_capture "$PMANALYZE" --quota 1 --cores 2 "$EX"
check "tick: one pool (no wake-up cost) has no tick: JSON null, no tick line" python3 -c 'import json,sys
q=json.load(open(sys.argv[1]))["quota"]
assert not q["slices"] and q["tick_ms"] is None and q["tick_source"] is None, q
assert "  tick " not in open(sys.argv[2]).read()' "$T/q.json" "$T/out"

run_capture "$PMANALYZE" --quota 0 "$EX"
expect_status "--quota 0: usage error" 2
expect_err_line "--quota 0: one line" "^pmanalyze: error: invalid --quota '0': a quota must be above 0 CPUs$"
run_capture "$PMANALYZE" --quota -1 "$EX"
expect_status "--quota -1: usage error" 2
run_capture "$PMANALYZE" --quota 1/2s "$EX"
expect_status "--quota 1/2s: usage error" 2
expect_err_line "--quota 1/2s: one line" "^pmanalyze: error: invalid --quota '1/2s': want a period from 1ms to 1s"
run_capture "$PMANALYZE" --quota 1/500us "$EX"
expect_status "--quota 1/500us: usage error" 2
run_capture "$PMANALYZE" --quota 1 --cores 4 --machine "$PMT_TOP/tests/fixtures/hwloc/vm-2cpu.xml" "$EX"
expect_status "--quota on 4 cores with a 2-CPU --machine: usage error" 2
expect_err_line "--quota on more cores than the machine: one line" \
	"^pmanalyze: error: --quota on 4 cores, but '.*vm-2cpu.xml' has 2$"
run_capture "$PMANALYZE" --quota-burst 20ms "$EX"
expect_status "--quota-burst without --quota: usage error" 2
# options that do not go together: the error line, then the short usage (main.c usage_error)
check "--quota-burst without --quota: the error line and the usage" sh -c \
	'head -1 "$1" | grep -qx "pmanalyze: error: --quota-burst needs --quota" && sed -n 2p "$1" | grep -q "^usage: pmanalyze"' _ "$T/err"
run_capture "$PMANALYZE" --quota 1.5 --quota-burst 20ms --cores 2 --format json "$EX"
check "--quota-burst 20ms: reported, and no slower than without" python3 -c 'import json,sys
q=json.load(open(sys.argv[1]))["quota"]; r=json.load(open(sys.argv[2]))["quota"]
assert q["burst_ms"]==20 and q["rows"][0]["T_s"] <= [x for x in r["rows"] if x["quota_cpus"]==1.5][0]["T_s"]+1e-9, q' "$T/out" "$T/q.json"

done_testing
