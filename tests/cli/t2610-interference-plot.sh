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
if python3 "$PMT_TOP/tests/cli/checks.py" interference_plot_svg "$T/svg/interference.svg" >"$T/py.out" 2>&1
then ok "interference.svg parses and has the curve, threshold, degraded and need colours ($(cat "$T/py.out"))"
else not_ok "interference.svg parses and has its series" "$(tail -3 "$T/py.out")"; fi

run_capture "$PMANALYZE" -q --plot "$T/png" --plot-format png "$S"
expect_status "--plot-format png on an interference trace (exit 0)" 0
# ink: pixels of the curve's and the degraded level's colours inside the plot area
# (pngpix.plot_area_counts: the margins of analyzer/render/plot.c)
if python3 "$PMT_TOP/tests/cli/checks.py" interference_plot_png "$T/png/interference.png" "$PMT_TOP/tests/cli" >"$T/py.out" 2>&1
then ok "interference.png has ink in the plot area ($(cat "$T/py.out"))"
else not_ok "interference.png has ink in the plot area" "$(tail -3 "$T/py.out")"; fi

run_capture "$PMANALYZE" -q --html "$T/r.html" "$S"
expect_status "--html on an interference trace (exit 0)" 0
if python3 "$PMT_TOP/tests/cli/checks.py" interference_html "$T/r.html" "$T/r.json" >"$T/py.out" 2>&1
then ok "the HTML report: verdict and curve rows as in the JSON report, the plot inline ($(cat "$T/py.out"))"
else not_ok "the HTML report matches the JSON report" "$(tail -3 "$T/py.out")"; fi

done_testing
