#!/bin/sh
# SPDX-License-Identifier: MIT
# The "optimum <= m" note (analyzer/result/compute.c enforce_optimum, docs/model.md "Invariants")
# against what the trace holds. m threads keep at most m cores busy, so a row n > m predicts S(m)
# (busy_cores = m). With --cores listing no count from the best n <= m up to m, that row has the
# largest S: the optimum is still given over n <= m, and the note must say why the row n > m is
# larger. It said "only because omega falls as cores are added beyond the program's m threads"
# for a trace with no calibration at all (omega unknown, 0, in every row): a claim about the
# program's memory contention that nothing in the trace supports. m is taken from the records
# (pmanalyze --dump: the peak of simultaneously live threads in the samples), not from the report.
. "$PMT_TOP/tests/cli/lib.sh"

TR="$PMT_TOP/sample-traces/pigz-8t-cpu0.zst"
m=$("$PMANALYZE" --dump "$TR" | python3 -c 'import json,sys
print(max(len(d["threads"]) for l in sys.stdin for d in [json.loads(l)] if d["type"]=="sample"))')
check "pigz: m from the samples is 10 (the fixture's peak of live threads)" test "$m" = 10

"$PMANALYZE" --cores 1,2,16 --format json "$TR" >"$T/cap.json" 2>"$T/err"
"$PMANALYZE" --cores 1,2,16 "$TR" >"$T/cap.txt" 2>&1
check "--cores 1,2,16: no omega in any row, the row 16 runs m busy cores and has the largest S" \
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); m=int(sys.argv[2]); p={q["cores"]:q for q in d["predictions"]}
assert sorted(p)==[1,2,16], sorted(p)
assert all(q["omega"] is None and q["omega_source"]=="none" for q in p.values()), p
assert p[16]["busy_cores"]==m and p[16]["S"] > p[2]["S"], p[16]
assert d["optimal_cores"]==2, d["optimal_cores"]' "$T/cap.json" "$m"
check "--cores 1,2,16: the inv-opt-cap note names S(16), m and the optimum over n <= m, and no falling omega" \
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); m=int(sys.argv[2]); p={q["cores"]:q for q in d["predictions"]}
n=[x for x in d["coded_notes"] if x["code"]=="inv-opt-cap"]
assert len(n)==1, d["coded_notes"]
t=n[0]["text"]
assert "omega falls" not in t, t
want="S is largest at n = 16 (S = %.2f), more cores than the program'"'"'s %d threads, which keep at most %d cores busy" % (p[16]["S"], m, m)
assert want in t, (t, want)
assert "the optimum is given over n <= m: 2 cores (S = %.2f)" % p[2]["S"] in t, t
assert t.endswith("no core count from 3 to %d was asked for: add them to --cores to place the optimum there" % m), t
k=n[0]["values"]
assert [k["n_best"], k["m"], k["n_opt"], k["n_listed"]]==[16, m, 2, 2], k
assert abs(k["S_best"]-p[16]["S"])<1e-12 and abs(k["S_opt"]-p[2]["S"])<1e-12, k' "$T/cap.json" "$m"
check "--cores 1,2,16: the table prints the JSON's note" python3 -c 'import json,sys
t=[x["text"] for x in json.load(open(sys.argv[1]))["coded_notes"] if x["code"]=="inv-opt-cap"][0]
assert "note: "+t+"\n" in open(sys.argv[2]).read(), t' "$T/cap.json" "$T/cap.txt"

# m listed: the row n = m holds S(m), the optimum is there, and no note
"$PMANALYZE" --cores 1,2,"$m",16 --format json "$TR" >"$T/m.json" 2>"$T/err"
check "--cores 1,2,m,16: the optimum at n <= m with S(m), no inv-opt-cap note" python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); m=int(sys.argv[2]); p={q["cores"]:q for q in d["predictions"]}
assert d["optimal_cores"]<=m and abs(d["optimal"]["S"]-p[m]["S"])<1e-12, (d["optimal_cores"], d["optimal"])
assert not any(x["code"]=="inv-opt-cap" for x in d["coded_notes"]), d["coded_notes"]' "$T/m.json" "$m"
done_testing
