#!/bin/sh
# SPDX-License-Identifier: MIT
# The stationarity check's C(n) by quarter: C per instruction over each quarter of the recording
# from the counter snapshots (COUNTERS records), on generated traces whose answer is known by
# construction (gentrace cpi=: cycles at 2 per ns of CPU time, instructions at the given cycles
# per instruction in each quarter of the run; the schedule of t2830's steady case, 4 s, a window):
# - CPI 1.5 in every quarter: each quarter reads 1.50, they agree, no not-stationary-cost note;
# - CPI 1.5 then 3 (doubling in the second half): quarters 1.50, 1.50, 3.00, 3.00 and the note,
#   worded for a window and for a whole run;
# - snapshots every 10th sample (a -p window of many threads, FORMAT.md §5.5): the same quarters;
#   every 40th (2.5 per quarter): too few, said;
# - cycles alone (GHz: 2.00 in every quarter) and instructions alone (CPU ns per instruction 0.75
#   then 1.5);
# - a recording too short for A's quarters (0.5 s: 50 sampled intervals) still gets C's;
# - the HTML page's quarters table has C's columns;
# - a snapshot whose counts go back (a broken trace): the reason, no number;
# - a trace cut short before RUN_END (no names for the snapshots' columns): the reason;
# - no snapshots: the reason, in the section and in JSON, never a number.
. "$PMT_TOP/tests/cli/lib.sh"

GEN="$(dirname "$W")/bench/gentrace"
if [ ! -x "$GEN" ]; then
	ok "stationarity of C # SKIP gentrace not built (make tests)"; done_testing; exit 0
fi
sched="sched period_ms=200 serial_ms=50"
"$GEN" "$T/flat.zst" 4 4 $sched window=10 cpi=1.5 >/dev/null
"$GEN" "$T/double.zst" 4 4 $sched window=10 cpi=1.5:1.5:3:3 >/dev/null
"$GEN" "$T/double-run.zst" 4 4 $sched cpi=1.5:1.5:3:3 >/dev/null
"$GEN" "$T/every10.zst" 4 4 $sched window=10 cpi=1.5:1.5:3:3 snap_every=10 >/dev/null
"$GEN" "$T/every40.zst" 4 4 $sched window=10 cpi=1.5:1.5:3:3 snap_every=40 >/dev/null
"$GEN" "$T/cycles.zst" 4 4 $sched window=10 cpi=1.5:1.5:3:3 counted=c >/dev/null
"$GEN" "$T/ins.zst" 4 4 $sched window=10 cpi=1.5:1.5:3:3 counted=i >/dev/null
"$GEN" "$T/none.zst" 4 4 $sched window=10 >/dev/null
"$GEN" "$T/short.zst" 4 0.5 window=10 cpi=1.5:1.5:3:3 >/dev/null
"$GEN" "$T/back.zst" 4 4 $sched window=10 cpi=1.5 snap_back=1 >/dev/null
"$GEN" "$T/long.zst" 16 40 $sched cpi=1.5 >/dev/null
head -c $(($(wc -c <"$T/long.zst") * 9 / 10)) "$T/long.zst" >"$T/cut.zst"

# c_check FILE.json CODE: CODE (python) with s the stationarity object, c its C_by_quarter, q and e
# the quarters' C and C_err (None when absent)
c_check() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
s = d["stationarity"]
c = s["C_by_quarter"]
q = [x.get("C") for x in s["quarters"]]
e = [x.get("C_err") for x in s["quarters"]]
notes = [x for x in d["coded_notes"] if x["code"] == "not-stationary-cost"]
exec(sys.argv[2])' "$@"
}

run_capture "$PMANALYZE" "$T/flat.zst"
expect_status "pmanalyze of CPI 1.5 throughout" 0
check "CPI 1.5: the section names C by quarter and its snapshots" grep -qx \
	"             C(n) by quarter: cycles per instruction, from 401 counter snapshots" "$T/out"
check "CPI 1.5: every quarter reads 1.50 ± 0.00" sh -c '[ "$(grep -Ec "^        [1-4] +[0-9.]+ +1\.000 +[0-9.]+ +[0-9.]+ +1\.50 +0\.00$" "$1")" -eq 4 ]' sh "$T/out"
check "CPI 1.5: C's quarters agree, no note" sh -c 'grep -qx "  C'"'"'s quarters agree within their uncertainty (chi-square over the four: p = .* >= 0.001)" "$1" && ! grep -q "C(n) per instruction is" "$1"' sh "$T/out"
"$PMANALYZE" --format json "$T/flat.zst" >"$T/flat.json" 2>/dev/null
check "CPI 1.5 JSON: cycles per instruction 1.5 in every quarter, agree" c_check "$T/flat.json" \
	'assert c["checked"] and c["quantity"] == "cycles_per_instruction" and c["agree"], c
assert c["snapshots"] == 401, c
assert all(abs(x - 1.5) < 1e-6 for x in q), q
assert not notes, notes'

run_capture "$PMANALYZE" "$T/double.zst"
check "CPI doubling: quarters 1.50, 1.50, 3.00, 3.00" sh -c '[ "$(grep -E "^        [1-4] " "$1" | awk "{print \$1, \$6, \$7}" | tr "\n" ";")" = "1 1.50 0.00;2 1.50 0.00;3 3.00 0.00;4 3.00 0.00;" ]' sh "$T/out"
check "CPI doubling: the note for a window" grep -qx \
	"note: the window is not representative: C(n) per instruction is 3.00 ± 0.00 cycles in quarter 3 and 1.50 ± 0.00 in quarter 2 (counter snapshots), apart beyond their uncertainty (chi-square over the four quarters: p = 0 < 0.001); record a longer one, or later (--delay, --duration)" "$T/out"
"$PMANALYZE" --format json "$T/double.zst" >"$T/double.json" 2>/dev/null
check "CPI doubling JSON: the constructed values, disagree, the coded note" c_check "$T/double.json" \
	'assert c["checked"] and not c["agree"] and c["p"] == 0, c
assert all(abs(x - t) < 1e-6 for x, t in zip(q, [1.5, 1.5, 3, 3])), q
assert len(notes) == 1 and notes[0]["values"]["window"] == 1 and notes[0]["values"]["kind"] == 1, notes
assert s["agree"], "A is steady: " + str(s["agree"])'
run_capture "$PMANALYZE" "$T/double-run.zst"
check "CPI doubling over a whole run: the note in its whole-run wording" grep -qx \
	"note: the run's cost changes over time: C(n) per instruction is 3.00 ± 0.00 cycles in quarter 3 and 1.50 ± 0.00 in quarter 2 (counter snapshots), apart beyond their uncertainty (chi-square over the four quarters: p = 0 < 0.001); C(n) of the whole run is their mix, and a window of one part (--delay, --duration) describes that part only" "$T/out"

"$PMANALYZE" --format json "$T/every10.zst" >"$T/every10.json" 2>/dev/null
check "a snapshot every 10th sample: 40 of them and the one at the start, the same quarters" c_check "$T/every10.json" \
	'assert c["checked"] and c["snapshots"] == 41 and not c["agree"], c
assert all(abs(x - t) < 1e-6 for x, t in zip(q, [1.5, 1.5, 3, 3])), q'
run_capture "$PMANALYZE" "$T/every40.zst"
check "a snapshot every 40th sample: too few, said in the section" grep -qx \
	"  C(n) by quarter not checked: too few counter snapshots: a quarter holds fewer than 4 (one per two eighths of it)" "$T/out"

"$PMANALYZE" --format json "$T/cycles.zst" >"$T/cycles.json" 2>/dev/null
check "cycles alone: cycles per CPU-second, 2e9 in every quarter" c_check "$T/cycles.json" \
	'assert c["checked"] and c["quantity"] == "cycles_per_cpu_s" and c["agree"], c
assert all(abs(x - 2e9) < 1 for x in q), q'
run_capture "$PMANALYZE" "$T/cycles.zst"
check "cycles alone: the GHz column reads 2.00" sh -c '[ "$(grep -Ec "^        [1-4] .* 2\.00 +0\.00$" "$1")" -eq 4 ] && grep -q " GHz " "$1"' sh "$T/out"
"$PMANALYZE" --format json "$T/ins.zst" >"$T/ins.json" 2>/dev/null
check "instructions alone: CPU ns per instruction 0.75, 0.75, 1.5, 1.5" c_check "$T/ins.json" \
	'assert c["checked"] and c["quantity"] == "cpu_ns_per_instruction" and not c["agree"], c
assert all(abs(x - t) < 1e-6 for x, t in zip(q, [0.75, 0.75, 1.5, 1.5])), q
assert len(notes) == 1 and notes[0]["values"]["kind"] == 2, notes'

"$PMANALYZE" --format json "$T/short.zst" >"$T/short.json" 2>/dev/null
check "too short for A's quarters: C's quarters alone, 1.5, 1.5, 3, 3" c_check "$T/short.json" \
	'assert not s["checked"] and "too few sampled intervals" in s["why"], s
assert c["checked"] and c["snapshots"] == 51 and not c["agree"], c
assert [x["start_s"] for x in s["quarters"]] == [0, 0.125, 0.25, 0.375], s["quarters"]
assert all(abs(x - t) < 1e-6 for x, t in zip(q, [1.5, 1.5, 3, 3])), q
assert len(notes) == 1, notes'
run_capture "$PMANALYZE" "$T/short.zst"
check "too short for A's quarters: the section gives C's table" sh -c 'grep -qx "  C(n) by quarter (cycles per instruction, 51 counter snapshots)" "$1" && [ "$(grep -Ec "^        [1-4] +[0-9.]+ +0\.125 +(1\.50|3\.00) +0\.00$" "$1")" -eq 4 ]' sh "$T/out"

"$PMANALYZE" --html "$T/double.html" "$T/double.zst" >/dev/null 2>&1
check "HTML: the quarters table has C's columns" sh -c 'grep -q "<th>C(n) cyc/ins</th><th>&#177;</th></tr>" "$1" && grep -q "<tr><td>3</td><td>2.000</td><td>1.000</td><td>[0-9.]*</td><td>[0-9.]*</td><td>3.00</td><td>0.00</td></tr>" "$1"' sh "$T/double.html"

run_capture "$PMANALYZE" "$T/back.zst"
check "a count that goes back: the reason, no C" sh -c 'grep -qx "  C(n) by quarter not checked: the counter snapshots are not cumulative in time order (a count or a time goes back)" "$1" && ! grep -q "cyc/ins" "$1"' sh "$T/out"

run_capture "$PMANALYZE" "$T/cut.zst"
check "a trace cut before RUN_END: the reason, no C" sh -c 'grep -qx "  C(n) by quarter not checked: the run has no RUN_END C to name the snapshots'"'"' cycles and instructions (the trace stops before it)" "$1" && ! grep -q "cyc/ins" "$1"' sh "$T/out"

run_capture "$PMANALYZE" "$T/none.zst"
check "no snapshots: the reason in the section" grep -qx \
	"  C(n) by quarter not checked: the run has no counter snapshots (COUNTERS records): no hardware counters were counted" "$T/out"
"$PMANALYZE" --format json "$T/none.zst" >"$T/none.json" 2>/dev/null
check "no snapshots JSON: checked false with the reason, no C in the quarters" c_check "$T/none.json" \
	'assert not c["checked"] and "no counter snapshots" in c["why"], c
assert q == [None] * 4 and e == [None] * 4, (q, e)
assert not notes, notes'
done_testing
