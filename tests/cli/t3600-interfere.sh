#!/bin/sh
# SPDX-License-Identifier: MIT
# Active interference end to end (issue 15; Casas & Bronevetsky): pmcollect --calibrate-interference
# measures this machine and writes the machine file, pmcollect --interfere runs the program beside
# 0..K interferers, pmanalyze reports the sensitivity. On this VM hwloc shows a private L3 per vCPU,
# so the interferers are put on CPU 1 with --interfere-cpus. Timing on a loaded machine: only
# ratios with generous bounds (a streaming program is slowed more by a BWThr than a compute-bound
# one); bad inputs give one error line and exit 2 (docs/pmcollect.1).
. "$PMT_TOP/tests/cli/lib.sh"

if [ "$(nproc)" -lt 2 ]; then
	echo "ok 1 # SKIP active interference needs 2 CPUs (one for the program, one for the interferers)"
	echo "1..1"; exit 0
fi
cal="$T/cal.json"
# the JSON report's interference object, field by field (python3 is in the CI image: tests use it)
jget() { python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))["interference"]
for k in sys.argv[2].split("."):
    d=d[int(k)] if isinstance(d,list) else d[k]
print(d)' "$1" "$2"; }

# ---- bad inputs (cheap: before any measurement) ----
run_capture "$PMCOLLECT" -o "$T/x.pmt" --interfere memory --interfere-cpus 1 -- true
expect_status "unknown kind: exit 2" 2
expect_err_line "unknown kind: one line" "^pmcollect: error: invalid --interfere 'memory': use cache or bandwidth$"
run_capture "$PMCOLLECT" -o "$T/x.pmt" --cpus 0-1 --interfere bandwidth -- true
expect_status "--cpus covering every CPU: exit 2" 2
expect_err_line "--cpus covering every CPU: one line naming --interfere-cpus" "^pmcollect: error: cannot place the interferers: .*--interfere-cpus"
run_capture "$PMCOLLECT" -o "$T/x.pmt" --cpus 0 --interfere-cpus 0 --interfere bandwidth -- true
expect_status "--interfere-cpus overlapping --cpus: exit 2" 2
expect_err_line "--interfere-cpus overlapping --cpus: one line" "overlaps --cpus"
run_capture "$PMCOLLECT" -o "$T/x.pmt" --interfere bandwidth --interfere-cpus 1 --interference-file "$T/none.json" -- true
expect_status "no machine file: exit 2" 2
expect_err_line "no machine file: one line naming --calibrate-interference" "^pmcollect: error: no usable interference calibration: .*--calibrate-interference"
if [ -e "$T/x.pmt" ]; then not_ok "a refused command leaves no trace" "$T/x.pmt exists"; else ok "a refused command leaves no trace"; fi

# ---- calibration: the machine file and the trace ----
run_capture "$PMCOLLECT" -q --calibrate-interference --interfere-cpus 1 --interference-file "$cal" -o "$T/cal.pmt"
expect_status "--calibrate-interference exits 0" 0
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["format"]=="pmtools-interference/1" and d["BW1_bytes_per_s"]>0 and d["B_bytes_per_s"]>d["BW1_bytes_per_s"]*0.5 and len(d["capacity"])==2))' "$cal"; then
	ok "machine file: BW1 > 0, B > BW1/2, capacity rows k = 0, 1"
else not_ok "machine file: BW1 > 0, B > BW1/2, capacity rows k = 0, 1" "$(head -c 400 "$cal")"; fi
run_capture "$PMANALYZE" -f json "$T/cal.pmt"
expect_status "pmanalyze on the calibration trace exits 0" 0
cp "$T/out" "$T/cal.json.out"
bw1=$(jget "$T/cal.json.out" calibration.BW1_bytes_per_s 2>/dev/null)
fbw1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["BW1_bytes_per_s"])' "$cal")
near "the trace's META holds the machine file's BW1" "$bw1" "$fbw1" 0.000001

# a machine file from another machine is refused
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["topology"]="cpu=Other packages=2 cores=64 pus=128 numa=2"; json.dump(d,open(sys.argv[2],"w"))' "$cal" "$T/other.json"
run_capture "$PMCOLLECT" -o "$T/x.pmt" --interfere bandwidth --interfere-cpus 1 --interference-file "$T/other.json" -- true
expect_status "machine file of another machine: exit 2" 2
expect_err_line "machine file of another machine: one line" "measured on another machine"
run_capture "$PMCOLLECT" -o "$T/x.pmt" --interfere bandwidth --interfere-cpus 1 --levels 0-3 --interference-file "$cal" -- true
expect_status "--levels beyond the interferer CPUs: exit 2" 2
expect_err_line "--levels beyond the interferer CPUs: one line" "^pmcollect: error: invalid --levels '0-3': want 0 to 1"
run_capture "$PMCOLLECT" -o "$T/x.pmt" --interfere bandwidth --interfere-cpus 1 --levels 1 --interference-file "$cal" -- true
expect_status "--levels not starting at 0: exit 2" 2

# ---- bandwidth: a streaming program against a compute-bound one, same thread structure ----
measure() { # name, then the command: the k = 1 slowdown into $T/name.slow
	name=$1; shift
	run_capture "$PMCOLLECT" -q --interfere bandwidth --interfere-cpus 1 --repeat 3 --interference-file "$cal" -o "$T/$name.pmt" -- "$@"
	expect_status "$name: pmcollect --interfere bandwidth exits 0" 0
	"$PMANALYZE" -f json "$T/$name.pmt" >"$T/$name.json" 2>"$T/$name.err"
	jget "$T/$name.json" curve.1.slowdown >"$T/$name.slow" 2>>"$T/$name.err"
}
# stream: 3 x 32 MiB (above the ~16 MB of host cache CPU 0 sees), 100 passes, so the passes
# (about 0.4 s) outweigh touching the arrays (about 0.3 s here: the host backs each new page);
# with -r 6 the run was 90% page faults, not bandwidth
measure stream "$W/stream" -m 32 -r 100
measure compute "$W/triad" -t 1 -m 48 -r 40 -c
s=$(cat "$T/stream.slow"); c=$(cat "$T/compute.slow")
if [ "$(jget "$T/stream.json" runs)" = 6 ] && [ "$(jget "$T/stream.json" curve.1.k)" = 1 ]; then
	ok "stream: 6 runs used, levels k = 0, 1"
else not_ok "stream: 6 runs used, levels k = 0, 1" "$(head -c 600 "$T/stream.json")"; fi
# k = 0 runs a filler (register arithmetic) on CPU 1 where k = 1 runs the BWThr, so a program
# that touches no memory runs at the same speed at both levels. Without the filler its CPU time
# dropped 9-14% at k = 1 (other programs' work on vCPU 1 costs vCPU 0 about 20% of its time in
# VM exits, a spinning thread 5%; docs/interference.md)
if awk -v c="$c" 'BEGIN { exit !(c != "" && c > -0.10 && c < 0.10) }'; then
	ok "a BWThr leaves the compute-bound triad's CPU time within 10% ($c)"
else not_ok "a BWThr leaves the compute-bound triad's CPU time within 10%" "slowdown $c; $(machine_load)"; fi
# the BWThr takes bandwidth only when it gets its CPU: on a machine loaded by other programs it may
# run a fraction of the time (RUN_END interferers.bytes_per_s against the calibration's BW1)
got=$(jget "$T/stream.json" curve.1.interferers_bytes_per_s)
sv=$(jget "$T/stream.json" verdict)
if awk -v g="$got" -v b="$bw1" 'BEGIN { exit !(g < 0.25 * b) }'; then
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP the BWThr moved $got B/s beside stream, under a quarter of its BW1 $bw1 (CPU 1 shared with other load): no bandwidth taken to compare; $(machine_load)"
elif [ "$sv" = sensitive ]; then
	if awk -v s="$s" -v c="$c" 'BEGIN { exit !(s > c + 0.02) }'; then
		ok "a BWThr slows stream more than the compute-bound triad ($s vs $c)"
	else not_ok "a BWThr slows stream more than the compute-bound triad" "stream $s, compute $c; $(machine_load)"; fi
else
	# measured on this VM (2026-11-23): even a whole STREAM thread on vCPU 1 (18 GB/s) does not
	# slow one on vCPU 0, the host's memory system is far larger than two vCPUs can load; the
	# tool's answer is then "not sensitive", checked below (docs/interference.md: on a server)
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP a BWThr takes no bandwidth a program on CPU 0 notices here (stream $s, compute $c, BWThr $got B/s, the tool says not sensitive): this VM cannot show the effect, see docs/interference.md for a server; $(machine_load)"
fi
if [ "$(jget "$T/stream.json" estimate)" = bandwidth ]; then ok "bandwidth estimate: B - k BW1"
else not_ok "bandwidth estimate: B - k BW1" "$(jget "$T/stream.json" estimate_reason)"; fi
# the verdict agrees with the curve: sensitive exactly when level 1 is degraded
v=$(jget "$T/stream.json" verdict); d=$(jget "$T/stream.json" curve.1.degraded)
if { [ "$v" = sensitive ] && [ "$d" = True ]; } || { [ "$v" = not_sensitive ] && [ "$d" = False ]; }; then
	ok "stream: verdict '$v' agrees with level 1 degraded=$d"
else not_ok "stream: verdict agrees with the curve" "verdict $v, degraded $d"; fi
if [ "$v" = sensitive ]; then
	lo=$(jget "$T/stream.json" need_lo); hi=$(jget "$T/stream.json" need_hi)
	left1=$(jget "$T/stream.json" curve.1.left_bytes_per_s); left0=$(jget "$T/stream.json" curve.0.left_bytes_per_s)
	near "stream: bandwidth needed from B - k_bad BW1 (lower bound)" "$lo" "$left1" 0.000001
	near "stream: bandwidth needed up to B - k_ok BW1 (upper bound)" "$hi" "$left0" 0.000001
fi
# --procs p: the needs per process are the resource left divided by p (§5.2)
"$PMANALYZE" -f json --procs 3 "$T/stream.pmt" >"$T/stream3.json"
if [ "$(jget "$T/stream3.json" p)" = 3 ]; then ok "--procs 3: p = 3 in the report"
else not_ok "--procs 3: p = 3 in the report" "$(head -c 400 "$T/stream3.json")"; fi
if [ "$v" = sensitive ]; then
	near "--procs 3: the upper bound is (B - k_ok BW1) / 3" "$(jget "$T/stream3.json" need_hi)" \
		"$(python3 -c "print($(jget "$T/stream.json" need_hi) / 3)")" 0.000001
fi
run_capture "$PMANALYZE" --procs 0 "$T/stream.pmt"
expect_status "pmanalyze --procs 0: exit 2" 2
run_capture "$PMANALYZE" -f csv "$T/stream.pmt"
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$T/out")" -eq 3 ] && head -1 "$T/out" | grep -q '^kind,k,left,'; then
	ok "CSV: a header and one row per level"
else not_ok "CSV: a header and one row per level" "$(head -c 400 "$T/out")"; fi

# ---- cache: what the calibration shows this machine can do ----
run_capture "$PMCOLLECT" -q --interfere cache --interfere-cpus 1 --repeat 2 --interference-file "$cal" -o "$T/rw.pmt" -- "$W/randwalk" -w 8 -n 4
expect_status "randwalk: pmcollect --interfere cache exits 0" 0
"$PMANALYZE" -f json "$T/rw.pmt" >"$T/rw.json"
res=$(jget "$T/cal.json.out" calibration.capacity_resolvable 2>/dev/null)
est=$(jget "$T/rw.json" estimate)
reason=$(jget "$T/rw.json" estimate_reason)
c0=$(jget "$T/cal.json.out" calibration.capacity_bytes.0); c1=$(jget "$T/cal.json.out" calibration.capacity_bytes.1)
if awk -v a="$c0" -v b="$c1" 'BEGIN { exit !(a != "None" && b != "None" && a - b > 0.1 * a) }' && [ "$est" = capacity ]; then
	ok "the CSThr takes capacity here (C(0) $c0, C(1) $c1): the cache estimate is C(k)"
elif [ "$est" = none ] && echo "$reason" | grep -q "capacity not resolvable"; then
	ok "the CSThr takes no resolvable capacity here (C(0) $c0, C(1) $c1): the tool says so"
else not_ok "cache estimate follows the calibration" "estimate $est ($reason), C(0) $c0, C(1) $c1, resolvable $res"; fi
run_capture "$PMANALYZE" "$T/rw.pmt"
if [ "$rc" -eq 0 ] && grep -q "^Active interference" "$T/out" && grep -q "estimate: " "$T/out"; then
	ok "the table names the estimate used and why"
else not_ok "the table names the estimate used and why" "$(head -c 600 "$T/out")"; fi
run_capture "$PMANALYZE" --threshold 0 "$T/rw.pmt"
expect_status "pmanalyze --threshold 0: exit 2" 2

done_testing
