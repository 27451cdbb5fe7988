#!/bin/sh
# SPDX-License-Identifier: MIT
# `make demo`: records the bundled multi-threaded workload as a 1-CPU baseline (8 threads on
# CPU 0, the model's oversubscribed baseline) and shows what pmanalyze makes of it. The trace
# stays in BUILD/demo/demo.zst.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-build}
case $b in /*) ;; *) b="$top/$b" ;; esac
bin=${PMT_BIN:-$top/bin} # the tests' build of the tools (tests/run-tests.sh)
# kept after the demo (build/demo/), so that the commands pmanalyze suggests run as printed
out="$b/demo"
mkdir -p "$out"
echo "== pmcollect --cpus 0 -- phases -t 8 -w 40 -r 5 mixed   (8 threads on 1 CPU)"
"$bin/pmcollect" -q -f --cpus 0 -o "$out/demo.zst" -- "$b/workloads/phases" -t 8 -w 40 -r 5 mixed \
	>"$out/truth.json"
echo "   ground truth printed by the workload: $(tail -n 1 "$out/truth.json")"
echo
echo "== pmanalyze --info"
"$bin/pmanalyze" --info "$out/demo.zst"
echo
echo "== pmanalyze --cores 1-16"
"$bin/pmanalyze" --cores 1-16 "$out/demo.zst"
