#!/bin/sh
# SPDX-License-Identifier: MIT
# The collector-shared note (analyzer/result/compute.c check_sampling) against the records: when
# pmcollect was not pinned and sampled on the analyzed run's CPUs, the note gives the CPU time its
# sampling took. SUMMARY's sampling_cpu_ns is the whole trace's, every run's: with several runs the
# note gives the analyzed run its share by thread-samples and names the trace's total and its runs
# (it gave one run the whole trace's time, and its % of that run's CPU time). Expected values from
# pmanalyze --dump: SUMMARY, the SAMPLE records' threads per run.
. "$PMT_TOP/tests/cli/lib.sh"

FX="$PMT_TOP/tests/fixtures/traces"
# {"total_s": SUMMARY sampling CPU, "runs": N, "share": run 0's thread-samples / the trace's,
#  "collector_cpu": run 0's RUN_BEGIN collector_cpu, "cpus": run 0's cpus}
records() {
	"$PMANALYZE" --dump "$1" | python3 -c 'import json,sys
ts={}; out={}
for l in sys.stdin:
    d=json.loads(l)
    if d.get("type")=="sample": ts[d["run_id"]]=ts.get(d["run_id"],0)+len(d["threads"])
    elif d.get("type")=="summary": out["total_s"]=d["sampling_cpu_ns"]/1e9
    elif d.get("type")=="run_begin" and d["run_id"]==0: out["collector_cpu"]=d["collector_cpu"]; out["cpus"]=d["cpus"]
out["runs"]=len(ts); out["share"]=ts[0]/sum(ts.values())
print(json.dumps(out))'
}

records "$FX/collector-shared-2runs.zst" >"$T/two.rec"
"$PMANALYZE" --format json "$FX/collector-shared-2runs.zst" >"$T/two.json" 2>"$T/err"
"$PMANALYZE" "$FX/collector-shared-2runs.zst" >"$T/two.txt" 2>&1
check "two runs, pmcollect not pinned: the fixture is what the note is about" python3 -c 'import json,sys
r=json.load(open(sys.argv[1])); d=json.load(open(sys.argv[2]))["parallelism"]
assert r["runs"]==2 and r["collector_cpu"]==-1 and d["run_id"]==0 and d["baseline_cores"] < d["m"], (r, d)' \
	"$T/two.rec" "$T/two.json"
check "two runs: the note gives run 0 its share of the trace's sampling CPU by thread-samples" python3 -c 'import json,sys
r=json.load(open(sys.argv[1])); d=json.load(open(sys.argv[2]))
n=[x for x in d["coded_notes"] if x["code"]=="collector-shared"]
assert len(n)==1, d["coded_notes"]
k=n[0]["values"]; c=r["total_s"]*r["share"]
U=d["parallelism"]["estimates"][d["parallelism"]["estimator"]]["work_s"]
assert abs(k["collector_s"]-c)<1e-12 and abs(k["trace_collector_s"]-r["total_s"])<1e-12 and k["runs"]==2, (k, r)
assert abs(k["collector_pct"]-100*c/U)<1e-9, (k, c, U)
want="about %.3f s of CPU (%.1f%% of the program'"'"'s; its share by thread-samples of the %.3f s it used over the trace'"'"'s 2 runs)" % (c, 100*c/U, r["total_s"])
assert want in n[0]["text"], (n[0]["text"], want)' "$T/two.rec" "$T/two.json"
check "two runs: the table prints the JSON's note" python3 -c 'import json,sys
t=[x["text"] for x in json.load(open(sys.argv[1]))["coded_notes"] if x["code"]=="collector-shared"][0]
assert "note: "+t+"\n" in open(sys.argv[2]).read(), t' "$T/two.json" "$T/two.txt"

# one run: the whole trace's sampling is the run's
TR="$PMT_TOP/sample-traces/xz-T2-cpus01.zst"
records "$TR" >"$T/one.rec"
"$PMANALYZE" --format json "$TR" >"$T/one.json" 2>"$T/err"
check "one run: the note gives SUMMARY's sampling CPU as is" python3 -c 'import json,sys
r=json.load(open(sys.argv[1])); d=json.load(open(sys.argv[2]))
n=[x for x in d["coded_notes"] if x["code"]=="collector-shared"]
assert r["runs"]==1 and len(n)==1, (r, d["coded_notes"])
k=n[0]["values"]
assert abs(k["collector_s"]-r["total_s"])<1e-12, (k, r)
assert ", %.3f s of CPU (" % r["total_s"] in n[0]["text"] and "about" not in n[0]["text"], n[0]["text"]' \
	"$T/one.rec" "$T/one.json"
done_testing
