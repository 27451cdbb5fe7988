#!/bin/sh
# SPDX-License-Identifier: MIT
# Where the calibration runs' time on c CPUs goes (analyzer/studies/breakdown.c, docs/model.md
# "Where the runs' time goes"): each run on 2 CPUs replayed from its own scheduler events beside
# the prediction from the 1-CPU baseline. On fixtures whose runs are known: the 100 ms barrier
# program on a quiet machine (Linux stacked the wakees of a wake-all on one CPU while the other
# stood idle: preempted threads waiting), and the same program beside stress-ng (other processes'
# time). The measured wall time is recomputed here from the runs' RUN_END records, and the terms
# must add up to the difference. The hand-made schedule with known waits is tests/unit/test_breakdown.c.
. "$PMT_TOP/tests/cli/lib.sh"

FX="$PMT_TOP/tests/fixtures/traces"
# mean RUN_END wall_ns of the calibration runs on CPUs "0-1", in s
mean_wall_2() {
	"$PMANALYZE" --dump "$1" | python3 -c 'import json,sys
runs={}
for l in sys.stdin:
    d=json.loads(l)
    if d["type"]=="run_begin": runs[d["run_id"]]=dict(d)
    elif d["type"]=="run_end": runs[d["run_id"]].update(d)
w=[r["wall_ns"]/1e9 for r in runs.values() if r.get("role")=="calibration" and r.get("cpus")=="0-1" and r["exit"]["code"]==0]
print("%.9f" % (sum(w)/len(w)))'
}

C100="$FX/cond-barrier-100ms-cal.zst"
"$PMANALYZE" --cores 1,2 "$C100" >"$T/c100.txt" 2>/dev/null
"$PMANALYZE" --cores 1,2 --format json "$C100" >"$T/c100.json" 2>/dev/null
if grep -qx '      2    3    0.636    0.670   +0.034   +0.007   +0.008   +0.000   +0.000   +0.020   -0.001  preempt' "$T/c100.txt"; then
	ok "100 ms barriers: 3 runs on 2 CPUs, 0.670 s against 0.636 s predicted, the preempted waits the largest term"
else
	not_ok "100 ms barriers: the breakdown's row" "$(sed -n '/where the runs/,/^$/p' "$T/c100.txt")"
fi
if grep -qx '  2 CPUs: largest term preempted threads waiting for a CPU not running the program, +0.020 s (+3.2% of T pred)' "$T/c100.txt"; then
	ok "100 ms barriers: the largest term named"
else
	not_ok "100 ms barriers: the largest term named" "$(grep 'largest term' "$T/c100.txt")"
fi
near "100 ms barriers: T meas is the runs' mean RUN_END wall time" \
	"$(json_get "$T/c100.json" runs_breakdown.rows.0.T_meas_s)" "$(mean_wall_2 "$C100")" 1e-9
near "100 ms barriers: T pred is the prediction's T(2)" \
	"$(json_get "$T/c100.json" runs_breakdown.rows.0.T_pred_s)" \
	"$(json_get "$T/c100.json" predictions.1.T_s)" 1e-12
near "100 ms barriers: U(1) is the baseline's work by the scheduler events" \
	"$(json_get "$T/c100.json" runs_breakdown.U1_s)" \
	"$(json_get "$T/c100.json" parallelism.estimates.sched-exact.work_s)" 1e-9
check "the terms add up to T meas - T pred" python3 -c 'import json,sys
for w in json.load(open(sys.argv[1]))["runs_breakdown"]["rows"]:
    s=w["cpu_s"]+w["other_s"]+w["steal_s"]+w["wake_s"]+w["preempt_s"]+w["rest_s"]
    assert abs(s-w["diff_s"])<1e-12, (s, w["diff_s"])
    assert abs(w["lost_s"]-(w["other_s"]+w["steal_s"]+w["wake_s"]+w["preempt_s"]))<1e-12' "$T/c100.json"

BUSY="$FX/cond-barrier-busy-cal.zst"
"$PMANALYZE" --cores 1,2 "$BUSY" >"$T/busy.txt" 2>/dev/null
if grep -qx '      2    2    0.139    1.802   +1.663   +0.000   +1.543   +0.000   +0.000   +0.000   +0.120  other' "$T/busy.txt"; then
	ok "beside stress-ng: other processes' time the largest term"
else
	not_ok "beside stress-ng: the breakdown's row" "$(sed -n '/where the runs/,/^$/p' "$T/busy.txt")"
fi

# synthetic: gentrace's calibration run on 2 CPUs of 4 threads of 20 ms each, CPU 1 idle for the
# first X ms while the forked threads wait (tests/bench/gentrace.c cal_wake_ms): the wake term is
# X / 2 ms (X = 10), or (2 X - 20) / 2 ms (X = 30: CPU 0 also idles while thread 3 waits for CPU 1)
for X in 10 30; do
	if ! "$PMT_TOP/build/bench/gentrace" "$T/g$X.zst" 4 0.5 sched cal_wake_ms=$X >/dev/null 2>"$T/err"; then
		not_ok "gentrace cal_wake_ms=$X" "$(cat "$T/err")"
		continue
	fi
	"$PMANALYZE" --cores 1,2 --format json "$T/g$X.zst" >"$T/g$X.json" 2>/dev/null
	check "synthetic wake latency X = $X ms: the terms known by construction" python3 -c 'import json,sys
X=float(sys.argv[2]); D=20.0
w=json.load(open(sys.argv[1]))["runs_breakdown"]["rows"][0]
want={"cores":2,"runs":1,"T_meas_s":(X+2*D)/1e3,"U_s":4*D/1e3,"wake_s":(X+max(0,X-D))/2/1e3,
      "lost_s":(X+max(0,X-D))/2/1e3,"preempt_s":0,"other_s":0,"steal_s":0,"wakes":3,
      "wake_latency_s":(2*X+2*D)/1e3,"switch_ins":4,"preemptions":0,"migrations":0}
bad={k:(w[k],v) for k,v in want.items() if abs(w[k]-v)>1e-9}
assert not bad, bad' "$T/g$X.json" "$X"
done

# the clock: gentrace's baseline at 2 GHz and its 2-CPU run at 2 R GHz (RUN_END C in cycles over
# CPU time): the same cycles take U(1) / R on the run's clock, so the freq term is
# U(1) (1/R - 1) / 2 and the cpu term what is left of (U(2) - U(1)) / 2
for R in 0.8 1.25; do
	if ! "$PMT_TOP/build/bench/gentrace" "$T/f$R.zst" 4 0.5 sched cal_wake_ms=10 cal_clock=$R >/dev/null 2>"$T/err"; then
		not_ok "gentrace cal_clock=$R" "$(cat "$T/err")"
		continue
	fi
	"$PMANALYZE" --cores 1,2 --format json "$T/f$R.zst" >"$T/f$R.json" 2>/dev/null
	check "clock $R of the baseline's: the freq term known by construction, the terms still add up" python3 -c 'import json,sys
R=float(sys.argv[2])
b=json.load(open(sys.argv[1]))["runs_breakdown"]; w=b["rows"][0]; U1=b["U1_s"]
assert b["clock_source"]=="cycles" and abs(b["f1_hz"]-2e9)<1, (b["clock_source"], b["f1_hz"])
assert abs(w["f_ratio"]-R)<1e-9, w["f_ratio"]
assert abs(w["freq_s"]-U1*(1/R-1)/2)<1e-9, (w["freq_s"], U1*(1/R-1)/2)
assert abs(w["cpu_s"]-((w["U_s"]-U1)/2-w["freq_s"]))<1e-9, w["cpu_s"]
s=w["cpu_s"]+w["freq_s"]+w["other_s"]+w["steal_s"]+w["wake_s"]+w["preempt_s"]+w["rest_s"]
assert abs(s-w["diff_s"])<1e-12, (s, w["diff_s"])' "$T/f$R.json" "$R"
done
"$PMANALYZE" --cores 1,2 "$T/f0.8.zst" >"$T/f.txt" 2>/dev/null
check "the table has the freq column and says whose clock" grep -qx \
	"  freq: the runs' mean clock against the baseline's 2000 MHz (cycles), the same cycles taking U(1) f1 / fc" "$T/f.txt"
"$PMANALYZE" --cores 1,2 --format csv "$T/f0.8.zst" >"$T/f.csv" 2>/dev/null
check "CSV: the breakdown's table with its freq term" python3 -c 'import csv,sys,json
rows=list(csv.reader(open(sys.argv[1])))
i=[k for k,r in enumerate(rows) if r and r[0]=="breakdown_cores"][0]
h,v=rows[i],rows[i+1]
w=json.load(open(sys.argv[2]))["runs_breakdown"]["rows"][0]
assert v[h.index("breakdown_cores")]=="2" and abs(float(v[h.index("freq_s")])-w["freq_s"])<1e-6, v' "$T/f.csv" "$T/f0.8.json"
"$PMANALYZE" --cores 1,2 --html "$T/f.html" "$T/f0.8.zst" >/dev/null 2>&1
check "HTML: the breakdown's table" grep -q '<table id="runs-breakdown">' "$T/f.html"
check "HTML: no id twice on the page (a section's and its table's)" sh -c \
	'test -z "$(grep -o "id=\"[^\"]*\"" "$1" | sort | uniq -d)"' _ "$T/f.html"
"$PMANALYZE" --cores 1,2 --format json "$C100" >"$T/c100.json" 2>/dev/null
check "no clocks recorded (a VM without cpufreq or counters): freq_s null, no freq column" sh -c \
	'python3 -c "import json,sys; w=json.load(open(sys.argv[1]))[\"runs_breakdown\"]; assert w[\"rows\"][0][\"freq_s\"] is None and w[\"clock_source\"] is None" "$1" && ! grep -q "^  freq:" "$2"' _ "$T/c100.json" "$T/c100.txt"

# no calibration runs, or predictions for another machine: no section
"$PMANALYZE" "$FX/cond-barrier-app.zst" >"$T/app.txt" 2>/dev/null
"$PMANALYZE" --cores 1,2 --format json --machine "$PMT_TOP/tests/fixtures/hwloc/$(ls "$PMT_TOP/tests/fixtures/hwloc" | head -1)" "$C100" >"$T/mach.json" 2>/dev/null
if ! grep -q "where the runs' time goes" "$T/app.txt" && ! grep -q '"runs_breakdown"' "$T/mach.json"; then
	ok "no section without calibration runs or with --machine"
else
	not_ok "no section without calibration runs or with --machine"
fi
done_testing
