#!/bin/sh
# SPDX-License-Identifier: MIT
# Measures pmcollect's own cost: collector CPU per thread-sample and trace bytes per thread-sample
# for a 64-thread program sampled every 10 ms, next to the floor measured in the same run by
# pread_floor.c (preads of the same threads' schedstat at the same rate, nothing else), on the same
# CPU as the collector. Two programs, both pinned to CPU 0 with --cpus 0 (the baseline set-up of
# Tudor & Teo; pmcollect then pins itself to CPU 1):
#   busy:   phases -t 64 balanced   (64 threads always runnable)
#   chain:  pipeline -t 64 -s       (a dependency chain: one thread runs, 63 sleep)
# usage: sh tests/bench/collector-cost.sh [BUILD_DIR] [SECONDS]   (defaults: build 4)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-build}
seconds=${2:-4}
case "$b" in /*) ;; *) b="$top/$b";; esac
case "$b" in *-address*) bin="$b/bin";; *) bin="$top/bin";; esac
W="$b/workloads"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmt-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
gcc -O2 -o "$tmp/pread_floor" "$top/tests/bench/pread_floor.c"

# json_num KEY FILE: the number after "KEY": in a one-line JSON object
json_num() { sed -n "s/.*\"$1\":\([0-9.e+]*\).*/\1/p" "$2" | head -1; }

measure() { # $1 label, $2.. program
	label=$1; shift
	"$bin/pmcollect" -q -f -o "$tmp/$label.zst" --cpus 0 -i 10 -- "$@" >/dev/null &
	pc=$!
	child=""
	i=0
	# the program is pmcollect's child; wait until its 64 threads exist
	while [ $i -lt 500 ]; do
		child=$(cat /proc/$pc/task/*/children 2>/dev/null | awk '{print $1; exit}') || true
		[ -n "$child" ] || child=$(ps -o pid= --ppid $pc 2>/dev/null | awk 'NR==1{print $1}')
		if [ -n "$child" ] && [ "$(ls /proc/$child/task 2>/dev/null | wc -l)" -ge 64 ]; then break; fi
		sleep 0.01; i=$((i + 1))
	done
	if [ -z "$child" ]; then echo "collector-cost: could not find the program" >&2; exit 1; fi
	"$tmp/pread_floor" "$child" 10 "$((seconds - 1))" 1 >"$tmp/$label.floor"
	wait $pc || true
	"$bin/pmanalyze" --dump "$tmp/$label.zst" | grep '"type":"summary"' >"$tmp/$label.sum"
	bytes=$(wc -c <"$tmp/$label.zst")
	awk -v label="$label" -v bytes="$bytes" \
	    -v ccpu="$(json_num collector_cpu_ns "$tmp/$label.sum")" \
	    -v scpu="$(json_num sampling_cpu_ns "$tmp/$label.sum")" \
	    -v ts="$(json_num thread_samples "$tmp/$label.sum")" \
	    -v s="$(json_num samples "$tmp/$label.sum")" \
	    -v fcpu="$(json_num cpu_ns "$tmp/$label.floor")" \
	    -v fts="$(json_num thread_samples "$tmp/$label.floor")" 'BEGIN {
		c = ccpu / ts / 1000; sc = scpu / ts / 1000; f = fcpu / fts / 1000
		printf "%-6s samples %5d thread-samples %7d | collector %.2f us/thread-sample " \
		       "(sampling only %.2f) | floor %.2f | ratio %.2f (sampling %.2f) | %.2f bytes/thread-sample\n",
		       label, s, ts, c, sc, f, c / f, sc / f, bytes / ts
	}'
}

work=$((seconds * 1000 / 64))
items=$((seconds * 1000 / 64 / 2))
measure busy "$W/phases" -t 64 -w "$work" -r 1 balanced
measure chain "$W/pipeline" -t 64 -w 2 -n "$items" -s
