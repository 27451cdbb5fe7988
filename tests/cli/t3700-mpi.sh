#!/bin/sh
# SPDX-License-Identifier: MIT
# One trace per MPI rank and their merge (issue 18): a real 4-rank Open MPI job of hybrid_workload
# (MPI + OpenMP, rank r burns (r+1) units per thread: imbalance 2N/(N+1) = 1.6 by construction),
# the output name templates, a rank killed with SIGKILL, bad input, and that no tracefs instance
# is left behind. Needs Open MPI (openmpi-bin, libopenmpi-dev: .ci/deps.sh); skipped without it.
. "$PMT_TOP/tests/cli/lib.sh"

INST=/sys/kernel/tracing/instances
# no_instances NAME REGEX: no tracefs instance whose name matches REGEX is left (the watchdog of
# a SIGKILLed pmcollect removes its instance a moment later: wait up to 30 s, a hang guard). Ranks' instances are
# pmcollect-<pid>-r<rank>; other pmcollects may run on this machine meanwhile, so only those.
no_instances() {
	[ -d "$INST" ] || { ok "$1 # SKIP no $INST"; return; }
	i=0
	while ls "$INST" | grep -Eq "$2" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	left=$(ls "$INST" | grep -E "$2")
	if [ -z "$left" ]; then ok "$1"; else not_ok "$1" "left: $left"; fi
}
# json NAME FILE PYTHON-EXPR: passes when the expression over d (the JSON) is true
jcheck() { if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$2" "$3" 2>"$T/jcheck.err"
	then ok "$1"; else not_ok "$1" "failed: $3" "$(head -c 600 "$2")" "$(cat "$T/jcheck.err")"; fi; }
# frow INPUT EXPECTED: a docs/faults.md row for the check just made (pass or FAIL by its result)
frow() { if [ "$tap_failed" -eq "${frow_failed:-0}" ]; then res=pass; else res=FAIL; fi
	frow_failed=$tap_failed; fault_row pmanalyze "$1" "$2" "$(head -n 1 "$T/err" | cut -c1-120)" "$res"; }
# fake_rank R JOB DIR CMD...: pmcollect as rank R of 4 of job JOB (the launcher's variables set by hand)
fake_rank() {
	r=$1; job=$2; dir=$3; shift 3
	OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_LOCAL_RANK=$r OMPI_COMM_WORLD_SIZE=4 SLURM_JOB_ID=$job \
		"$PMCOLLECT" -q --no-sched -o "$dir/trace.%r.zst" -- "$@"
}

# --- templates: every placeholder, a missing variable, 16 ranks creating one directory ----------
OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_LOCAL_RANK=1 SLURM_JOB_ID=55 SLURM_STEP_ID=2 \
	"$PMCOLLECT" -q --no-sched -o "$T/tpl/r%r-l%l-h%h-j%j-p%p-%%.zst" -- true 2>"$T/err"
f=$(ls "$T/tpl" 2>/dev/null)
if echo "$f" | grep -Eq "^r3-l1-h$(hostname | tr -c 'A-Za-z0-9._+\n-' '_')-j55\.2-p[0-9]+-%\.zst$"
then ok "template: %r %l %h %j %p %% expanded ($f)"; else not_ok "template: every placeholder" "got '$f'" "$(cat "$T/err")"; fi
run_capture env -u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u PMI_RANK -u SLURM_PROCID -u MV2_COMM_WORLD_RANK \
	"$PMCOLLECT" -q --no-sched -o "$T/none/trace.%r.zst" -- true
expect_status "template: a rank no variable gives is a usage error" 2
expect_err_line "template: one line naming the variables" "^pmcollect: error: '%r' in '.*' needs a rank, but none of OMPI_COMM_WORLD_RANK, .* is set$"
if [ ! -e "$T/none" ]; then ok "template: nothing created on error"; else not_ok "template: nothing created on error"; fi
pids=""
for r in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
	OMPI_COMM_WORLD_RANK=$r "$PMCOLLECT" -q --no-sched -o "$T/c16/a/b/trace.%r.zst" -- true 2>"$T/c16.$r.err" &
	pids="$pids $!"
done
bad=0; for p in $pids; do wait "$p" || bad=$((bad + 1)); done
n=$(ls "$T/c16/a/b" 2>/dev/null | grep -c '^trace\.[0-9]*\.zst$')
if [ "$bad" -eq 0 ] && [ "$n" -eq 16 ]; then ok "16 ranks create one directory at once: 16 traces"
else not_ok "16 ranks create one directory at once" "$bad failed, $n traces" "$(cat "$T"/c16.*.err | head -5)"; fi
OMPI_COMM_WORLD_RANK=0 "$PMCOLLECT" -q --no-sched -o "$T/c16/a/b/trace.%r.zst" -- true 2>"$T/err"; rc=$?
expect_status "an existing rank trace is never overwritten" 2
expect_err_line "existing trace: one line" "already exists"

# --- Slurm's variables alone (srun sets no Open MPI ones): three ranks of step 0 of job 1234 ---
for r in 0 1 2; do
	env -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_LOCAL_RANK -u OMPI_COMM_WORLD_SIZE -u PMIX_RANK \
		-u PMI_RANK -u PMI_SIZE -u MPI_LOCALRANKID -u MV2_COMM_WORLD_RANK -u PBS_JOBID -u LSB_JOBID \
		SLURM_PROCID=$r SLURM_LOCALID=$r SLURM_NTASKS=3 SLURM_JOB_ID=1234 SLURM_STEP_ID=0 \
		"$PMCOLLECT" -q --no-sched -o "$T/slurm/pm-%j/trace.%r.zst" -- true 2>"$T/slurm.$r.err"
done
n=$(ls "$T/slurm/pm-1234.0" 2>/dev/null | tr '\n' ' ')
if [ "$n" = "trace.0.zst trace.1.zst trace.2.zst " ]; then ok "Slurm: pm-%j is pm-1234.0/, traces named by SLURM_PROCID"
else not_ok "Slurm: pm-1234.0/trace.{0,1,2}.zst" "got: $(ls -R "$T/slurm" 2>&1 | tr '\n' ' ')" "$(cat "$T"/slurm.*.err)"; fi
"$PMANALYZE" --dump "$T/slurm/pm-1234.0/trace.1.zst" 2>/dev/null | head -n 1 >"$T/slurm.meta.json"
jcheck "Slurm: META names the variables (rank_var SLURM_PROCID, id_var SLURM_JOB_ID+SLURM_STEP_ID)" "$T/slurm.meta.json" \
	'd["job"]["rank"]==1 and d["job"]["rank_var"]=="SLURM_PROCID" and d["job"]["local_rank"]==1 and d["job"]["local_rank_var"]=="SLURM_LOCALID" and d["job"]["size"]==3 and d["job"]["size_var"]=="SLURM_NTASKS" and d["job"]["id"]=="1234.0" and d["job"]["id_var"]=="SLURM_JOB_ID+SLURM_STEP_ID"'
"$PMANALYZE" -q --format json "$T/slurm/pm-1234.0/" >"$T/slurm.json" 2>"$T/err"
jcheck "Slurm: pmanalyze pm-1234.0/ merges job 1234.0, ranks 0-2 of 3, none missing" "$T/slurm.json" \
	'd["job"]=="1234.0" and d["size"]==3 and [r["rank"] for r in d["ranks"]]==[0,1,2] and d["missing_ranks"]==[] and all(r["complete"] for r in d["ranks"])'

# --- the wrapped command is a launcher: warned --------------------------------------------------
"$PMCOLLECT" --no-sched -o "$T/launcher.zst" -- mpirun --version >/dev/null 2>"$T/err"
if grep -q "^pmcollect: warning: the command is the launcher 'mpirun': this records the launcher, not the ranks" "$T/err"
then ok "pmcollect -- mpirun: warned"; else not_ok "pmcollect -- mpirun: warned" "$(cat "$T/err")"; fi

# --- the tracefs instance of a rank is named after it -------------------------------------------
if [ "$(id -u)" -eq 0 ] && [ -d "$INST" ]; then
	OMPI_COMM_WORLD_RANK=7 "$PMCOLLECT" -q -o "$T/inst.zst" -- sleep 1 2>/dev/null &
	p=$!; i=0; seen=""
	while [ -z "$seen" ] && kill -0 $p 2>/dev/null; do seen=$(ls "$INST" | grep "^pmcollect-$p-r7\$"); sleep 0.05; i=$((i + 1)); done
	wait $p
	if [ -n "$seen" ]; then ok "rank 7's tracefs instance: $seen"; else not_ok "rank 7's tracefs instance is pmcollect-$p-r7" "$(ls "$INST")"; fi
else
	ok "rank's tracefs instance # SKIP needs root and tracefs"
fi

frow_failed=$tap_failed
# --- faults: one rank's pmcollect killed with SIGKILL ---------------------------------------------
for r in 0 1 3; do fake_rank $r 81 "$T/kill" "$W/phases" -t 2 -w 100 -r 1 balanced >/dev/null 2>&1 & done
OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_LOCAL_RANK=2 OMPI_COMM_WORLD_SIZE=4 SLURM_JOB_ID=81 \
	"$PMCOLLECT" -q -o "$T/kill/trace.%r.zst" -- "$W/phases" -t 2 -w 5000 -r 1 balanced >/dev/null 2>&1 &
victim=$!
sleep 3; kill -KILL $victim; wait
no_instances "SIGKILLed rank: its tracefs instance is removed" "^pmcollect-$victim-r2\$"
run_capture "$PMANALYZE" -q --format json "$T/kill"
expect_status "SIGKILLed rank: the merge still works" 0
cp "$T/out" "$T/kill.json"
jcheck "SIGKILLed rank: rank 2 incomplete, the others' results stand" "$T/kill.json" '[r["complete"] for r in d["ranks"]]==[True,True,False,True] and d["imbalance"]["incomplete_ranks"]==1 and d["summary"]["ranks"]==3 and d["imbalance"]["factor"] is not None'
echo "rank 2 INCOMPLETE, merged over 3 ranks" >"$T/err"
frow "one rank's pmcollect killed with SIGKILL (4-rank job)" "exit 0, the rank incomplete, the others stand"

# --- bad input -----------------------------------------------------------------------------------
fake_rank 0 91 "$T/two" true 2>/dev/null; fake_rank 1 92 "$T/two" true 2>/dev/null
run_capture "$PMANALYZE" "$T/two"
expect_status "traces of two jobs: refused" 2
expect_err_line "traces of two jobs: one line" "^pmanalyze: error: .* is of job 91 but .* of job 92: traces of two jobs \(use --force"
frow "rank traces of two jobs" "exit 2, one line"
run_capture "$PMANALYZE" --force "$T/two"
expect_status "traces of two jobs with --force: merged" 0
# two jobs that both have ranks 0 and 1 (of 4): --force groups them by (job, rank)
for job in 101 102; do for r in 0 1; do fake_rank $r $job "$T/two2/$job" true 2>/dev/null; done; done
run_capture "$PMANALYZE" --force --format json "$T/two2/101/trace.0.zst" "$T/two2/101/trace.1.zst" \
	"$T/two2/102/trace.0.zst" "$T/two2/102/trace.1.zst"
expect_status "two jobs with ranks 0-1 each, --force: merged" 0
cp "$T/out" "$T/two2.json"
jcheck "--force: rows by (job, rank), each job missing its ranks 2 and 3" "$T/two2.json" \
	'[(r["job"], r["rank"]) for r in d["ranks"]]==[("101",0),("101",1),("102",0),("102",1)] and d["job"] is None and [(j["job"], j["traces"], j["missing"]) for j in d["jobs"]]==[("101",2,2),("102",2,2)] and list(zip(d["missing_jobs"], d["missing_ranks"]))==[("101",2),("101",3),("102",2),("102",3)] and d["size"]==8'
"$PMANALYZE" --force "$T/two2/101" "$T/two2/102" >"$T/two2.table" 2>&1
if grep -q '^jobs         101, 102 (2 jobs merged with --force' "$T/two2.table" && grep -q '^102:1 ' "$T/two2.table"
then ok "--force: the table names the jobs and the ranks as job:rank"; else not_ok "--force table: jobs and job:rank" "$(head -c 800 "$T/two2.table")"; fi
mkdir -p "$T/empty"
run_capture "$PMANALYZE" "$T/empty"
expect_status "a directory without traces: usage error" 2
expect_err_line "a directory without traces: one line" "^pmanalyze: error: no trace in directory '.*' \(looked for \*\.zst files\)$"
frow "a directory without traces" "exit 2, one line"
fake_rank 1 93 "$T/dupa" true 2>/dev/null; fake_rank 1 93 "$T/dupb" true 2>/dev/null
run_capture "$PMANALYZE" "$T/dupa/trace.1.zst" "$T/dupb/trace.1.zst"
expect_status "two traces claiming the same rank: refused" 1
expect_err_line "same rank: one line" "^pmanalyze: error: '.*' and '.*' both claim rank 1$"
frow "two traces claiming the same rank" "exit 1, one line"
# --- omega where calibrated: two ranks recorded with --runs (1 CPU, then 2) ----------------------
for r in 0 1; do
	OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=2 "$PMCOLLECT" -q --no-sched -t 2 --runs 0 0-1 \
		-o "$T/cal/trace.%r.zst" -- "$W/omp_phases" -w 30 -r 3 imbalanced >/dev/null 2>&1
done
"$PMANALYZE" -q --format json "$T/cal" >"$T/cal.json" 2>"$T/cal.err"
# omp_phases imbalanced, m = 2: A(m,inf) = 1.5; compute-bound, so omega(2) near 0 (sanity bound
# 0.5 as t3200's on a loaded machine)
jcheck "calibrated ranks: omega(2) at their 2 CPUs, |omega| < 0.5; A(m,inf) near 1.5" "$T/cal.json" \
	'all(r["omega"] is not None and abs(r["omega"]) < 0.5 and abs(r["A_inf"] - 1.5) < 0.15 for r in d["ranks"])'

# --- calibration runs that fail (as a second start of an MPI program under mpirun does: Open MPI's
# orte_init refuses it): the run on CPUs 0-1 exits 1; the merge says so and how to calibrate ---
for r in 0 1; do
	OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=2 "$PMCOLLECT" -q --no-sched -t 2 --runs 0 0-1 \
		-o "$T/calfail/trace.%r.zst" -- sh -c 'if [ -e "$0" ]; then exit 1; fi; : >"$0"; exec "$@"' \
		"$T/calfail.$r.flag" "$W/omp_phases" -w 30 -r 1 imbalanced >/dev/null 2>&1
done
"$PMANALYZE" -q --format json "$T/calfail" >"$T/calfail.json" 2>"$T/err"
jcheck "failed calibration runs: omega null, 1 failed run per rank, a note on how to calibrate" "$T/calfail.json" \
	'all(r["omega"] is None and r["calibration_runs_failed"]==1 for r in d["ranks"]) and any("calibration runs failed in 2 of them" in n and "run 1: exited 1" in n and "pmanalyze --calibration cal.zst" in n for n in d["notes"])'
frow_failed=$tap_failed
"$PMANALYZE" -q --calibration "$T/calfail/trace.0.zst" "$T/calfail" >/dev/null 2>"$T/err"; rc=$?
expect_status "--calibration FILE without usable calibration runs: usage error" 2
expect_err_line "--calibration without calibration runs: one line" "^pmanalyze: error: --calibration: '.*trace\.0\.zst' gives no omega: "
frow "pmanalyze --calibration with a trace without calibration runs" "exit 2, one line"

# --- a real job: mpirun -np 4 pmcollect ... -- hybrid_workload ----------------------------------
if ! command -v mpirun >/dev/null 2>&1 || [ ! -x "$W/hybrid_workload" ]; then
	ok "mpirun job # SKIP Open MPI (openmpi-bin, libopenmpi-dev) or hybrid_workload missing"
else
OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive timeout 300 mpirun --oversubscribe --allow-run-as-root -np 4 \
	"$PMCOLLECT" -q -o "$T/job/trace.%r.zst" -- "$W/hybrid_workload" -w 40 -p 3 >"$T/job.truth" 2>"$T/job.err"
rc=$?
expect_status "mpirun -np 4 pmcollect: exit 0" 0
n=$(ls "$T/job" 2>/dev/null | tr '\n' ' ')
if [ "$n" = "trace.0.zst trace.1.zst trace.2.zst trace.3.zst " ]; then ok "four traces, named by rank"
else not_ok "four traces, named by rank" "got: $n" "$(head -c 600 "$T/job.err")"; fi
no_instances "no tracefs instance left after the job" '^pmcollect-[0-9]+-r[0-3]$'
"$PMANALYZE" -q --format json "$T/job" >"$T/job.json" 2>"$T/job.aerr"
jcheck "merged: 4 ranks of 4, all complete" "$T/job.json" 'd["size"]==4 and [r["rank"] for r in d["ranks"]]==[0,1,2,3] and all(r["complete"] for r in d["ranks"])'
jcheck "merged: the slowest rank is 3, alone on the critical path" "$T/job.json" 'd["imbalance"]["slowest_rank"]==3 and d["imbalance"]["critical_ranks"]==[3]'
cpu() { sed -n "s/^rank $1 cpu_ms //p" "$T/job.truth"; }
if [ -z "$(cpu 0)" ] || [ -z "$(cpu 3)" ]; then not_ok "the workload printed its CPU time" "$(cat "$T/job.truth")"; fi
truth=$(awk -v a="$(cpu 0)" -v b="$(cpu 1)" -v c="$(cpu 2)" -v d="$(cpu 3)" 'BEGIN{m=a; if(b>m)m=b; if(c>m)m=c; if(d>m)m=d; printf "%.4f", m/((a+b+c+d)/4)}')
got=$(json_get "$T/job.json" imbalance.factor)
accuracy "imbalance = max/mean of the ranks' own CPU time (getrusage)" "$got" "$truth" 0.03
# The workload measures its phases' CPU time W (CLOCK_THREAD_CPUTIME_ID per thread) and critical
# path P; the rest of a rank's CPU time, cpu - W, is MPI's start-up and end and the barriers.
ph() { sed -n "s/^rank $1 phases_cpu_ms \([^ ]*\) phases_cp_ms \([^ ]*\)$/\\$2/p" "$T/job.truth"; }
# MPI's start-up and end (~0.06-0.2 s per rank) pull the factor below the work's 1.6; less each
# rank's measured share, pmanalyze's busy times are the work, whose imbalance is the construction's
work=$(for r in 0 1 2 3; do awk -v b="$(json_get "$T/job.json" ranks.$r.busy_s)" -v c="$(cpu $r)" -v w="$(ph $r 1)" \
	'BEGIN{printf "%.6f ", b - (c - w) / 1000}'; done)
accuracy "imbalance of the work (busy time less each rank's measured MPI start-up) = 2N/(N+1) = 1.6" \
	"$(echo "$work" | awk '{m=$1; s=0; for(i=1;i<=NF;i++){s+=$i; if($i>m)m=$i} printf "%.4f", m/(s/NF)}')" 1.6 0.03
# A(m,inf) within 3% in make check-accuracy; under make check the machine's load moves the
# runnable estimator of 8 threads on 2 CPUs by a few per cent (measured: 1.8% under load 5)
a_tol=0.05; [ "$PMT_ACCURACY" = strict ] && a_tol=0.03
for r in 0 1 2 3; do
	accuracy "rank $r: busy time is its CPU time" "$(json_get "$T/job.json" ranks.$r.busy_s)" "$(awk -v c="$(cpu $r)" 'BEGIN{print c/1000}')" 0.03
	# A(m,inf) = cpu / (P + cpu - W): the phases' measured critical path, the rest on one
	# thread (Tudor & Teo, eq. 4)
	accuracy "rank $r: A(m,inf) is the measured construction's (within $a_tol)" "$(json_get "$T/job.json" ranks.$r.A_inf)" \
		"$(awk -v c="$(cpu $r)" -v w="$(ph $r 1)" -v p="$(ph $r 2)" 'BEGIN{printf "%.4f", c / (p + c - w)}')" $a_tol
done
jcheck "A(m,inf): rank 3's above rank 0's (a larger share on 2 threads)" "$T/job.json" 'd["ranks"][3]["A_inf"] > d["ranks"][0]["A_inf"]'
jcheck "clocks: the ranks' starts within 30 s on the realtime axis" "$T/job.json" '0 <= d["clocks"]["start_spread_s"] < 30'
meta() { "$PMANALYZE" --dump "$T/job/trace.$1.zst" | head -n 1 >"$T/meta.$1.json"; }
meta 0; meta 2
jcheck "META of rank 2: rank, size and the variables" "$T/meta.2.json" 'd["job"]["rank"]==2 and d["job"]["size"]==4 and d["job"]["rank_var"]=="OMPI_COMM_WORLD_RANK" and d["clocks"]["realtime_s"] > 1.6e9'
jcheck "whole-node readings by local rank 0 only" "$T/meta.0.json" 'd["node_readings"]["taken"] and "hwloc_xml" in d["topology"]'
jcheck "local rank 2 says local rank 0 takes them" "$T/meta.2.json" 'not d["node_readings"]["taken"] and "hwloc_xml" not in d["topology"] and d["topology"]["hwloc_xml_by"]'
"$PMANALYZE" -q -j 1 --format json "$T/job" >"$T/job1.json" 2>&1
if cmp -s "$T/job.json" "$T/job1.json"; then ok "-j 1 and the default -j give the same report"; else not_ok "-j 1 and -j N agree" "$(diff "$T/job.json" "$T/job1.json" | head)"; fi
# the job's CSV (docs/pmanalyze-json.md): a header and one row per rank, the same numbers as the JSON
"$PMANALYZE" -q --format csv "$T/job" >"$T/job.csv" 2>"$T/err"
if python3 -c 'import csv,json,math,sys
rows = list(csv.DictReader(open(sys.argv[1]))); d = json.load(open(sys.argv[2]))
want = "rank,local_rank,host,cpus,m,A_inf,T_cp_s,wall_s,busy_s,omega,start_offset_s,drift_ppm,complete,estimator,path,job".split(",")
ok = list(rows[0].keys()) == want and len(rows) == len(d["ranks"]) == 4
for r, j in zip(rows, d["ranks"]):
    ok = ok and int(r["rank"]) == j["rank"] and int(r["local_rank"]) == j["local_rank"] and r["cpus"] == j["cpus"]
    for k in ("A_inf", "T_cp_s", "busy_s", "wall_s"):
        ok = ok and math.isclose(float(r[k]), j[k], rel_tol=1e-3, abs_tol=1e-6)
    ok = ok and (r["omega"] == "nan") == (j["omega"] is None)
sys.exit(not ok)' "$T/job.csv" "$T/job.json"; then ok "CSV: the documented header and one row per rank, as in the JSON"
else not_ok "CSV: header and one row per rank, as in the JSON" "$(head -c 600 "$T/job.csv")"; fi
"$PMANALYZE" "$T/job/trace.0.zst" "$T/job/trace.1.zst" "$T/job/trace.2.zst" "$T/job/trace.3.zst" >"$T/job.table" 2>&1
if grep -q '^imbalance ' "$T/job.table" && grep -q '^summary ' "$T/job.table"; then ok "the traces named one by one: the merged table"
else not_ok "traces named one by one: merged table" "$(head -c 600 "$T/job.table")"; fi
echo "# $(cat "$T/job.truth" | tr '\n' ';')"
sed 's/^/# /' "$T/job.table"
# omega for every rank from a calibration trace recorded outside the launcher: the program run
# as a single rank (Open MPI's singleton MPI_Init), on 1 CPU and on 2
OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive "$PMCOLLECT" -q --no-sched -t 2 --runs 0 0-1 -o "$T/jobcal.zst" -- \
	"$W/hybrid_workload" -w 20 -p 2 >/dev/null 2>"$T/jobcal.err"
"$PMANALYZE" -q --calibration "$T/jobcal.zst" --format json "$T/job" >"$T/jobcal.json" 2>"$T/err"
jcheck "--calibration: omega(2) of every rank from the calibration trace, |omega| < 0.5" "$T/jobcal.json" \
	'all(r["omega"] is not None and abs(r["omega"]) < 0.5 and r["omega_source"]=="calibration" for r in d["ranks"]) and any("from the calibration trace" in n for n in d["notes"]) and not any("omega unknown" in n for n in d["notes"])'

fi
done_testing
