#!/bin/sh
# SPDX-License-Identifier: MIT
# Time inside MPI per rank (issue 31): real Open MPI jobs of mpi_imbalance, whose ranks do known
# unequal work (2:1 on 2 ranks, 1:2:3:4 on 4) and meet in MPI_Barrier and MPI_Allreduce, which
# Open MPI waits in by polling. Recorded with the README's own form (pmcollect -o
# 'pm-%j/trace.%r.zst' under mpirun: %j is Open MPI's PMIx namespace) and --mpi on by default (the
# program links libmpi). Each rank prints what it measured itself (its work's CPU time, the wall
# time around its own MPI calls): the computation imbalance pmanalyze finds must be within 5% of
# the ranks' own max/mean, and each rank's time in MPI within 5% of its own. Both compare the
# trace with what the ranks measured in the same run, so they hold at any load. Skipped without
# Open MPI (openmpi-bin, libopenmpi-dev).
. "$PMT_TOP/tests/cli/lib.sh"

# jcheck NAME FILE PYTHON-EXPR: passes when the expression over d (the JSON) is true
jcheck() { if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$2" "$3" 2>"$T/jcheck.err"
	then ok "$1"; else not_ok "$1" "failed: $3" "$(head -c 600 "$2")" "$(cat "$T/jcheck.err")"; fi; }

# truth FILE KEY: the ranks' KEY values in rank order, space-separated
truth() { sort -n -k2 "$1" | awk -v k="$2" '$1 == "rank" { for (i = 1; i < NF; i++) if ($i == k) printf "%s ", $(i + 1) }'; }

# job NAME NP WEIGHTS: runs the job in $T/NAME, checks it and prints the before/after figures
job() {
	name=$1; np=$2; weights=$3
	mkdir -p "$T/$name"
	(cd "$T/$name" && timeout 300 mpirun --oversubscribe --allow-run-as-root -np "$np" \
		"$PMCOLLECT" -q -o 'pm-%j/trace.%r.zst' -- "$W/mpi_imbalance" -w 60 -p 6 -s "$weights" \
		>truth.txt 2>err.txt)
	rc=$?
	expect_status "$name: mpirun -np $np pmcollect -o 'pm-%j/trace.%r.zst': exit 0" 0
	dir=$(ls -d "$T/$name"/pm-* 2>/dev/null | head -n 1)
	n=$(ls "$dir" 2>/dev/null | wc -l)
	if [ -n "$dir" ] && [ "$n" -eq "$np" ]; then ok "$name: pm-%j is Open MPI's job id: $(basename "$dir") holds $np traces"
	else not_ok "$name: one directory pm-<job id> with $np traces" "got: $(ls -R "$T/$name" | tr '\n' ' ')" "$(head -c 600 "$T/$name/err.txt")"; return; fi
	# bound by mpirun: no rank warns that the collector shares its CPUs (the job report's note
	# says what the sampling cost instead, or the collector found an SMT sibling)
	if grep -q "collector shares the program's CPUs" "$T/$name/err.txt"
	then not_ok "$name: no per-rank 'collector shares' warning" "$(grep -m1 shares "$T/$name/err.txt")"
	else ok "$name: no per-rank 'collector shares' warning"; fi
	"$PMANALYZE" --info "$dir/trace.0.zst" >"$T/$name/info.txt" 2>&1
	if grep -Eq "^job +id $(basename "$dir" | sed 's/^pm-//') \((PMIX_NAMESPACE|OMPI_MCA_ess_base_jobid)\), rank 0 \(OMPI_COMM_WORLD_RANK\) of $np$" "$T/$name/info.txt"
	then ok "$name: --info names the variable the job id came from"
	else not_ok "$name: --info job line" "$(grep '^job' "$T/$name/info.txt")"; fi
	"$PMANALYZE" -q --format json "$dir" >"$T/$name/job.json" 2>"$T/$name/aerr.txt"
	jcheck "$name: every rank measured by the PMPI library" "$T/$name/job.json" \
		'd["mpi"] is not None and len(d["mpi"]["ranks"]) == '"$np"
	jcheck "$name: the mpiP table has the barriers and allreduces: 3 each per rank" "$T/$name/job.json" \
		'{c["name"]: c["count"] for c in d["mpi"]["calls"]}.get("MPI_Barrier") == 3 * '"$np"' and {c["name"]: c["count"] for c in d["mpi"]["calls"]}.get("MPI_Allreduce") == 3 * '"$np"
	work=$(truth "$T/$name/truth.txt" work_ms)
	want=$(echo "$work" | awk '{ m = 0; s = 0; for (i = 1; i <= NF; i++) { s += $i; if ($i > m) m = $i } printf "%.4f", m / (s / NF) }')
	got=$(json_get "$T/$name/job.json" mpi.imbalance)
	near "$name: computation imbalance (max/mean) within 5% of the ranks' own work ($work ms)" "$got" "$want" 0.05
	before=$(json_get "$T/$name/job.json" imbalance.factor 0)
	mpi_truth=$(truth "$T/$name/truth.txt" mpi_ms)
	r=0
	for m in $mpi_truth; do
		g=$(json_get "$T/$name/job.json" "mpi.ranks.$r.mpi_s")
		near "$name: rank $r's time in MPI within 5% of its own measure" "$(awk -v g="$g" 'BEGIN { printf "%.4f", g * 1000 }')" "$m" 0.05
		r=$((r + 1))
	done
	echo "# $name: busy-time imbalance $before (before), computation imbalance $got (after), ranks' truth $want; time in MPI per rank (trace s): $(python3 -c 'import json,sys; print(" ".join("%.3f" % r["mpi_s"] for r in json.load(open(sys.argv[1]))["mpi"]["ranks"]))' "$T/$name/job.json"), ranks' own ms: $mpi_truth"
}

if ! command -v mpirun >/dev/null 2>&1 || [ ! -x "$W/mpi_imbalance" ]; then
	skip "MPI jobs" "Open MPI (openmpi-bin, libopenmpi-dev) or mpi_imbalance missing"
else
	job two 2 2,1
	job four 4 1,2,3,4
	# --no-mpi: RUN_END has no "mpi" and the merge notes that busy time counts MPI polling
	mkdir -p "$T/off"
	(cd "$T/off" && timeout 300 mpirun --oversubscribe --allow-run-as-root -np 2 \
		"$PMCOLLECT" -q --no-mpi -o 'pm-%j/trace.%r.zst' -- "$W/mpi_imbalance" -w 20 -p 2 -s 2,1 \
		>truth.txt 2>err.txt)
	"$PMANALYZE" "$T/off"/pm-* >"$T/off/report.txt" 2>&1
	if grep -q "^note: time inside MPI not measured in 2 of 2 ranks: their busy time includes the time they polled inside MPI" "$T/off/report.txt"
	then ok "--no-mpi: the note says busy time includes MPI polling"
	else not_ok "--no-mpi: the note" "$(tail -n 5 "$T/off/report.txt")"; fi
fi

done_testing
