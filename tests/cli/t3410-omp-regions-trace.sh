#!/bin/sh
# SPDX-License-Identifier: MIT
# OpenMP regions end to end (issue 17): `pmcollect --omp-regions` records omp_regions (clang,
# libomp) into a trace, and `pmanalyze` names each region by its source function and line and
# gives its A(m,inf) from the scheduler events inside the region's windows. The workload's regions
# have known A by construction (-t 4 threads, MS of CPU per thread): balanced (3 calls at one
# line with teams 4, 2, 3: A = (4+2+3)/3 = 3), imbalanced (thread i burns (i+1) MS: A = 10/4 = 2.5),
# single (A = 1), nested (2 x 2 threads: A = 4). Then a GCC binary with --omp-runtime llvm, the
# reasons recorded when no OMPT runtime answers, -t LIST (one run per thread count, Allande et al.)
# and the usage errors.
. "$PMT_TOP/tests/cli/lib.sh"

export KMP_BLOCKTIME=0
sched=1
if [ "$(id -u)" -ne 0 ] || [ ! -d /sys/kernel/tracing/instances ]; then sched=0; fi

# --- the known regions, on one CPU (4 threads on 1 CPU: the model's baseline) --------------------
# 100 ms of CPU per thread and region: the team's fork, join and wake-ups and the scheduler's
# uneven sharing at a window's end weigh ~1 ms per window (-w 30 gave balanced 2.97-2.99 alone,
# 2.934 once in a CI run; -w 100 gives 2.98-2.996 alone and beside stress-ng --cpu 2)
# check_known TRACE TRUTH JSON LABEL GCC: TAP lines for the known regions of one recording (TRACE:
# the trace, for its steal; TRUTH: the workload's own lines, JSON: pmanalyze's report); LABEL
# prefixes each check; GCC 1: a GCC build, whose call to GOMP_parallel may carry the line before
# the pragma (see known.py).
cat >"$T/known.py" <<'EOF'
import json, os, sys
truth = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"region"')]
total = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"regions"')][0]["regions"]
report = json.load(open(sys.argv[2]))
g = report["regions"]
label, sched = sys.argv[3], os.environ["SCHED"] == "1"
gcc = sys.argv[4] == "1"
# issue 17: A within 2% of the construction with scheduler events; a sanity bound of 15% when the
# tools run under the sanitizers (the workload is never sanitized: its truth stays exact)
tol = 0.15 if os.environ["PMT_SANITIZED"] == "1" else 0.02
# region times against the workload's clock reads just outside each construct: the fork before
# parallel_begin and the join after parallel_end cost 0.001-0.02% of a region here (also beside a
# process spinning on the program's CPU), but a preemption at the edge of a construct lasts as long
# as the scheduler makes it (t3400 saw 6.8 ms of a 175 ms region at load 8): make check asserts the
# time lies inside the clock reads and covers at least half of them (a region charged to the wrong
# site, or an end taken at its begin, fails), make check-accuracy (a quiet machine) 0.5%
ttol = 0.005 if os.environ["PMT_ACCURACY"] == "strict" else 0.5
def check(what, cond, why=""):
    print(("ok " if cond else "fail ") + label + what + ("" if cond else ": " + why))
def skip(what, why):
    print("skip " + label + what + ": " + why)
check("recorded", g["recorded"], str(g))
check("%d instances, as many as the workload ran" % total, g["instances"] == total and g["unnamed_instances"] == 0,
      "%s instances, %s unnamed" % (g["instances"], g["unnamed_instances"]))
# GCC gives the call to GOMP_parallel (codeptr_ra - 1 is looked up) the location of the statement
# before the pragma in some functions (omp_regions_gcc: imbalanced's call is on line 84, its pragma
# on 85; readelf --debug-dump=decodedline): a GCC build's row may name that line
def row_for(fn, line):
    for r in g["rows"]:
        if r["function"] == fn and (r["line"] == line or (gcc and r["line"] == line - 1)):
            return r
    return None
sites = {}
for t in truth:
    sites.setdefault((t["function"], t["line"]), []).append(t)
check("%d regions, one per source line" % (len(sites) + 1), len(g["rows"]) == len(sites) + 1,
      "rows " + ", ".join(r["name"] for r in g["rows"]))
for (fn, line), ts in sorted(sites.items(), key=lambda x: x[0][1]):
    r = row_for(fn, line)
    calls = len(ts)
    check("%s omp_regions.c:%d named from the debug info" % (fn, line),
          r is not None and r["file"].endswith("omp_regions.c") and r["name"] == "%s omp_regions.c:%d" % (fn, r["line"]),
          str(r and r["name"]))
    if r is None:
        continue
    check("%s:%d: %d calls" % (fn, line, calls), r["calls"] == calls, str(r["calls"]))
    want_ms = sum(t["end_ns"] - t["begin_ns"] for t in ts) / 1e6
    check("%s:%d: time inside the workload's own clock reads (%.1f ms), within %g%%" % (fn, line, want_ms, ttol * 100),
          (1 - ttol) * want_ms <= r["time_ns"] / 1e6 <= want_ms, "%.3f ms" % (r["time_ns"] / 1e6))
tiny = [r for r in g["rows"] if r["function"] == "tiny"]
check("tiny: 50 instances of one region", len(tiny) == 1 and tiny[0]["calls"] == 50, str(tiny))
# A by construction: each thread burns its own CPU time (CLOCK_THREAD_CPUTIME_ID), so the
# nominal work is the measured work; the fork, join and wake-ups of the team are in the windows.
# Plus what the exact mode says it guessed over the whole run (inferred_s: switch-ins the kernel did
# not record) and the hypervisor's steal (STEAL_S, lib.sh steal_s), which can fall in any region:
# a region's U and T_cp move by at most that, A = U/T_cp by 2x that over T_cp. A stressed CI run
# read imbalanced 2.646 (T_cp 218.8 ms for 240) with 4 switch-ins and 23.8 ms inferred.
guess_s = (report["parallelism"]["estimates"].get("sched-exact", {}).get("inferred_s") or 0) \
    + float(os.environ.get("STEAL_S") or 0)
def a_tol(a, r):
    return tol * a + a * 2 * guess_s / max(r["T_cp_ns"] / 1e9, 1e-9)
want = {"balanced": 3.0, "imbalanced": 2.5, "serial_single": 1.0}
for fn, a in want.items():
    r = [x for x in g["rows"] if x["function"] == fn]
    if not sched:
        skip(fn + ": A", "no scheduler events (needs root and tracefs)")
    elif r:
        check("%s: A = %.2f within %d%% + %.1f ms inferred or stolen (%.2f)" % (fn, a, tol * 100, guess_s * 1e3, r[0]["A"]),
              abs(r[0]["A"] - a) <= a_tol(a, r[0]), "A %.3f, T_cp %.1f ms" % (r[0]["A"], r[0]["T_cp_ns"] / 1e6))
nested = [x for x in g["rows"] if x["function"] == "nested"]
if sched:
    check("nested: 2 regions (outer depth 1, inner depth 2), A = 4 within %d%% + %.1f ms inferred or stolen" % (tol * 100, guess_s * 1e3),
          sorted(x["depth"] for x in nested) == [1, 2] and all(abs(x["A"] - 4) <= a_tol(4, x) for x in nested),
          str([(x["depth"], x["A"]) for x in nested]))
    check("each region's T_cp share of the run is in (0, 1]", all(0 < x["cp_share"] <= 1 for x in g["rows"] if x["function"] != "tiny"),
          str([x["cp_share"] for x in g["rows"]]))
else:
    skip("nested: A", "no scheduler events")
EOF
check_known() {
	SCHED=$sched PMT_SANITIZED=$PMT_SANITIZED PMT_ACCURACY=$PMT_ACCURACY STEAL_S=$(steal_s "$1") \
		python3 "$T/known.py" "$2" "$3" "$4" "$5" >"$T/checks"
	while read -r verdict what; do
		case $verdict in
		ok) ok "$what" ;;
		skip) ok "$what # SKIP" ;;
		*) not_ok "$what" "$(machine_load)" ;;
		esac
	done <"$T/checks"
	[ -s "$T/checks" ] || not_ok "$4region checks ran" "$(head -c 600 "$3")"
}
run_capture "$PMCOLLECT" -q --omp-regions --cpus 0 -t 4 -o "$T/r.zst" -- "$W/omp_regions" -w 100 -n 50
expect_status "omp_regions recorded with --omp-regions" 0
cp "$T/out" "$T/truth.jsonl"
run_capture "$PMANALYZE" -q --format json -o "$T/r.json" "$T/r.zst"
expect_status "pmanalyze reads the trace" 0
check_known "$T/r.zst" "$T/truth.jsonl" "$T/r.json" "" 0

# --- the same workload built by GCC (libgomp: no OMPT) and recorded with --omp-runtime llvm:
# libomp, preloaded, serves the GOMP ABI and reports through OMPT; the same names (the outlined
# foo._omp_fn.N map to foo), calls, times and A. 60 ms per thread and region (1.6 s on one CPU):
# balanced read 2.983-2.998, imbalanced 2.500-2.501, single 1.000-1.001, nested 3.986-3.989 at
# load 4-6.
run_capture "$PMCOLLECT" -q --omp-regions --omp-runtime llvm --cpus 0 -t 4 -o "$T/g.zst" -- \
	"$W/omp_regions_gcc" -w 60 -n 50
expect_status "omp_regions_gcc recorded with --omp-runtime llvm" 0
cp "$T/out" "$T/gtruth.jsonl"
run_capture "$PMANALYZE" -q --format json -o "$T/g.json" "$T/g.zst"
expect_status "pmanalyze reads the GCC build's trace" 0
check_known "$T/g.zst" "$T/gtruth.jsonl" "$T/g.json" "gcc build: " 1

# --- the same regions without scheduler events: A from the samples, from 10 sampling intervals per
# thread and region (-w 100) in make check, 20 (-w 200) in make check-accuracy (PMT_ACCURACY=strict),
# which asserts issue 17's 5% (nested 10%). The intervals at a region's edges are prorated and hold
# the regions beside it, an error that shrinks with interval / region length: serial_single, a team
# of 1 between 4-thread teams, read 1.041-1.053 at -w 100 in 18 quiet clean-clone CI runs (3 over
# 5%) and 1.018-1.025 at -w 200 in 10 quiet runs by hand; nested misses 5% at both (3.777-3.796,
# 3.788-3.793: its inner teams' threads start inside the window; docs/regions.md). The
# sampled estimator reads other processes' load on CPU 0 as the program's own wait, and a region
# is short enough for a burst of it to move its A even when the whole run had 90% of its CPU
# (imbalanced 3.11 of 2.5 under stress-ng and a CI run): make check asserts a sanity bound of
# 35%, which still tells each region's A from its neighbours' (1, 2.5, 3, 4).
sw=100; [ "$PMT_ACCURACY" = strict ] && sw=200
run_capture "$PMCOLLECT" -q --no-sched --omp-regions --cpus 0 -t 4 -o "$T/s.zst" -- "$W/omp_regions" -w "$sw" -n 50
expect_status "omp_regions recorded without scheduler events" 0
"$PMANALYZE" -q --format json -o "$T/s.json" "$T/s.zst"
share=$(cpu_share "$T/s.json") # in the check's name: a look at the load after a failure
for fn in balanced:3.0:0.05 imbalanced:2.5:0.05 serial_single:1.0:0.05 nested:4.0:0.10; do
	tol=${fn##*:}; fn=${fn%:*}
	[ "$PMT_ACCURACY" = strict ] || tol=0.35
	got=$(python3 -c 'import json,sys
g=json.load(open(sys.argv[1]))["regions"]
print(min((r["A"] for r in g["rows"] if r["function"] == sys.argv[2]), key=lambda a: abs(a - float(sys.argv[3]))))' \
		"$T/s.json" "${fn%%:*}" "${fn#*:}")
	near "samples only: ${fn%%:*}: A within $(awk -v t="$tol" 'BEGIN{print t*100}')% of the construction (CPU share $share)" \
		"$got" "${fn#*:}" "$tol"
done
json_get "$T/s.json" regions.A_source >"$T/method"
check "samples only: the method is named" grep -qx samples "$T/method"

# --- regions shorter than the sampling interval with the program idle between them (-p 1: the
# initial thread sleeps 1 ms after each of 200 tiny regions), from the samples: an interval's
# average concurrency is then below 1, and dt r / q counted more critical path than work (A 0.03
# on the tiny row, 0.35 on the others before the cap). With a team of 1 a region's A is 1: the
# cap keeps every row at A >= 1, the tiny row near 1, and the report says it capped. The first
# intervals of the tiny regions hold the end of the nested teams too (concurrency up to ~2.5), so
# how near 1 depends on where the samples fall: 1.002 once on a quiet machine, 1.107 in a stressed
# CI run under the sanitizers (9.4 ms mean interval). make check-accuracy (PMT_ACCURACY=strict)
# asserts 5%, make check 25% (one such interval in the tiny regions' ~20).
tiny_tol=0.25; [ "$PMT_ACCURACY" = strict ] && tiny_tol=0.05
run_capture "$PMCOLLECT" -q --no-sched --omp-regions --cpus 0 -t 1 -o "$T/idle.zst" -- "$W/omp_regions" -w 0 -n 200 -p 1
expect_status "tiny regions with idle gaps recorded without scheduler events" 0
"$PMANALYZE" -q --format json -o "$T/idle.json" "$T/idle.zst"
# A region that no sample fell in (a short one, under other processes' memory traffic) has no A:
# null with its reason, not 0.
check "samples only, idle between tiny regions: every region's A >= 1 (or null with A_why), the team-of-1 tiny row A = 1 within $tiny_tol, and a note says T_cp was capped" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["regions"]["rows"]
tiny = [r for r in rows if r["function"] == "tiny"]
print([(r["name"], r["A"], r.get("A_why")) for r in rows])
known = [r for r in rows if r["A"] is not None]
sys.exit(not (d["regions"]["A_source"] == "samples" and all(r["A"] >= 1 - 1e-9 for r in known) and
              all(r.get("A_why", "").startswith("no sampled interval") for r in rows if r["A"] is None) and
              len(tiny) == 1 and tiny[0]["A"] is not None and tiny[0]["A"] <= 1 + float(sys.argv[2]) and
              any("T_cp was capped at their work (A >= 1" in n for n in d["notes"])))' "$T/idle.json" "$tiny_tol"

run_capture "$PMANALYZE" -q "$T/r.zst"
check "table: a region line names imbalanced omp_regions.c" grep -q '^  imbalanced omp_regions.c:[0-9]' "$T/out"
run_capture "$PMANALYZE" -q --format csv "$T/r.zst"
check "CSV: the regions table follows the predictions" grep -q '^region,function,file,line,depth,calls' "$T/out"
# per-region predictions at every --cores n (issue 17): JSON rows[].predictions, the CSV's
# region,cores table; issue 19's bounds per n, and the single n = cores as T_n_ns / S_n
"$PMANALYZE" -q --cores 1,2,4 --format json -o "$T/rc.json" "$T/r.zst"
"$PMANALYZE" -q --cores 1,2,4 --format csv -o "$T/rc.csv" "$T/r.zst"
check "per-region predictions at --cores 1,2,4: JSON per row, S <= min(n, A), T >= max(T_cp, U/n), n = cores as T_n_ns, CSV rows equal" python3 -c '
import csv, json, sys
g = json.load(open(sys.argv[1]))["regions"]
tables = [list(csv.DictReader(t.strip().splitlines())) for t in open(sys.argv[2]).read().split("\n\n")]
pc = [t for t in tables if t and tuple(t[0].keys()) == ("region", "cores", "A", "S", "T_s", "gain_s")]
assert len(pc) == 1, [list(t[0].keys())[:3] for t in tables if t]
rows = [w for w in g["rows"] if w.get("A") is not None]
assert rows and g["predictions_left_out"] == 0, g
for w in rows:
    p = w["predictions"]
    assert [q["cores"] for q in p] == [1, 2, 4], (w["name"], p)
    for q in p:
        n = q["cores"]
        assert q["S"] <= min(n, w["A"]) * (1 + 1e-9), (w["name"], q)
        assert q["T_ns"] >= max(w["T_cp_ns"], w["work_ns"] / n) * (1 - 1e-9), (w["name"], q)
        if n == g["cores"]:
            assert abs(q["T_ns"] - w["T_n_ns"]) <= 1e-6 * w["T_n_ns"] and abs(q["S"] - w["S_n"]) <= 1e-6 * w["S_n"], (w, q)
    mine = [c for c in pc[0] if c["region"] == w["name"]]
    assert [int(c["cores"]) for c in mine] == [1, 2, 4], mine
    for c, q in zip(mine, p):
        assert abs(float(c["T_s"]) * 1e9 - q["T_ns"]) <= 1e-5 * q["T_ns"] and abs(float(c["S"]) - q["S"]) <= 1e-5 * q["S"], (c, q)
' "$T/rc.json" "$T/rc.csv"

# --- a GCC binary (libgomp, no OMPT) with --omp-runtime llvm: libomp preloaded, with a warning -----
pragma=$(grep -n '^#pragma omp parallel' "$PMT_TOP/tests/workloads/omp_phases.c" | cut -d: -f1)
asan=$(ldd "$W/omp_phases" | sed -n 's/.*libasan[^ ]* => \([^ ]*\).*/\1/p')
LD_PRELOAD="$asan" run_capture "$PMCOLLECT" --omp-regions --omp-runtime llvm -t 3 -o "$T/gcc.zst" -- \
	"$W/omp_phases" -w 5 -r 3 imbalanced
expect_status "gcc binary with --omp-runtime llvm recorded" 0
check "--omp-runtime llvm warns that the runtime changes" grep -q 'warning: --omp-runtime: the program runs on .*libomp' "$T/err"
"$PMANALYZE" -q --format json -o "$T/gcc.json" "$T/gcc.zst"
check "gcc binary: 3 instances at main omp_phases.c:$pragma" python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["regions"]
r = g["rows"]
sys.exit(not (g["instances"] == 3 and len(r) == 1 and r[0]["name"] == "main omp_phases.c:" + sys.argv[2] and r[0]["mean_team"] == 3))' \
	"$T/gcc.json" "$pragma"

# --- no OMPT runtime: the trace says why --------------------------------------------------------
# reason_has FILE.json REGEX: the recorded reason why no OMPT runtime answered matches REGEX
reason_has() { json_get "$1" regions.reason >"$T/reason" && grep -q "$2" "$T/reason"; }
LD_PRELOAD="$asan" run_capture "$PMCOLLECT" --omp-regions -t 2 -o "$T/gomp.zst" -- "$W/omp_phases" -w 5 -r 2 balanced
expect_status "gcc binary without --omp-runtime recorded" 0
check "gcc binary: warned that no region was recorded" grep -q 'no OpenMP regions recorded' "$T/err"
"$PMANALYZE" -q --format json -o "$T/gomp.json" "$T/gomp.zst"
check "gcc binary: reason names libgomp and --omp-runtime llvm" \
	reason_has "$T/gomp.json" "GCC's OpenMP runtime .*libgomp.*--omp-runtime llvm"
OMP_TOOL=disabled run_capture "$PMCOLLECT" -q --omp-regions -t 2 -o "$T/dis.zst" -- "$W/omp_regions" -w 1
"$PMANALYZE" -q --format json -o "$T/dis.json" "$T/dis.zst"
check "OMP_TOOL=disabled: recorded as the reason" reason_has "$T/dis.json" '^OMP_TOOL=disabled' 
run_capture "$PMCOLLECT" -q --omp-regions -o "$T/none.zst" -- "$W/phases" -t 2 -w 5 -r 1 balanced
"$PMANALYZE" -q --format json -o "$T/none.json" "$T/none.zst"
check "not an OpenMP program: reason says no runtime was seen" \
	reason_has "$T/none.json" '^no OpenMP runtime answered: none was seen' 
PMT_OMPT_TOOL=/nonexistent/libpmompt.so run_capture "$PMCOLLECT" --omp-regions -o "$T/notool.zst" -- "$W/omp_regions" -w 1
expect_status "tool missing: the program is still recorded" 0
"$PMANALYZE" -q --format json -o "$T/notool.json" "$T/notool.zst"
json_get "$T/notool.json" traces.0.sources.omp_regions.reason >"$T/notool.reason"
check "tool missing: META sources.omp_regions says why" grep -q "^PMT_OMPT_TOOL '/nonexistent/libpmompt.so'" "$T/notool.reason"

# --- -t LIST: one run per thread count, Allande's configuration per region ------------------------
run_capture "$PMCOLLECT" -q --omp-regions -t 1-2 -o "$T/list.zst" -- "$W/omp_regions" -w 5
expect_status "-t 1-2 --omp-regions recorded" 0
run_capture "$PMANALYZE" -q --format json --run 1 -o "$T/list.json" "$T/list.zst"
check "-t 1-2: RUN_BEGIN threads 1 and 2, Allande over NC = 2 with a best configuration per region" python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
rg = g["regions"]
rows = [r for r in rg["rows"] if "allande" in r]
ok = rg["allande"]["NC"] == 2 and rg["allande"]["max"]["configurations"] == 2 and len(rows) >= 4 and \
     all(len(r["allande"]["T_ns"]) == 2 and min(r["allande"]["T_ns"]) > 0 and r["allande"]["best_max"]["threads"] in (1, 2) for r in rows)
sys.exit(not ok)' "$T/list.json"

# --- -t LIST on several packages: Allande's runs on one socket. A synthetic topology (HWLOC_XMLFILE:
# 2 packages of 2 cores, package 0 = CPUs 0 and 2, package 1 = CPUs 1 and 3) puts this machine's
# CPUs 0 and 1 on different sockets: pmcollect pins each run to the first package's cores it may
# use (CPU 0; RUN_BEGIN placement first_package); pmanalyze caps NC at the 2 cores per socket (3
# runs given) with a note, and NS is 2 (5 configurations). With --cpus 0-1 the runs keep those
# CPUs (placement cpus), and the report says they span both sockets.
xml="$PMT_TOP/tests/fixtures/hwloc/2s2c-interleaved.xml"
HWLOC_XMLFILE="$xml" run_capture "$PMCOLLECT" -q --omp-regions -t 1-3 -o "$T/pin.zst" -- "$W/omp_regions" -w 2
expect_status "-t 1-3 on a 2-socket topology recorded" 0
"$PMANALYZE" -d "$T/pin.zst" >"$T/pin.dump"
check "-t 1-3 on 2 sockets: every run on the first package (CPU 0), placement first_package" python3 -c '
import json, sys
b = [json.loads(l) for l in open(sys.argv[1]) if "\"placement\"" in l]
b = [x.get("json", x) for x in b]
print([(x.get("cpus"), x.get("threads"), x.get("placement")) for x in b])
sys.exit(not (len(b) == 3 and all(x["cpus"] == "0" and x["placement"] == "first_package" for x in b) and
              [x["threads"] for x in b] == [1, 2, 3]))' "$T/pin.dump"
"$PMANALYZE" -q --format json --run 2 -o "$T/pin.json" "$T/pin.zst"
check "-t 1-3 on sockets of 2 cores: NC capped at 2 with a note, NS 2, 5 configurations, no span note" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
a = d["regions"]["allande"]
print(a["NC"], a["NS"], a["max"]["configurations"], d["notes"])
sys.exit(not (a["NC"] == 2 and a["NS"] == 2 and a["max"]["configurations"] == 5 and
              any("runs with 1..3 threads but a socket has 2 cores" in n for n in d["notes"]) and
              not any("several sockets" in n for n in d["notes"])))' "$T/pin.json"
HWLOC_XMLFILE="$xml" run_capture "$PMCOLLECT" -q --omp-regions --cpus 0-1 -t 1-2 -o "$T/span.zst" -- "$W/omp_regions" -w 2
expect_status "-t 1-2 --cpus 0-1 on a 2-socket topology recorded" 0
"$PMANALYZE" -q --format json --run 1 -o "$T/span.json" "$T/span.zst"
check "--cpus 0-1 across both sockets: kept (placement cpus), and a note says the runs span sockets" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["notes"])
sys.exit(not any("2 of them ran on CPUs of several sockets (the 1-thread run on CPUs 0-1, 2 sockets)" in n
                 for n in d["notes"]))' "$T/span.json"

# --- the docs' line numbers: every omp_regions.c:LINE in docs/regions.md, docs/performance.md
# (section 18's tables are written by tests/regions-doc.sh) and docs/pmanalyze-json.md is a `#pragma omp parallel` line of the
# workload as it is now (they were one behind after a line was added to its header)
pragmas=$(grep -n '^#pragma omp parallel' "$PMT_TOP/tests/workloads/omp_regions.c" | cut -d: -f1 | tr '\n' ' ')
stale=$(cat "$PMT_TOP/docs/regions.md" "$PMT_TOP/docs/performance.md" "$PMT_TOP/docs/pmanalyze-json.md" | grep -o 'omp_regions\.c:[0-9][0-9]*' |
	cut -d: -f2 | sort -un | while read -r n; do
		case " $pragmas" in *" $n "*) ;; *) printf '%s ' "$n" ;; esac
	done)
if [ -z "$stale" ] && grep -q 'omp_regions\.c:[0-9]' "$PMT_TOP/docs/performance.md"
then ok "docs name omp_regions.c only at its pragma lines ($pragmas)"
else not_ok "docs name omp_regions.c only at its pragma lines ($pragmas)" "stale: $stale (run sh tests/regions-doc.sh)"; fi

# --- usage errors ---------------------------------------------------------------------------------
run_capture "$PMCOLLECT" --omp-runtime llvm -o "$T/u.zst" -- true
expect_status "--omp-runtime without --omp-regions: usage error" 2
run_capture "$PMCOLLECT" -t 1-4 -o "$T/u.zst" -- true
expect_status "-t LIST without --omp-regions: usage error" 2
done_testing
