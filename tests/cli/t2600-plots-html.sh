#!/bin/sh
# SPDX-License-Identifier: MIT
# pmanalyze --plot and --html on the recorded sample traces: every plot parses as SVG with its
# series (the palette colours of analyzer/render/plot.h) and stays under a size bound, PNGs decode at
# their size; the HTML report in headless Chromium (Debian's chromium, installed here through
# .ci/deps.sh when missing; the browser checks are skipped, never passed, when it cannot be):
# --dump-dom holds A(m,inf), the optimal n and one row per prediction, as the JSON report says;
# screenshots at 1280 and 375 px (kept in $T for the closing note) show ink in every plot's box;
# a trace whose program is named <script> renders it as text and runs nothing.
. "$PMT_TOP/tests/cli/lib.sh"

S="$PMT_TOP/sample-traces/pipeline-4t-cpu0-sched.zst"

# --- plots ------------------------------------------------------------------------------------
run_capture "$PMANALYZE" -q --plot "$T/svg" "$S"
expect_status "--plot writes the plots (exit 0)" 0
# series per plot: the colours that must appear in each (plot.h: PMA_PLOT_C_*)
cat >"$T/series.txt" <<'EOF'
speedup 1f77b4 7f7f7f d62728 ff7f0e 2ca02c
profile 1f77b4 d62728
histogram 1f77b4
timeline 2ca02c ff7f0e d9d9d9 000000
EOF
while read -r name colours; do
	if python3 "$PMT_TOP/tests/cli/checks.py" plot_svg_colours "$T/svg/$name.svg" $colours >"$T/py.out" 2>&1
	then ok "$name.svg parses, has its $(echo $colours | wc -w) series colours, under 600 kB ($(cat "$T/py.out"))"
	else not_ok "$name.svg parses, has its series" "$(tail -3 "$T/py.out")"; fi
done <"$T/series.txt"
if [ ! -e "$T/svg/omega.svg" ] || python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$T/svg/omega.svg"; then
	ok "omega plot: absent or well-formed"
else not_ok "omega plot well-formed"; fi

run_capture "$PMANALYZE" -q --plot "$T/png" --plot-format png "$S"
expect_status "--plot-format png (exit 0)" 0
for name in speedup profile histogram timeline; do
	if python3 "$PMT_TOP/tests/cli/checks.py" plot_png_ink "$T/png/$name.png" >"$T/py.out" 2>&1
	then ok "$name.png decodes ($(cat "$T/py.out"))"
	else not_ok "$name.png decodes" "$(tail -3 "$T/py.out")"; fi
done
case "$(cat "$T/py.out")" in 960x*) ok "timeline.png is 960 px wide" ;; *) not_ok "timeline.png width" "$(cat "$T/py.out")" ;; esac

run_capture "$PMANALYZE" -q --plot-format jpg "$S"
expect_status "--plot-format jpg is a usage error (exit 2)" 2
if head -1 "$T/err" | grep -q "^pmanalyze: error: invalid --plot-format 'jpg': want svg or png$"; then
	ok "the error line names --plot-format's values"
else not_ok "the error line for --plot-format jpg" "$(head -2 "$T/err")"; fi

# --- HTML in headless Chromium ----------------------------------------------------------------
run_capture "$PMANALYZE" -q --html "$T/report.html" -F json -o "$T/report.json" "$S"
expect_status "--html writes the report (exit 0)" 0
if grep -q '<script' "$T/report.html" || grep -Eq '(src|href)="(https?:)?//' "$T/report.html"; then
	not_ok "the report has no script and no network reference"
else ok "the report has no script and no network reference"; fi

# the later capabilities' sections (issue 14): a sweep's measured-vs-predicted table, one row per
# configuration; an --omp-regions trace's regions table, one row per region; the energy section
# says why there is no estimate on a machine without energy readings
# section_rows FILE ID: the rows of <table id=ID> in the report's <section id=ID>
section_rows() { python3 -c 'import re,sys
s=open(sys.argv[1]).read()
m=re.search(r"<section id=\"%s\">(.*?)</section>" % sys.argv[2], s, re.S)
t=m and re.search(r"<table id=\"%s\">.*?<tbody>(.*?)</tbody>" % sys.argv[2], m.group(1), re.S)
print(len(re.findall("<tr", t.group(1))) if t else -1)' "$1" "$2"; }
check "no sweep: the scaling section says how to record one" grep -q 'No sweep runs in the trace: record them with <code>pmcollect --sweep' "$T/report.html"
run_capture "$PMCOLLECT" -q --sweep cores=1,2 -t 2 -o "$T/sweep.zst" -- "$W/phases" -t 2 -w 20 -r 1 balanced
"$PMANALYZE" -q --html "$T/sweep.html" "$T/sweep.zst" >/dev/null 2>"$T/err"
check "sweep cores=1,2: the scaling table has 2 rows (one per configuration)" test "$(section_rows "$T/sweep.html" scaling)" = 2
KMP_BLOCKTIME=0 run_capture "$PMCOLLECT" -q --omp-regions -t 2 -o "$T/omp.zst" -- "$W/omp_regions" -w 5 -n 5
"$PMANALYZE" -q --html "$T/omp.html" --format json -o "$T/omp.json" "$T/omp.zst" 2>"$T/err"
nreg=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["regions"]["rows"]))' "$T/omp.json" 2>/dev/null)
check "omp_regions: the regions table has one row per region of the JSON report ($nreg)" test "$(section_rows "$T/omp.html" regions)" = "${nreg:-x}"
check "omp_regions: a region named by its function and source line" grep -q '<td><code>imbalanced [^<]*omp_regions.c:[0-9]*</code></td>' "$T/omp.html"
check "energy: without readings the section says why there is no estimate" python3 -c 'import re,sys
m=re.search(r"<section id=\"energy\">\s*<h2>Energy</h2>\s*<p>No energy estimate: ([^<]{10,})\.</p>", open(sys.argv[1]).read())
assert m, "no reason"' "$T/omp.html"

# the browser renders the same HTML in both builds: it runs in the normal build, and under the
# sanitizers only pmanalyze --html above (what they check) runs
if [ "$PMT_SANITIZED" = 1 ]; then
	for what in "screenshots at 1280 and 375 px" "DOM of the report" "hostile program name"; do
		skip "$what" "the browser checks run in the normal build (same HTML); here pmanalyze --html ran under the sanitizers"
	done
	done_testing
	exit
fi
browser=$(command -v chromium || true)
if [ -z "$browser" ]; then
	sh "$PMT_TOP/.ci/deps.sh" chromium >"$T/deps.log" 2>&1
	browser=$(command -v chromium || true)
fi
skip_all() { for what in "$@"; do tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $what: chromium cannot be installed ($(tail -1 "$T/deps.log" 2>/dev/null))"; done; }
if [ -z "$browser" ]; then
	skip_all "screenshots at 1280 and 375 px" "DOM of the report" "hostile program name"
	done_testing
	exit
fi
# headless, as root in CI (no sandbox), no network, a profile of its own per call
chrome() { timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
	--user-data-dir="$T/chrome-profile" --proxy-server=127.0.0.1:9 --hide-scrollbars "$@" 2>>"$T/chrome.log"; }

# --- a hostile program name: recorded here, framed by the 1280 px page below ----------------------
# argv holds a script that would mark the page if it ran; the program's executable (and so its
# comm) is a link named <script>
hostile='<script>document.documentElement.setAttribute("data-pwned","1")</script>'
ln -sf "$W/phases" "$T/<script>"
run_capture "$PMCOLLECT" -q --cpus 0 -o "$T/hostile.zst" -- sh -c 'exec "$1" -t 2 -w 10 -r 2 mixed' "$hostile" "$T/<script>"
expect_status "recording the hostile-named program (exit 0)" 0
run_capture "$PMANALYZE" -q --html "$T/hostile.html" --plot "$T/hostile-svg" "$T/hostile.zst"
expect_status "its report and plots (exit 0)" 0
if ! grep -qi 'script' "$T/hostile-svg/speedup.svg"; then ok "the SVG plots carry the name as glyphs, not markup"
else not_ok "no markup from the name in the SVG"; fi

# The page's layout: a page of the test's own (scripts allowed here, not in the report) frames the
# report at a given width and writes each plot's box into its DOM; the screenshot of the same
# page at the same width shows the plots there.
layout_page() { # WIDTH HEIGHT OUT
	cat >"$3" <<EOF
<!DOCTYPE html><html><head><style>body{margin:0}iframe{border:0;display:block}</style></head>
<body><iframe id="f" src="report.html" style="width:$1px;height:$2px"></iframe><pre id="boxes"></pre>
<iframe id="h" src="hostile.html" style="width:$1px;height:100px"></iframe><pre id="dom"></pre><pre id="hdom"></pre>
<script>
document.getElementById('h').onload = function () {
  var d = this.contentDocument;
  document.getElementById('hdom').textContent = 'pwned=' + d.documentElement.hasAttribute('data-pwned') +
    ' scripts=' + d.getElementsByTagName('script').length + '\n' + d.documentElement.outerHTML;
};
document.getElementById('f').onload = function () {
  var d = this.contentDocument, out = [''];
  document.getElementById('dom').textContent = d.documentElement.outerHTML;
  d.querySelectorAll('figure.plot svg').forEach(function (s) {
    var r = s.getBoundingClientRect();
    out.push([s.parentNode.id, Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)].join(' '));
  });
  out.push('scrollWidth ' + d.documentElement.scrollWidth);
  document.getElementById('boxes').textContent = out.join('\n');
};
</script></body></html>
EOF
}
for width in 1280 375; do
	height=$( [ "$width" = 1280 ] && echo 4200 || echo 3200 )
	layout_page "$width" "$height" "$T/layout-$width.html"
	chrome --allow-file-access-from-files --virtual-time-budget=5000 --dump-dom \
		"file://$T/layout-$width.html" >"$T/layout-$width.dom"
	chrome --allow-file-access-from-files --virtual-time-budget=5000 \
		--window-size="$width,$height" --screenshot="$T/report-$width.png" \
		"file://$T/layout-$width.html" >/dev/null
	if python3 "$PMT_TOP/tests/cli/checks.py" html_screenshot "$T/report-$width.png" "$T/layout-$width.dom" "$width" "$PMT_TOP/tests/cli" >"$T/py.out" 2>&1
	then ok "screenshot at $width px: every plot drawn inside its box, no horizontal scrolling ($(cat "$T/py.out")); $T/report-$width.png"
	else not_ok "screenshot at $width px" "$(tail -3 "$T/py.out")" "$(tail -3 "$T/chrome.log")"; fi
done

if python3 "$PMT_TOP/tests/cli/checks.py" html_dom_numbers "$T/layout-1280.dom" "$T/report.json" >"$T/py.out" 2>&1
then ok "DOM holds the headline and every prediction row: $(cat "$T/py.out")"
else not_ok "DOM holds the headline numbers" "$(tail -3 "$T/py.out")"; fi

if python3 "$PMT_TOP/tests/cli/checks.py" html_dom_layout "$T/layout-1280.dom" >"$T/py.out" 2>&1
then ok "the hostile name shows as text and no script ran ($(cat "$T/py.out"))"
else not_ok "the hostile name shows as text and no script ran" "$(tail -3 "$T/py.out")"; fi

done_testing
