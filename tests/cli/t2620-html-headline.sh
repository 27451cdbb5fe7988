#!/bin/sh
# SPDX-License-Identifier: MIT
# The HTML report's headline and its "What to do next" list say what the tables say (issue 29,
# items 1 and 2). On the calibrated golden trace (omega known on 1-2 cores only) the headline said
# "At n = 2, A(m,n) reaches the program's average parallelism A(m,inf) = 2.41" beside A(m,2) = 1.78,
# and "What to do next" began with the invariant note "invariant L >= 0: ...", which asks for no
# action. Now the headline names the limit (omega unknown beyond n = 2), any "reaches" claim is
# checked against the prediction table, and only notes with an action are listed as things to do.
. "$(dirname "$0")/lib.sh"

G="$PMT_TOP/tests/golden/cal-phases-4t.zst"
run_capture "$PMANALYZE" -q --html "$T/cal.html" -F json -o "$T/cal.json" "$G"
expect_status "--html of the calibrated golden trace (exit 0)" 0
# headline_check HTML JSON: every number of the headline's "why" equals the JSON report's
headline_check() { python3 - "$1" "$2" <<'PY'
import html, json, re, sys
page = open(sys.argv[1]).read()
rep = json.load(open(sys.argv[2]))
why = html.unescape(re.search(r'id="best-why">(.*?)</p>', page, re.S).group(1))
preds = {p["cores"]: p for p in rep["predictions"]}
A_inf = rep["parallelism"]["A_inf"]
m = re.search(r"At n = (\d+), A\(m,n\) reaches the program's average parallelism A\(m,∞\) = ([0-9.]+)", why)
if m:
    n = int(m.group(1))
    assert abs(preds[n]["A"] - A_inf) <= 0.005 * A_inf, "claims A(m,%d) reaches %.2f, table A = %.2f: %s" % (n, A_inf, preds[n]["A"], why)
m = re.search(r"n = (\d+) is the largest core count with a known memory contention", why)
if m:
    n = int(m.group(1))
    assert preds[n]["omega"] is not None and any(p["omega"] is None for c, p in preds.items() if c > n), why
print(why)
PY
}
if headline_check "$T/cal.html" "$T/cal.json" >"$T/why" 2>&1 &&
   grep -q "^n = 2 is the largest core count with a known memory contention ω(n): beyond it ω is unknown" "$T/why"
then ok "calibrated trace: the headline names the limit of the known omega, no false 'reaches A(m,inf)'"
else not_ok "calibrated trace: the headline names the limit of the known omega, no false 'reaches A(m,inf)'" "$(cat "$T/why")"; fi

# A generated trace (gentrace seed 24) whose own runs measured S(2) = 6.50 against 2.00 predicted:
# the optimum takes the measurement (KPI and the table's optimal line: S = 6.50), and the "why"
# sentence gives that S, saying it was measured, not the prediction as "the largest predicted"
"$(dirname "$W")/bench/gentrace" "$T/s24.zst" 4 0.6 24 >/dev/null
"$PMANALYZE" "$T/s24.zst" >"$T/s24.txt" 2>/dev/null
"$PMANALYZE" -q --html "$T/s24.html" "$T/s24.zst" >/dev/null 2>&1
check "measured optimum: the table's optimal line, the KPI and the why sentence give one S" python3 -c 'import html,re,sys
page=open(sys.argv[1]).read(); txt=open(sys.argv[2]).read()
opt=re.search(r"^optimal +(\d+) cores? \(S = ([0-9.]+)[,)]", txt, re.M)
assert opt and opt.group(1)=="2" and opt.group(2)=="6.50", opt
why=html.unescape(re.search(r"id=\"best-why\">(.*?)</p>", page, re.S).group(1))
assert why.startswith("At n = 2, S(m,n) = 6.50 is the largest (measured by the trace'"'"'s runs): A(m,n) = 2.00 of"), why
kpi=re.search(r"id=\"kpi-best\">.*?best core count: S = ([0-9.]+)", page, re.S)
assert kpi and kpi.group(1)=="6.50", kpi' "$T/s24.html" "$T/s24.txt"

# section_items HTML ID: the <li> of section ID, one per line, unescaped
section_items() { python3 - "$1" "$2" <<'PY'
import html, re, sys
page = open(sys.argv[1]).read()
sec = re.search(r'<section id="%s">(.*?)</section>' % sys.argv[2], page, re.S)
for li in re.findall(r"<li>(.*?)</li>", sec.group(1) if sec else "", re.S):
    print(html.unescape(re.sub(r"<[^>]*>", "", li)).replace("\n", " "))
PY
}
section_items "$T/cal.html" next >"$T/next"
section_items "$T/cal.html" notes >"$T/notes"
if [ -s "$T/next" ] && ! grep -q "invariant" "$T/next" && [ "$(grep -vc "Why: " "$T/next")" -eq 0 ] &&
   grep -q "^invariant L >= 0: the fit of eq. 8 gives L = " "$T/notes"
then ok "What to do next: only notes with an action; the invariant note under Notes"
else not_ok "What to do next: only notes with an action; the invariant note under Notes" "next:" "$(cat "$T/next")" "notes:" "$(cat "$T/notes")"; fi

done_testing
