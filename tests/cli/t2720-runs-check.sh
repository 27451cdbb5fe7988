#!/bin/sh
# SPDX-License-Identifier: MIT
# The predictions against the trace's own runs (analyzer/studies/runcheck.c, docs/model.md
# "Checked against the trace's own runs"): a --calibrate trace's baseline runs on 1 CPU and
# calibration runs on n CPUs measure S(n) = median T(1) / median T(n); the report prints it beside
# the prediction (table line "measured", JSON "runs_check") and warns (runs-disagree) when the
# prediction's ±S misses the runs' range. On fixtures: the numbers are recomputed here from the
# runs' RUN_BEGIN/RUN_END records (pmanalyze --dump), not taken from the report. The speedup
# plot's measured points are the same runs: a failed calibration run is none.
. "$PMT_TOP/tests/cli/lib.sh"

FX="$PMT_TOP/tests/fixtures/traces"
# the runs' S per CPU count, from the records: {"n": [S, S_min, S_max, runs_n, runs_1]}
runs_S() {
	"$PMANALYZE" --dump "$1" | python3 -c 'import json,statistics,sys
runs={}
for l in sys.stdin:
    d=json.loads(l)
    if d["type"]=="run_begin": runs[d["run_id"]]=dict(d)
    elif d["type"]=="run_end": runs[d["run_id"]].update(d)
ok=[r for r in runs.values() if r.get("role") in ("baseline","calibration") and r.get("exit_code",0)==0 and "wall_ns" in r]
def ncpu(c):
    return sum(int(b)-int(a)+1 if "-" in p else 1 for p in c.split(",") for a,_,b in [p.partition("-")])
by={}
for r in ok: by.setdefault(ncpu(r["cpus"]),[]).append(r["wall_ns"]/1e9)
T1=statistics.median(by[1])
# the standard error of a median of k runs: 1.2533 sd / sqrt(k), relative, both medians in quadrature
def se(w):
    return 1.2533141373155*statistics.stdev(w)/len(w)**0.5/statistics.median(w) if len(w)>1 else 0
print(json.dumps({n:[T1/statistics.median(w), T1/max(w), T1/min(w), len(w), len(by[1]),
                     T1/statistics.median(w)*(se(by[1])**2+se(w)**2)**0.5] for n,w in by.items() if n>1}))'
}

# --- the 100 ms barrier program: predicted 1.98 +- 0.02 from the spreads (+- 0.11 with the model's error), its runs 1.87-1.90
"$PMANALYZE" --cores 1,2 --format json "$FX/cond-barrier-100ms-cal.zst" >"$T/c100.json" 2>"$T/err"
"$PMANALYZE" --cores 1,2 "$FX/cond-barrier-100ms-cal.zst" >"$T/c100.txt" 2>&1
runs_S "$FX/cond-barrier-100ms-cal.zst" >"$T/c100.runs"
check "100 ms barriers: runs_check holds the runs' median S, their range and counts, outside the prediction's ±S" python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); want=json.load(open(sys.argv[2]))
rc=d["runs_check"]; p={q["cores"]:q for q in d["predictions"]}
assert [w["cores"] for w in rc]==[2], rc
w=rc[0]; S,lo,hi,nn,n1,sd=want["2"]
assert abs(w["S"]-S)<1e-9 and abs(w["S_min"]-lo)<1e-9 and abs(w["S_max"]-hi)<1e-9, (w, want)
assert w["runs"]==nn==3 and w["runs_1"]==n1==3, (w, want)
# the runs check compares the model with its own spreads (A, omega, wake cost), not the error it measures
q=p[2]; spread=(q["S_err_A"]**2+q["S_err_omega"]**2+q["S_err_wake"]**2)**0.5
assert w["S_predicted"]==q["S"] and abs(w["S_err"]-spread)<1e-12 and w["S_err_with_model"]==q["S_err"], (w, q)
assert w["S_predicted"]-w["S_err"] > w["S_max"] and w["outside"] is True, w
# the model error: what the runs (standard error sd of the medians) and the spread leave unexplained
assert abs(w["S_sd"]-sd)<1e-9, (w, sd)
e=max(0,(S-q["S"])**2-sd**2-spread**2)**0.5/q["S"]
assert e > 0.03 and abs(w["model_rel"]-e)<1e-9 and abs(q["S_err_model"]-q["S"]*e)<1e-9, (w, q, e)' "$T/c100.json" "$T/c100.runs"
# ... carried to every n: 0 at the baseline, e at 2, e (1 + log2 1.5) at 3, 2e at 4 = m, and no
# further on idle cores
"$PMANALYZE" --cores 1-6 --format json "$FX/cond-barrier-100ms-cal.zst" >"$T/c100-6.json" 2>/dev/null
check "100 ms barriers: the model's error grows with log2 n from the calibrated counts, stops at m" python3 -c 'import json,sys,math
d=json.load(open(sys.argv[1])); e=d["runs_check"][0]["model_rel"]
rel={q["cores"]:q["S_err_model"]/q["S"] for q in d["predictions"]}
want={1:0, 2:e, 3:e*(1+math.log2(1.5)), 4:2*e, 5:2*e, 6:2*e}
assert all(abs(rel[n]-v)<1e-9 for n,v in want.items()), (rel, want)
for q in d["predictions"]:
    assert abs(q["S_err"]-math.sqrt(sum(q[k]**2 for k in ("S_err_A","S_err_omega","S_err_wake","S_err_model","S_err_runs"))))<1e-9, q' "$T/c100-6.json"
# ... and a measured S's own spread: the runs' standard error of S at 2 (S_sd / S), relative, at
# the nearest measured count in log2 n (n = 1 has none: S(1) = 1), not growing
check "100 ms barriers: the runs' spread part of ±S: S_sd / S of the runs at 2, 0 at 1, kept to 6" python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); w=d["runs_check"][0]; rel=w["S_sd"]/w["S_own"]
assert rel > 0.004, w
for q in d["predictions"]:
    want = 0 if q["cores"] == 1 else rel
    assert abs(q["S_err_runs"]-q["S"]*want)<1e-9, (q, want)' "$T/c100-6.json"
# ... and the same with --cores leaving the calibrated n = 2 out of the table: the model's part of
# ±S is measured by the runs, not by the rows printed; the runs check keeps its row for n = 2
"$PMANALYZE" --cores 3-6 --format json "$FX/cond-barrier-100ms-cal.zst" >"$T/c100-36.json" 2>/dev/null
check "100 ms barriers, --cores 3-6: ±S's model part as with 1-6, the runs' row for n = 2 kept" python3 -c 'import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
pa={q["cores"]:q for q in a["predictions"]}; pb={q["cores"]:q for q in b["predictions"]}
assert sorted(pb)==[3,4,5,6], sorted(pb)
for n in pb:
    assert pb[n]["S_err_model"]>0 and abs(pb[n]["S_err_model"]-pa[n]["S_err_model"])<1e-12, (n, pa[n], pb[n])
    assert abs(pb[n]["S_err"]-pa[n]["S_err"])<1e-12, (n, pa[n], pb[n])
ra=a["runs_check"][0]; rb=b["runs_check"]
assert len(rb)==1 and rb[0]==ra, (ra, rb)' "$T/c100-6.json" "$T/c100-36.json"
check "100 ms barriers: the runs-disagree warning with the core count, the prediction and the runs" python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); w=d["runs_check"][0]
n=[x for x in d["coded_notes"] if x["code"]=="runs-disagree"]
assert len(n)==1 and n[0]["severity"]=="warning", d["coded_notes"]
t=n[0]["text"]
want="the prediction misses this trace'"'"'s own runs at n = 2: S = %.2f ± %.2f predicted, %.2f measured (%.2f-%.2f over 3 runs on 2 CPUs" % (
    w["S_predicted"], w["S_err"], w["S"], w["S_min"], w["S_max"])
assert t.startswith(want), (t, want)' "$T/c100.json"
check "100 ms barriers: the table's measured line, marked outside" grep -Eq \
	'^measured     S\(2\) = 1\.[0-9]{2} \(1\.[0-9]{2}-1\.[0-9]{2}\) by this trace.s runs: 3 on 2 CPUs against 3 on 1 \(median wall times\); predicted 1\.98 ± 0\.0[0-9]  <- outside ±S; ± 0\.[0-9]{2} with the model.s error and the runs. spread$' "$T/c100.txt"
"$PMANALYZE" -q --cores 1,2 --html "$T/c100.html" "$FX/cond-barrier-100ms-cal.zst" >/dev/null 2>&1
check "100 ms barriers: the HTML's runs-check table, the JSON's numbers at its precision, marked" python3 -c 'import json,re,sys
w=json.load(open(sys.argv[1]))["runs_check"][0]; h=open(sys.argv[2]).read()
m=re.search(r"<table id=\"runs-check\">.*?<tbody>\n<tr class=\"warn\">(.*?)</tr>", h, re.S)
assert m, "no marked row"
cells=re.findall(r"<td>(.*?)</td>", m.group(1))
want=["2", "3", "3"]+["%.3f" % w[k] for k in ("S","S_min","S_max","S_own")]+["%.0f%%" % w["other_pct"]]+[
    "%.3f" % w[k] for k in ("S_predicted","S_err")]+["yes"]
assert cells==want, (cells, want)' "$T/c100.json" "$T/c100.html"

# --- the same program (8 x 4 barrier threads) calibrated beside stress-ng --cpu 2 on the same two
# CPUs: other processes took 82-92% of the runs' wall time, and S(2) by wall times is 0.86. The
# runs' time less what they waited for other processes' CPUs (each run's wall time its own profile
# on its CPUs leaves unexplained, at most other_load.cpus x wall) is what the prediction is for:
# S(2) = 1.98 against 1.97 predicted, no runs-disagree, no model error, and a note saying how long
# the runs waited. Recomputed here from the runs' records (RUN_END wall_ns, other_load) and their
# own replays (--run N: its wall time less what it leaves unexplained).
BUSY="$FX/cond-barrier-busy-cal.zst"
"$PMANALYZE" --cores 1,2 "$BUSY" >"$T/busy.txt" 2>&1
"$PMANALYZE" --cores 1,2 --format json "$BUSY" >"$T/busy.json" 2>/dev/null
check "busy calibration: the measured line shows the wall times' S and the runs' own, not outside" grep -Fxq \
	"measured     S(2) = 0.86 (0.66-1.25) by this trace's runs: 2 on 2 CPUs against 2 on 1 (median wall times); S(2) = 1.98 (1.93-2.03) less the time they waited for other processes' CPUs (1.664 s, 92%, per run on 2; 1.280 s, 82%, on 1); predicted 1.97 ± 0.12; ± 0.14 with the model's error and the runs' spread" "$T/busy.txt"
for r in 0 1 2 3; do
	"$PMANALYZE" --run $r --format json "$BUSY" >"$T/busy-run$r.json" 2>/dev/null
done
"$PMANALYZE" --dump "$BUSY" >"$T/busy.dump"
check "busy calibration: S_own from each run's wall less min(unexplained, other_load.cpus x wall)" python3 -c 'import json,statistics,sys
d=json.load(open(sys.argv[1])); w=d["runs_check"][0]
ends={}
for l in open(sys.argv[2]):
    x=json.loads(l)
    if x["type"]=="run_end": ends[x["run_id"]]=x
by={}
for r in range(4):
    p=json.load(open(sys.argv[3]+"/busy-run%d.json" % r))["parallelism"]
    explained=p["wall_s"]-p["unexplained_s"]  # the run replayed on its CPUs (--run: first to last record)
    e=ends[r]; wall=e["wall_ns"]/1e9; o=min(max(wall-explained,0), e["other_load"]["cpus"]*wall)
    by.setdefault(r%2+1,[]).append((wall-o, o, 100*o/wall))
T1=statistics.median(a for a,_,_ in by[1]); T2=[a for a,_,_ in by[2]]
assert w["corrected"] is True and abs(w["S_own"]-T1/statistics.median(T2))<1e-6, (w, by)
assert abs(w["S_own_min"]-T1/max(T2))<1e-6 and abs(w["S_own_max"]-T1/min(T2))<1e-6, (w, by)
assert abs(w["other_s"]-statistics.median(o for _,o,_ in by[2]))<1e-6, (w, by)
assert abs(w["other_1_pct"]-statistics.median(p for _,_,p in by[1]))<1e-6, (w, by)
assert w["S"]<0.9 and w["outside"] is False and w["model_rel"]==0, w
assert all(q["S_err_model"]==0 for q in d["predictions"]), d["predictions"]
assert not any(x["code"]=="runs-disagree" for x in d["coded_notes"]), d["coded_notes"]' "$T/busy.json" "$T/busy.dump" "$T"
check "busy calibration: the runs-waited note says how long the runs waited for other processes" grep -Fxq \
	"note: this trace's runs waited for CPUs that other processes used: 1.664 s (92% of the wall time) per run on 2 CPUs, 1.280 s (82%) per run on one (medians; the wall time each run's own profile on its CPUs leaves unexplained, at most the other processes' CPU time over the run). The prediction is for the program alone, so the check against the runs compares their time less that wait: S(2) = 1.98, against 0.86 by wall times; predicted 1.97. docs/model.md \"Checked against the trace's own runs\"" "$T/busy.txt"

# --- a trace and a separate calibration trace of the same program (pmanalyze app.zst calib.zst):
# the calibration table names each point's trace, the model is said to be fitted on both traces'
# runs, and the runs check reads the calibration trace's runs (3 on 1 CPU, 3 on 2; the app's one
# run, role "run", is neither baseline nor calibration). Recorded on a busy machine: corrected.
APP="$FX/cond-barrier-app.zst" CAL="$FX/cond-barrier-calib.zst"
"$PMANALYZE" "$APP" "$CAL" >"$T/two.txt" 2>/dev/null
check "app + calibration trace: the model is fitted on both traces' runs, the machine named apart" grep -Fxq \
	"memory       C(n) from cpu_time; model single-socket fitted on the runs of trace 1 '$APP', trace 2 '$CAL' (column trace); on the machine of trace '$APP' (1 socket of 2 cores, 1 NUMA node)" "$T/two.txt"
check "app + calibration trace: each calibration point labelled with its trace (run 0 of each)" sh -c \
	'grep -Fxq "              trace   run  cores         C(n)    omega meas.    omega model  residual" "$1" &&
	 grep -Eq "^                  1     0      2 " "$1" && grep -Eq "^                  2     0      1 " "$1" &&
	 grep -Eq "^                  2     5      2 " "$1"' sh "$T/two.txt"
check "app + calibration trace: the measured S(2) check from the calibration trace's runs" grep -Fxq \
	"measured     S(2) = 1.04 (1.02-1.04) by these traces' runs: 3 on 2 CPUs against 3 on 1 (median wall times); S(2) = 1.93 (1.85-2.03) less the time they waited for other processes' CPUs (0.457 s, 76%, per run on 2; 0.341 s, 55%, on 1); predicted 1.96 ± 0.15; ± 0.18 with the model's error and the runs' spread" "$T/two.txt"

# --- the calibration trace's wake-up calibration changes the replay of the app's scheduler events:
# per-core run queues with group wakes as barriers, where the app alone is replayed by processor
# sharing (S(3) 2.63 against 2.96). The charges of 1.0 us per cross-core wake make 0.005 ms of
# the 11.5 ms; the note wake-replay says so and names the trace. A_shared is by construction the
# app alone's A(m,3) (the same events, no calibration), and --no-wake-cost gives it back.
check "app + calibration trace: the note wake-replay, with the calibration's trace" grep -Fxq \
	"note: the wake-up calibration of '$CAL' (another operand) changes how the scheduler events are replayed, not only what a wake costs: with it the replay keeps per-core run queues and replays group wakes as barriers (4 at n = 3), without it all n cores are shared (processor sharing). At n = 3, A(m,n) = 2.63 (T = 0.105 s) against 2.96 (0.093 s) without the calibration; its charges of 1.0 us per cross-core wake make 0.005 ms of that, the per-core queues and barriers the rest (--no-wake-cost replays without it; docs/model.md \"Wake-up costs in the replay\")" "$T/two.txt"
"$PMANALYZE" --format json "$APP" "$CAL" >"$T/two.json" 2>/dev/null
"$PMANALYZE" --format json "$APP" >"$T/app.json" 2>/dev/null
"$PMANALYZE" --format json --no-wake-cost "$APP" "$CAL" >"$T/two-nowake.json" 2>/dev/null
check "wake-replay: A_shared = the app alone's A(m,3), A_charged = the table's, --no-wake-cost gives the app's" python3 -c 'import json,sys
two, app, nw = (json.load(open(f)) for f in sys.argv[1:4])
n = [x for x in two["coded_notes"] if x["code"] == "wake-replay"]
assert len(n) == 1, two["coded_notes"]
v = n[0]["values"]
A = lambda d, k: next(q["A"] for q in d["predictions"] if q["cores"] == k)
assert v["n"] == 3 and v["own"] == 0 and v["from"] == sys.argv[4] and v["barriers"] == 4, v
assert abs(v["A_shared"] - A(app, 3)) < 1e-9 and abs(v["A_charged"] - A(two, 3)) < 1e-9, (v, A(app, 3), A(two, 3))
assert 0 <= v["T_charges_ms"] < 0.05 and abs(A(nw, 3) - A(app, 3)) < 1e-9, (v, A(nw, 3))
assert not any(x["code"] == "wake-replay" for x in app["coded_notes"] + nw["coded_notes"])' \
	"$T/two.json" "$T/app.json" "$T/two-nowake.json" "$CAL"

# --- pmcollect --sweep cores=1,2 --repeat 2 beside stress-ng --cpu 2 on the same CPUs: the
# scaling table's error by wall times (89.0% at n = 2) stays, and the note sweep-waited gives the
# waits and the error less them, as the runs check takes them out
SW="$FX/cond-barrier-sweep-busy.zst"
"$PMANALYZE" "$SW" >"$T/sweep.txt" 2>/dev/null
check "busy sweep: the scaling table's wall-time error, and the note with the error less the waits" sh -c \
	'grep -Fxq "       1     2       4    2     1.389     1.331-1.448    1.05    1.98   0.24      0.735    89.0%" "$1" &&
	 grep -Fxq "note: the sweep'"'"'s runs waited for CPUs that other processes used: 1.247 s (90% of the wall time) per run on 2 CPUs, 1.177 s (81%) per run on one (medians, as the check against the runs measures it). S meas and the errors of the scaling study compare wall times with a prediction for the program alone; less that wait, S(2) = 1.97 (1.05 by wall times), error 0.5%, and mean |error| 0.5% over 1 configuration of more than one CPU" "$1"' sh "$T/sweep.txt"
check "quiet calibration: no runs-waited and no sweep-waited note" sh -c \
	'! grep -q "waited for CPUs that other processes used" "$1"' sh "$T/c100.txt"

# --- a calibration whose runs the prediction covers: the line, no warning
"$PMANALYZE" --format json "$FX/cal-triad-8t-rep3.zst" >"$T/triad.json" 2>&1
runs_S "$FX/cal-triad-8t-rep3.zst" >"$T/triad.runs"
check "triad calibration: the runs' S within the prediction's ±S, no runs-disagree" python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); want=json.load(open(sys.argv[2]))
rc={w["cores"]:w for w in d["runs_check"]}
assert sorted(rc)==sorted(int(k) for k in want), (rc, want)
for k,(S,lo,hi,nn,n1,sd) in want.items():
    w=rc[int(k)]
    assert abs(w["S"]-S)<1e-9 and abs(w["S_min"]-lo)<1e-9 and abs(w["S_max"]-hi)<1e-9 and w["runs"]==nn, (w, want)
    assert w["outside"] is False and w["S_predicted"]+w["S_err"] >= w["S_min"], w
assert not any(x["code"]=="runs-disagree" for x in d["coded_notes"]), d["coded_notes"]' "$T/triad.json" "$T/triad.runs"

# --- nothing to compare: predictions for another machine, a trace without runs on n CPUs
"$PMANALYZE" --format json --machine "$PMT_TOP/tests/fixtures/hwloc/2s4c2t.xml" "$FX/cond-barrier-100ms-cal.zst" >"$T/other.json" 2>&1
check "--machine: no runs_check and no runs-disagree (the runs are the recording machine's)" python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
assert "runs_check" not in d and not any(x["code"]=="runs-disagree" for x in d["coded_notes"]), d.get("runs_check")' "$T/other.json"
"$PMANALYZE" "$PMT_TOP/sample-traces/pigz-8t-cpu0.zst" >"$T/pigz.txt" 2>&1
check "a trace of one run on one CPU: no measured line" sh -c '! grep -q "^measured " "$1" && grep -q "^optimal " "$1"' sh "$T/pigz.txt"

# --- the speedup plot's measured points: one per run that exited 0 (the runs check's runs), none
# for a calibration run that failed (it measured its failure: 0.05 s for a tenth of the work)
for fx in cond-barrier-100ms-cal calibration-run-failed; do
	rm -rf "$T/svg"
	"$PMANALYZE" -q --plot "$T/svg" "$FX/$fx.zst" >/dev/null 2>&1
	want=$("$PMANALYZE" --dump "$FX/$fx.zst" | python3 -c 'import json,sys
ok=sum(1 for l in sys.stdin for d in [json.loads(l)] if d["type"]=="run_end" and d["exit"]["kind"]=="exited" and d["exit"]["code"]==0)
print(ok + 1)') # the points and the legend's swatch (plot.h: PMA_PLOT_C_MEAS 2ca02c)
	got=$(python3 "$PMT_TOP/tests/cli/checks.py" plot_svg_colour_uses "$T/svg/speedup.svg" 2ca02c 2>&1)
	check "$fx: the speedup plot's measured points are the runs that exited 0 ($want uses of the colour, legend included)" test "$got" = "$want"
done

# --- a synthetic schedule (gentrace, sched events: truth S(2) = 2) whose own runs measure S(2)
# 10% lower (runs_S=0.9, each side's runs 2% apart): the model's error is that 10% less what the
# runs' and the prediction's spreads explain; a 30% spread explains it all
GEN="$(dirname "$W")/bench/gentrace"
"$GEN" "$T/miss.zst" 4 0.6 sched runs_S=0.9:0.02 >/dev/null
"$PMANALYZE" -q --cores 1-8 --format json "$T/miss.zst" >"$T/miss.json" 2>"$T/miss.err"
check "gentrace runs_S=0.9: the model error is the known 10% less the spreads, doubling to n = m = 4" python3 -c 'import json,sys,math
d=json.load(open(sys.argv[1])); w=d["runs_check"][0]; p={q["cores"]:q for q in d["predictions"]}
assert w["cores"]==2 and abs(p[2]["S"]-2)<0.01, (w, p[2])          # the truth, predicted
assert abs(w["S"]-1.8)<1e-6 and w["runs"]==3 and w["runs_1"]==4, w  # 0.9 x 2; the baseline on 1 CPU too
e=math.sqrt(max(0,(w["S"]-w["S_predicted"])**2-w["S_sd"]**2-w["S_err"]**2))/w["S_predicted"]
assert abs(w["model_rel"]-e)<1e-9 and 0.085<e<0.1, (w, e)
for n,k in ((1,0),(2,1),(4,2),(8,2)):
    assert abs(p[n]["S_err_model"]/p[n]["S"]-k*e)<1e-9, (n, p[n], e)
assert p[4]["S_err"]>=2*e*p[4]["S"] and abs(w["S_err_with_model"]-p[2]["S_err"])<1e-12, (p[4], w)' "$T/miss.json"
"$GEN" "$T/wide.zst" 4 0.6 sched runs_S=0.9:0.3 >/dev/null
"$PMANALYZE" -q --cores 1-4 --format json "$T/wide.zst" >"$T/wide.json" 2>"$T/wide.err"
check "gentrace runs_S=0.9:0.3: runs 30% apart explain the 10%: no model error" python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); w=d["runs_check"][0]
assert abs(w["S"]-1.8)<1e-6 and w["model_rel"]==0 and w["S_sd"]>0.2, w
assert all(q["S_err_model"]==0 for q in d["predictions"]), d["predictions"]' "$T/wide.json"
done_testing
