#!/bin/sh
# SPDX-License-Identifier: MIT
# pmanalyze --plot and --html on a trace of pmcollect --interfere (issue 15; Casas & Bronevetsky
# §5.2), tests/fixtures/traces/interfere-synthetic-bw.zst: a program 50% slower by construction
# whenever a BWThr runs (README there). --plot writes the interference plot only; its SVG parses
# and holds the curve, threshold, degraded and need colours (analyzer/render/plot.h), its PNG has ink of
# the curve and of the degraded level inside the plot area; the HTML report's verdict and curve
# table hold the JSON report's numbers.
. "$PMT_TOP/tests/cli/lib.sh"

S="$PMT_TOP/tests/fixtures/traces/interfere-synthetic-bw.zst"
"$PMANALYZE" -F json "$S" >"$T/r.json" 2>"$T/r.err"
if [ "$(json_get "$T/r.json" interference.verdict)" = sensitive ] && [ "$(json_get "$T/r.json" interference.k_bad)" = 1 ]; then
	ok "the fixture is sensitive by construction: k_bad = 1"
else not_ok "the fixture is sensitive by construction" "$(head -c 400 "$T/r.json") $(cat "$T/r.err")"; fi

run_capture "$PMANALYZE" -q --plot "$T/svg" "$S"
expect_status "--plot on an interference trace (exit 0)" 0
if [ "$(ls "$T/svg")" = interference.svg ]; then ok "--plot writes interference.svg only (the speedup plots do not apply)"
else not_ok "--plot writes interference.svg only" "$(ls "$T/svg" | tr '\n' ' ')"; fi
if python3 - "$T/svg/interference.svg" >"$T/py.out" 2>&1 <<'EOF'
import re, sys, xml.etree.ElementTree as ET
data = open(sys.argv[1], "rb").read()
root = ET.fromstring(data)
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
seen = set()
for r, g, b in re.findall(rb"rgb\(([\d.]+)%, *([\d.]+)%, *([\d.]+)%\)", data):
    seen.add("%02x%02x%02x" % tuple(round(float(v) * 255 / 100) for v in (r, g, b)))
# curve 1f77b4, threshold ff7f0e, degraded level d62728, need band 9467bd, zero line 7f7f7f
missing = [c for c in ("1f77b4", "ff7f0e", "d62728", "9467bd", "7f7f7f") if c not in seen]
assert not missing, "series colours missing: %s" % missing
print("%d bytes" % len(data))
EOF
then ok "interference.svg parses and has the curve, threshold, degraded and need colours ($(cat "$T/py.out"))"
else not_ok "interference.svg parses and has its series" "$(tail -3 "$T/py.out")"; fi

run_capture "$PMANALYZE" -q --plot "$T/png" --plot-format png "$S"
expect_status "--plot-format png on an interference trace (exit 0)" 0
# ink: pixels of the curve's and the degraded level's colours inside the plot area
# (pngpix.plot_area_counts: the margins of analyzer/render/plot.c)
if python3 - "$T/png/interference.png" "$PMT_TOP/tests/cli" >"$T/py.out" 2>&1 <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
import pngpix
curve, degraded = pngpix.plot_area_counts(sys.argv[1], ["1f77b4", "d62728"])
assert curve > 100 and degraded > 20, "curve %d px, degraded %d px" % (curve, degraded)
print("curve %d px, degraded %d px" % (curve, degraded))
EOF
then ok "interference.png has ink in the plot area ($(cat "$T/py.out"))"
else not_ok "interference.png has ink in the plot area" "$(tail -3 "$T/py.out")"; fi

run_capture "$PMANALYZE" -q --html "$T/r.html" "$S"
expect_status "--html on an interference trace (exit 0)" 0
if python3 - "$T/r.html" "$T/r.json" >"$T/py.out" 2>&1 <<'EOF'
import html.parser, json, sys
page = open(sys.argv[1]).read()
x = json.load(open(sys.argv[2]))["interference"]
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.ids, self.rows, self.cell, self.where = [], [], None, None
        self.summary = None
    def handle_starttag(self, tag, a):
        a = dict(a)
        if "id" in a: self.ids.append(a["id"]); self.where = a["id"] if tag in ("table", "p") else self.where
        if self.where == "interference-curve" and tag == "tr": self.rows.append([])
        if self.where == "interference-curve" and tag == "td": self.cell = ""
    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None: self.rows[-1].append(self.cell.strip()); self.cell = None
        if tag in ("table", "p"): self.where = None
    def handle_data(self, d):
        if self.cell is not None: self.cell += d
        if self.where == "interference-summary": self.summary = (self.summary or "") + d
p = P(); p.feed(page)
assert "<script" not in page
assert p.summary == x["summary"], (p.summary, x["summary"])
rows = [r for r in p.rows if r]
assert len(rows) == len(x["curve"]), (rows, x["curve"])
for r, c in zip(rows, x["curve"]):
    assert int(r[0]) == c["k"], (r, c)
    assert abs(float(r[1]) - c["left_bytes_per_s"] / 1e9) < 0.006, (r, c)
    for i, key in ((2, "runtime_s"), (3, "min_s"), (4, "max_s")):
        assert abs(float(r[i]) - c[key]) < 0.0006, (key, r, c)
    assert abs(float(r[5]) - 100 * c["slowdown"]) < 0.06, (r, c)
    assert (r[8] == "yes") == c["degraded"], (r, c)
assert "plot-interference" in p.ids and "kpi-A" not in p.ids
print("%d rows, summary '%s'" % (len(rows), p.summary))
EOF
then ok "the HTML report: verdict and curve rows as in the JSON report, the plot inline ($(cat "$T/py.out"))"
else not_ok "the HTML report matches the JSON report" "$(tail -3 "$T/py.out")"; fi

done_testing
