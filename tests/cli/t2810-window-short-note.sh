#!/bin/sh
# SPDX-License-Identifier: MIT
# A window of fewer than about 100 sampling intervals gets the window-short note, with the count;
# a window of more gets none. Fixtures (tests/fixtures/README.md): window-short.zst (19
# intervals in 0.31 s), window-300-intervals.zst (3 s at 10 ms).
. "$PMT_TOP/tests/cli/lib.sh"

fx="$PMT_TOP/tests/fixtures/traces"
run_capture "$PMANALYZE" "$fx/window-short.zst"
expect_status "pmanalyze of a window of 19 intervals" 0
check "the window-short note with its 19 intervals and 0.31 s" grep -qx \
	"note: the window holds 19 sampling intervals (0.31 s), fewer than about 100: the sampled estimators' uncertainty is large; record a longer window (--duration) or a shorter interval (-i)" "$T/out"
"$PMANALYZE" --format json "$fx/window-short.zst" >"$T/json" 2>/dev/null
check "JSON: window-short, values.intervals 19, values.least 100" python3 -c '
import json, sys
n = [x for x in json.load(open(sys.argv[1]))["coded_notes"] if x["code"] == "window-short"]
assert n and n[0]["values"]["intervals"] == 19 and n[0]["values"]["least"] == 100, n' "$T/json"
run_capture "$PMANALYZE" "$fx/window-300-intervals.zst"
expect_status "pmanalyze of a 3 s window at 10 ms" 0
check "no window-short note on a window of over 100 intervals" \
	sh -c '! grep -q "^note: the window holds" "$1"' sh "$T/out"
done_testing
