#!/bin/sh
# SPDX-License-Identifier: MIT
# The rows of the predictions table and what they stand for. A core count the --machine target
# lacks (n above its CPUs, hwloc PUs) gets no S, T, R or omega, in the table, the JSON
# (on_target "absent"), the CSV (its on_target column), the HTML table and the speedup plot,
# calibrated and uncalibrated alike; the rows up to the PUs are predicted, and those whose busy
# threads outnumber the cores say "smt" (omega not measured). Rows merged for equal values are
# labelled with the core counts they hold, never a range over counts not asked for.
. "$PMT_TOP/tests/cli/lib.sh"

FIX="$PMT_TOP/tests/fixtures"
CAL8="$FIX/traces/cal-triad-8t-rep3.zst"              # m = 8, calibrated on 1 and 2 CPUs
PIGZ="$PMT_TOP/sample-traces/pigz-8t-cpu0.zst"         # m = 10, no calibration
HYB="$FIX/hwloc/real-linuxfs__20em64t-hybrid-1p6c2t+2ca4co1t.xml"  # 14 cores, 20 PUs

for tr in "$CAL8" "$PIGZ"; do
	b=$(basename "$tr" .zst)
	"$PMANALYZE" -q --machine "$HYB" --cores 1-40 --format json "$tr" >"$T/$b.json"
	check "$b on a 14-core 20-PU target, --cores 1-40: no S for n > 20 (JSON on_target absent), S up to 20" \
		python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); t=d["memory"]["target_machine"]
assert (t["cores"], t["pus"]) == (14, 20), t
m=int(d["parallelism"]["m"])
for q in d["predictions"]:
    n=q["cores"]
    if n > 20:
        assert q["on_target"] == "absent", q
        assert all(q[k] is None for k in ("S", "S_err", "T_s", "R", "omega")), q
    else:
        assert q["on_target"] in ("cores", "smt") and q["S"] is not None, q
        assert q["on_target"] == ("smt" if min(n, m) > 14 else "cores"), q
assert d["optimal_cores"] <= 20' "$T/$b.json"
	"$PMANALYZE" -q --machine "$HYB" --cores 1-40 "$tr" >"$T/$b.txt"
	check "$b: the table's rows 21-40 print no S and say the target has 20 CPUs" python3 -c '
import re,sys
sec=open(sys.argv[1]).read().split("\npredictions (")[1].split("\n\n")[0].splitlines()[2:]
rows=[l for l in sec if "not on the target" in l]
assert len(rows) == 1, rows
w=rows[0].split()
assert w[0] == "21-40" and set(w[1:9]) == {"-"} and rows[0].rstrip().endswith("not on the target (20 CPUs)"), rows' "$T/$b.txt"
	"$PMANALYZE" -q --machine "$HYB" --cores 1-40 --format csv "$tr" >"$T/$b.csv"
	check "$b: the CSV's rows 21-40 have S nan and on_target absent" python3 -c '
import csv,io,sys
rows=list(csv.DictReader(io.StringIO(open(sys.argv[1]).read().split("\n\n")[0])))
assert len(rows) == 40, len(rows)
for r in rows:
    n=int(r["cores"])
    assert (r["on_target"] == "absent") == (n > 20), r
    if n > 20:
        assert r["S"] == "nan" and r["T_s"] == "nan", r' "$T/$b.csv"
done

# HTML and the plot of the uncalibrated trace: the absent rows say so and carry no S
"$PMANALYZE" -q --machine "$HYB" --cores 1-40 --html "$T/pigz.html" "$PIGZ" >/dev/null
check "HTML: rows 21-40 absent, with no S" python3 -c '
import re,sys
s=open(sys.argv[1]).read()
t=re.search(r"<table id=\"pred\">(.*?)</table>", s, re.S).group(1)
rows=re.findall(r"<tr[^>]*><td>(\d+)</td>(.*?)</tr>", t, re.S)
assert len(rows) == 40, len(rows)
for n, cells in rows:
    c=re.findall(r"<td[^>]*>(.*?)</td>", cells)
    assert (c[-1] == "absent") == (int(n) > 20), (n, c)
    if int(n) > 20:
        assert not any(re.match(r"^[0-9]", x) for x in c[:-1]), (n, c)' "$T/pigz.html"

# merged rows: only the core counts asked for (it printed "12-20" and "21-30")
"$PMANALYZE" -q --cores 12,14,15,20,21,30 "$PIGZ" >"$T/list.txt"
check "--cores 12,14,15,20,21,30: one merged row labelled 12,14-15,20-21,30" python3 -c '
import re,sys
sec=open(sys.argv[1]).read().split("\npredictions (")[1].split("\n\n")[0].splitlines()[2:]
rows=[l.split()[0] for l in sec if not l.startswith("optimal")]
assert rows == ["12,14-15,20-21,30"], rows' "$T/list.txt"
"$PMANALYZE" -q --machine "$HYB" --cores 12,14,15,20,21,30 "$PIGZ" >"$T/list2.txt"
check "--machine (20 CPUs) --cores 12,14,15,20,21,30: rows 12,14-15,20 and 21,30" python3 -c '
import re,sys
sec=open(sys.argv[1]).read().split("\npredictions (")[1].split("\n\n")[0].splitlines()[2:]
rows=[l.split()[0] for l in sec if not l.startswith("optimal")]
assert rows == ["12,14-15,20", "21,30"], rows' "$T/list2.txt"
done_testing
