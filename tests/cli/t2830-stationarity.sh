#!/bin/sh
# SPDX-License-Identifier: MIT
# The stationarity check: A(m,inf) by quarter of the recording and the not-stationary note, on
# generated traces whose answer is known by construction (gentrace, scheduler events of a 1-CPU
# round robin of 4 threads, 3 ms slices; no dependence on the machine):
# - steady: a 200 ms period of 50 ms serial (thread 0 alone, the others blocked) and 150 ms of
#   all 4 threads, 4 s: every quarter holds 5 periods, A = 0.2 / (0.05 + 0.15 / 4) = 2.29: no note;
# - changing: 2 s of all 4 threads, then 2 s of thread 0 alone: quarters A = 4, 4, 1, 1: the note,
#   worded for a window (RUN_END window) and for a whole run;
# - the same changing schedule without scheduler events: the quarters from the samples, said so;
# - recorded traces (tests/fixtures/README.md, sched-exact): a window over the end of a 1-thread
#   program and the start of a 4-thread one gets the note (quarters 1.00 and 4.00); a steady
#   program (phases -t 4) and a window of one (window-300-intervals.zst, phases -t 2) get none;
#   a window attached to 16 balanced threads on 2 CPUs reads 16 in every quarter.
. "$PMT_TOP/tests/cli/lib.sh"

GEN="$(dirname "$W")/bench/gentrace"
if [ ! -x "$GEN" ]; then
	ok "stationarity # SKIP gentrace not built (make tests)"; done_testing; exit 0
fi
fx="$PMT_TOP/tests/fixtures/traces"
"$GEN" "$T/steady.zst" 4 4 sched period_ms=200 serial_ms=50 window=10 >/dev/null
"$GEN" "$T/change.zst" 4 4 sched period_ms=4000 serial_ms=2000 window=10 >/dev/null
"$GEN" "$T/change-run.zst" 4 4 sched period_ms=4000 serial_ms=2000 >/dev/null
"$GEN" "$T/change-samples.zst" 4 4 period_ms=4000 serial_ms=2000 window=10 >/dev/null

# stat_check FILE.json CODE: CODE (python) with s the stationarity object, q and e its quarters A, A_err
stat_check() {
	python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["stationarity"]
q = [x["A"] for x in s["quarters"]]
e = [x["A_err"] for x in s["quarters"]]
assert [x["start_s"] for x in s["quarters"]] == [0, 1, 2, 3], s
assert all(x["length_s"] == 1 for x in s["quarters"]), s
exec(sys.argv[2])' "$@"
}

run_capture "$PMANALYZE" "$T/steady.zst"
expect_status "pmanalyze of the steady schedule" 0
check "steady: no not-stationary note" sh -c '! grep -q "not representative\|changes over time" "$1"' sh "$T/out"
check "steady: the section says the quarters agree" grep -qx \
	"  the quarters agree within their uncertainty (chi-square over the four: p = 1 >= 0.001)" "$T/out"
"$PMANALYZE" --format json "$T/steady.zst" >"$T/steady.json" 2>/dev/null
check "steady JSON: sched-exact, every quarter's A within its A_err of 2.29, agree" stat_check \
	"$T/steady.json" 'assert s["method"] == "sched-exact" and s["agree"] and not s["sampled_fallback"], s
assert all(abs(a - 0.2 / (0.05 + 0.15 / 4)) <= max(x, 0.05) for a, x in zip(q, e)), (q, e)'

run_capture "$PMANALYZE" "$T/change.zst"
expect_status "pmanalyze of the changing schedule" 0
check "changing window: the note, 3.99 in quarter 2 and 1.00 in quarter 4" grep -qx \
	"note: the window is not representative: A(m,inf) is 3.99 ± 0.14 in quarter 2 and 1.00 ± 0.01 in quarter 4 (sched-exact), apart beyond their uncertainty (chi-square over the four quarters: p = 1.08e-191 < 0.001); record a longer one, or later (--delay, --duration)" "$T/out"
"$PMANALYZE" --format json "$T/change.zst" >"$T/change.json" 2>/dev/null
check "changing JSON: quarters near 4, 4, 1, 1; disagree; the coded note" stat_check \
	"$T/change.json" 'assert s["method"] == "sched-exact" and not s["agree"], s
assert all(abs(a - t) < 0.05 for a, t in zip(q, [4, 4, 1, 1])), q
n = [x for x in json.load(open(sys.argv[1]))["coded_notes"] if x["code"] == "not-stationary"]
assert len(n) == 1 and n[0]["values"]["window"] == 1, n'

run_capture "$PMANALYZE" "$T/change-run.zst"
check "changing whole run: the note in its whole-run wording" grep -qx \
	"note: the run's parallelism changes over time: A(m,inf) is 3.99 ± 0.14 in quarter 2 and 1.00 ± 0.01 in quarter 4 (sched-exact), apart beyond their uncertainty (chi-square over the four quarters: p = 1.08e-191 < 0.001); A(m,inf) of the whole run is their mix, and a window of one part (--delay, --duration) describes that part only" "$T/out"

run_capture "$PMANALYZE" "$T/change-samples.zst"
check "without scheduler events: the quarters from the samples, said in the section" grep -qx \
	"stationarity A(m,inf) by quarter of the recording (samples: the runnable estimator's intervals, no scheduler events)" "$T/out"
check "without scheduler events: the note names the samples" grep -q \
	"^note: the window is not representative: .* in quarter [34] (samples), apart beyond" "$T/out"

run_capture "$PMANALYZE" "$fx/stationarity-change-window.zst"
check "a recorded window from 1 thread to 4: the note" grep -qx \
	"note: the window is not representative: A(m,inf) is 4.00 ± 0.04 in quarter 4 and 1.00 ± 0.00 in quarter 1 (sched-exact), apart beyond their uncertainty (chi-square over the four quarters: p = 0 < 0.001); record a longer one, or later (--delay, --duration)" "$T/out"
# A window attached to 16 balanced threads time-sliced on 2 CPUs (A = 16): each quarter's T_cp is
# the progress along the infinite-core axis, so the quarters add up to the window's T_cp and read
# 16 within their uncertainty (processor sharing's r / q read 13.8-14.8 against 15.75 for the
# window, the phases' threads finishing one by one on the 2 CPUs)
"$PMANALYZE" --format json "$fx/attach-16t-window.zst" >"$T/a16.json" 2>/dev/null
check "an attached 16-thread window (sched-exact): the quarters' T_cp add up to the window's, each A = 16 within 2 A_err" \
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
q = d["stationarity"]["quarters"]
T = sum(x["T_cp_ns"] for x in q) / 1e9
print(T, d["parallelism"]["T_cp_s"], [(x["A"], x["A_err"]) for x in q])
assert d["stationarity"]["method"] == "sched-exact", d["stationarity"]
assert abs(T - d["parallelism"]["T_cp_s"]) <= 0.01 * d["parallelism"]["T_cp_s"], T
assert all(abs(x["A"] - x["work_ns"] / x["T_cp_ns"]) < 1e-9 * x["A"] for x in q), q
assert all(abs(x["A"] - 16) <= 2 * x["A_err"] for x in q), q' "$T/a16.json"
run_capture "$PMANALYZE" "$fx/stationarity-steady.zst"
check "a recorded steady program (sched-exact): no note" \
	sh -c '! grep -q "changes over time" "$1" && grep -q "^  the quarters agree" "$1"' sh "$T/out"
run_capture "$PMANALYZE" "$fx/window-300-intervals.zst"
check "a recorded window of a steady program (sched-exact): no note" \
	sh -c '! grep -q "not representative" "$1" && grep -q "^  the quarters agree" "$1"' sh "$T/out"
done_testing
