#!/bin/sh
# SPDX-License-Identifier: MIT
# Per-thread PAPI counters of each OpenMP region (issue 17): libpmompt.so reads each thread's
# event set at implicit_task begin and end, pmcollect writes OMP_COUNTERS records, pmanalyze sums
# them per region and uses one as Allande's TCM (eq. 2: cf_i = TCM_i / TCM_1). These machines have
# no hardware counters, so the events are the program's own: omp_sde defines the PAPI
# software-defined event sde:::pmt_work::units, a per-thread count whose deltas are known by
# construction (ladder: team thread i adds (i+1) U per instance; master: thread 0 adds 2 U). The
# same PAPI calls read hardware events on a server (docs/regions.md §7).
. "$PMT_TOP/tests/cli/lib.sh"

export KMP_BLOCKTIME=0
EV=sde:::pmt_work::units

# --- one run, a team of 3: every thread's delta of every instance -----------------------------
run_capture "$PMCOLLECT" -q --omp-regions --omp-events "$EV" -t 3 -o "$T/c.zst" -- "$W/omp_sde" -w 2 -r 4 -u 1000
expect_status "omp_sde recorded with --omp-events $EV" 0
cp "$T/out" "$T/truth.jsonl"
"$PMANALYZE" --dump "$T/c.zst" >"$T/dump.jsonl"
run_capture "$PMANALYZE" -q --format json -o "$T/c.json" "$T/c.zst"
expect_status "pmanalyze reads the trace" 0
python3 - "$T/truth.jsonl" "$T/dump.jsonl" "$T/c.json" "$EV" >"$T/checks" <<'EOF'
import json, sys
truth = {d["region"]: d for d in map(json.loads, open(sys.argv[1]))}
recs = [json.loads(l) for l in open(sys.argv[2])]
g = json.load(open(sys.argv[3]))["regions"]
ev = sys.argv[4]
def check(what, cond, why=""):
    print(("ok " if cond else "fail ") + what + ("" if cond else ": " + why))
end = [r for r in recs if r["type"] == "run_end"][0]["omp_regions"]["counters"]
check("RUN_END counters: recorded, the event named, no failure",
      end["recorded"] and end["events"] == [ev] and end["failures"] == 0, str(end))
regions = {(r["pid"], r["id"]): r for r in recs if r["type"] == "omp_region"}
ctr = [r for r in recs if r["type"] == "omp_counters"]
team = truth["ladder"]["team"]
check("one OMP_COUNTERS record per thread and instance (%d)" % (len(regions) * team),
      len(ctr) == len(regions) * team == end["records"], "%d records, %d regions" % (len(ctr), len(regions)))
# the region's two constructs alternate: ladder, master, ladder, ... (ids 1, 2, 3, ...)
ok = bad = 0
for c in ctr:
    r = regions.get((c["pid"], c["region_id"]))
    if not r or c["tid"] not in r["tids"]:
        bad += 1
        continue
    kind = "ladder" if r["id"] % 2 == 1 else "master"
    want = truth[kind]["units_by_thread"][r["tids"].index(c["tid"])]
    ok += c["values"] == [want]
    bad += c["values"] != [want]
check("every thread's delta is its own units, by team index (%d of %d)" % (ok, len(ctr)),
      bad == 0 and ok == len(ctr), "%d wrong" % bad)
check("pmanalyze: counters recorded, all records joined",
      g["counters"]["recorded"] and g["counters"]["events"] == [ev] and
      g["counters"]["task_records"] == len(ctr) and g["counters"]["unmatched_records"] == 0, str(g["counters"]))
by_units = sorted(g["rows"], key=lambda r: r["line"])
for kind, row in zip(("ladder", "master"), by_units):
    check("%s: the region's sum is the workload's %d units" % (kind, truth[kind]["units"]),
          row.get("counters", {}).get(ev) == truth[kind]["units"] and
          row["counter_tasks"] == truth[kind]["instances"] * team, str(row.get("counters")))
EOF
report_checks "$T/checks" "python3 failed on the trace"
"$PMANALYZE" "$T/c.zst" >"$T/table" 2>&1
if grep -q "per-thread counters, summed over each region's implicit tasks (24 task records)" "$T/table" &&
	grep -Eq "omp_sde.c:[0-9]+ +8000$" "$T/table"; then
	ok "the table lists each region's counter sum"
else
	not_ok "the table lists each region's counter sum" "$(sed -n '/per-thread/,+4p' "$T/table")"
fi

# --- a thread's count ends at the region's closing barrier, not when the runtime next wakes it ----
# LLVM's libomp reports a worker's implicit_task end only when the next region releases it from the
# fork barrier; with KMP_BLOCKTIME=infinite the worker spins there through the serial part, which a
# cycle counter would count. cpu_ns (the thread's CPU time) is such a counter: each delta must be
# the thread's own burn, (i+1) x 5 ms in ladder, 5 ms or 0 in master, not the 20 ms serial parts.
KMP_BLOCKTIME=infinite run_capture "$PMCOLLECT" -q --omp-regions --omp-events "$EV,sde:::pmt_work::cpu_ns" -t 2 \
	-o "$T/spin.zst" -- "$W/omp_sde" -w 5 -s 20 -r 3
expect_status "omp_sde -s 20 with spinning workers recorded" 0
"$PMANALYZE" --dump "$T/spin.zst" >"$T/spin.jsonl"
check "every thread's CPU-time delta is its burn in the region (within 1 ms), not the wait after it" python3 -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
regions = {(r["pid"], r["id"]): r for r in recs if r["type"] == "omp_region"}
ctr = [r for r in recs if r["type"] == "omp_counters"]
assert len(ctr) == 12, len(ctr)
for c in ctr:
    r = regions[(c["pid"], c["region_id"])]
    i = r["tids"].index(c["tid"])
    burn_ns = (i + 1) * 5e6 if r["id"] % 2 else (5e6 if i else 0)
    assert burn_ns - 0.05e6 <= c["values"][1] <= burn_ns + 1e6, (r["id"], i, c["values"])' "$T/spin.jsonl"

# --- runs with 1, 2, 3 threads: Allande's TCM from the counters -------------------------------
run_capture "$PMCOLLECT" -q --omp-regions --omp-events "$EV" -t 1-3 -o "$T/t.zst" -- "$W/omp_sde" -w 2 -r 2
expect_status "-t 1-3 recorded" 0
run_capture "$PMANALYZE" -q --run 2 --tcm-event "$EV" --format json -o "$T/t.json" "$T/t.zst"
expect_status "pmanalyze --tcm-event" 0
python3 - "$T/t.json" "$EV" >"$T/checks" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
g, notes = d["regions"], d["notes"]
ev = sys.argv[2]
def check(what, cond, why=""):
    print(("ok " if cond else "fail ") + what + ("" if cond else ": " + why))
al = g["allande"]
check("Allande uses the counter as TCM, not time only", al["time_only"] is False and al["tcm_event"] == ev, str(al))
ladder, master = sorted(g["rows"], key=lambda r: r["line"])
a = ladder["allande"]
# NC is the cores of one socket (Allande et al. §3.1): 3, or fewer on a machine whose sockets
# have fewer cores (this VM: 2), with a note
NC = al["NC"]
check("NC = 3, or the cores per socket with a note", NC == 3 or (NC < 3 and any(
      "runs with 1..3 threads but a socket has %d cores" % NC in n for n in notes)), "NC %d, %s" % (NC, notes))
# ladder: a team of i counts U i(i+1)/2 per instance, 2 instances of U = 1000
check("ladder: TCM_i = 2 x 1000 x i(i+1)/2", a["TCM"] == [2000, 6000, 12000][:NC], str(a["TCM"]))
check("ladder: cf_i = TCM_i / TCM_1 = 1, 3, 6 (eq. 2)", a["cf"] == [1, 3, 6][:NC], str(a["cf"]))
beta = [(a["T_ns"][i] - a["T_ns"][0] / (i + 1)) / a["TCM"][i] for i in range(NC)]
check("ladder: beta_i = (T_i - T_1/i) / TCM_i (eq. 4)",
      all(abs(x - y) <= 1e-9 * max(1, abs(y)) for x, y in zip(a["beta_ns"], beta)), "%s vs %s" % (a["beta_ns"], beta))
m = master["allande"]
check("master: only thread 0 counts, TCM_i = 4000 and cf_i = 1", m["TCM"] == [4000] * NC and m["cf"] == [1] * NC,
      "%s %s" % (m["TCM"], m["cf"]))
EOF
report_checks "$T/checks" "python3 failed on the trace"
# the same as CSV with --allande-all: the regions table (counter sums, TCM, best configurations
# with their estimates), Allande's inputs per thread count, the plans' totals and every
# configuration's SUM and MAX estimate
run_capture "$PMANALYZE" -q --run 2 --tcm-event "$EV" --allande-all --format csv -o "$T/t.csv" "$T/t.zst"
expect_status "pmanalyze --allande-all --format csv" 0
run_capture "$PMANALYZE" -q --run 2 --tcm-event "$EV" --allande-all --format json -o "$T/ta.json" "$T/t.zst"
python3 - "$T/t.csv" "$T/ta.json" "$EV" >"$T/checks" <<'EOF2'
import csv, json, sys
tables = [list(csv.DictReader(t.strip().splitlines())) for t in open(sys.argv[1]).read().split("\n\n")]
g = json.load(open(sys.argv[2]))["regions"]
ev = sys.argv[3]
def check(what, cond, why=""):
    print(("ok " if cond else "fail ") + what + ("" if cond else ": " + why))
by = {tuple(t[0].keys())[:2]: t for t in tables if t}
regs, inputs, plans, confs = (by.get(k, []) for k in (("region", "function"), ("region", "threads"),
                                                    ("bound", "NC"), ("region", "aff")))
check("CSV: six tables (predictions, regions, their predictions per n, Allande's inputs, totals, every configuration)",
      len(tables) == 6 and regs and inputs and plans and confs, str([list(t[0].keys())[:3] for t in tables if t]))
ladder = sorted(regs, key=lambda r: int(r["line"]))[:1] # ladder's pragma comes first
# the analyzed run has 3 threads: 2 instances of U (1 + 2 + 3) = 6000 units, 6 task records
check("CSV regions: ladder's %s column and tcm = 12000, counter_tasks 6" % ev,
      len(ladder) == 1 and float(ladder[0][ev]) == 12000 and float(ladder[0]["tcm"]) == 12000 and
      ladder[0]["counter_tasks"] == "6", str(ladder))
lad_in = [r for r in inputs if r["region"] == ladder[0]["region"]] if ladder else []
NC = g["allande"]["NC"]
check("CSV inputs: ladder TCM_i = 2000, 6000, 12000 and cf_i = 1, 3, 6 for 1..NC threads (eq. 2)",
      [(r["threads"], float(r["TCM"]), float(r["cf"])) for r in lad_in] ==
      [("1", 2000, 1), ("2", 6000, 3), ("3", 12000, 6)][:NC], str(lad_in))
jl = sorted(g["rows"], key=lambda r: r["line"])[0]["allande"]
check("CSV inputs: T_s and beta_ns as the JSON's",
      all(abs(float(r["T_s"]) * 1e9 - t) <= 1e-5 * t and abs(float(r["beta_ns"]) - b) <= 1e-5 * abs(b) + 1e-12
          for r, t, b in zip(lad_in, jl["T_ns"], jl["beta_ns"])), str(lad_in))
al = g["allande"]
check("CSV totals: sum and max rows as the JSON's (configurations, best single, gain)",
      [p["bound"] for p in plans] == ["sum", "max"] and
      all(int(p["configurations"]) == al[p["bound"]]["configurations"] and
          int(p["best_single_threads"]) == al[p["bound"]]["best_single"]["threads"] and
          abs(float(p["gain_s"]) * 1e9 - al[p["bound"]]["gain_ns"]) <= 1e-5 * al[p["bound"]]["per_region_total_ns"]
          for p in plans), str(plans))
n = al["max"]["configurations"]
ok = len(confs) == n * len([r for r in g["rows"] if "allande" in r]) and len(al["configurations"]) == n
for r in regs:
    mine = [c for c in confs if c["region"] == r["region"]]
    if not mine:
        continue
    # the best configuration per region is the least estimate of its rows (eq. 7, SUM and MAX)
    ok &= abs(min(float(c["est_max_s"]) for c in mine) - float(r["best_max_est_s"])) <= 1e-5 * float(r["best_max_est_s"])
    ok &= abs(min(float(c["est_sum_s"]) for c in mine) - float(r["best_sum_est_s"])) <= 1e-5 * float(r["best_sum_est_s"])
check("--allande-all: %d configurations per region; each region's best estimate is the least of its rows" % n, ok)
check("--allande-all JSON: est_sum_ns / est_max_ns per row, one per configuration",
      all(len(r["allande"]["est_sum_ns"]) == n and len(r["allande"]["est_max_ns"]) == n for r in g["rows"] if "allande" in r))
EOF2
report_checks "$T/checks" "python3 failed on the CSV"
run_capture "$PMANALYZE" -q --run 2 --format json -o "$T/t2.json" "$T/t.zst"
check "without --tcm-event (no LLC-miss event among the counters): time only, and why" python3 -c '
import json, sys
al = json.load(open(sys.argv[1]))["regions"]["allande"]
assert al["time_only"] is True and "--tcm-event" in al["time_only_why"], al' "$T/t2.json"
"$PMANALYZE" --run 2 "$T/t.zst" >"$T/table" 2>&1
check "the table says why it is time only" grep -q "time only: run 0 counted no LLC-miss event (name one with --tcm-event)" "$T/table"
"$PMANALYZE" --run 2 --tcm-event "$EV" "$T/t.zst" >"$T/table" 2>&1
check "the table says which TCM it used (--tcm-event)" grep -q "TCM: $EV per region" "$T/table"

# --- what is recorded when the events cannot be counted -----------------------------------------
# (not an sde::: name: PAPI's SDE component accepts any sde::: name as a placeholder for an event a
# library may register later, and counts 0 for it)
reason_of() { "$PMANALYZE" --dump "$1" | python3 -c 'import json,sys
for l in sys.stdin:
    d = json.loads(l)
    if d["type"] == "run_end": c = d["omp_regions"]["counters"]; print(c["recorded"], c.get("reason", ""))'; }
run_capture "$PMCOLLECT" -q --omp-regions --omp-events NOT_AN_EVENT -t 2 -o "$T/bad.zst" -- "$W/omp_sde" -w 1 -r 1
expect_status "an event the program does not define: the run is still recorded" 0
reason=$(reason_of "$T/bad.zst")
case $reason in
"False PAPI in the program: NOT_AN_EVENT: "?*) ok "... and RUN_END says PAPI could not resolve it ($reason)" ;;
*) not_ok "... and RUN_END says PAPI could not resolve it" "got: $reason" ;;
esac
"$PMANALYZE" "$T/bad.zst" >"$T/table" 2>&1
check "... and the table says why there are no counters" grep -q "per-thread counters: none (PAPI in the program: NOT_AN_EVENT" "$T/table"
run_capture "$PMCOLLECT" -q --omp-regions --omp-events none -t 2 -o "$T/none.zst" -- "$W/omp_sde" -w 1 -r 1
check "--omp-events none: no counters, said so" test "$(reason_of "$T/none.zst")" = "False --omp-events none"
run_capture "$PMCOLLECT" -q --omp-regions -t 2 -o "$T/dflt.zst" -- "$W/omp_sde" -w 1 -r 1
if "$PMANALYZE" --dump "$T/dflt.zst" | grep '"type":"run_begin"' | grep -q '"counters":{"events":\[\]'; then
	reason=$(reason_of "$T/dflt.zst")
	case $reason in
	"False hardware counters unavailable: "?*) ok "default without hardware counters: none, with PAPI's reason" ;;
	*) not_ok "default without hardware counters: none, with PAPI's reason" "got: $reason" ;;
	esac
else
	check "default with hardware counters: the cycles and LLC-miss events" sh -c \
		"$PMANALYZE --dump '$T/dflt.zst' | grep '\"type\":\"run_end\"' | grep -q '\"counters\":{\"events\":\[\"[^]]*\"\],\"kinds\":\[\"cycles\",\"llc_misses\"\],\"recorded\":true'"
fi

# --- usage errors: one line, exit 2, nothing run ---------------------------------------------
run_capture "$PMCOLLECT" --omp-events "$EV" -o "$T/u.zst" -- "$W/omp_sde"
expect_status "--omp-events without --omp-regions: exit 2" 2
check "... the error first, then the usage line" grep -qx "pmcollect: error: --omp-events needs --omp-regions" "$T/err"
run_capture "$PMCOLLECT" --omp-regions --omp-events a,b,c,d,e,f,g -o "$T/u.zst" -- "$W/omp_sde"
expect_status "7 events: exit 2" 2
expect_err_line "... one line" "^pmcollect: error: invalid --omp-events 'a,b,c,d,e,f,g': more than 6 events"
run_capture "$PMCOLLECT" --omp-regions --omp-events "a,,b" -o "$T/u.zst" -- "$W/omp_sde"
expect_err_line "an empty event name: one line" "^pmcollect: error: invalid --omp-events 'a,,b': an empty event name"
check "no trace written by the usage errors" test ! -e "$T/u.zst"
run_capture "$PMANALYZE" --tcm-event "" "$T/c.zst"
expect_status "pmanalyze --tcm-event '': exit 2" 2
done_testing
