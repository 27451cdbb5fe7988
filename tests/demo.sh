#!/bin/sh
# SPDX-License-Identifier: MIT
# `make demo`: records the bundled multi-threaded workload as a 1-CPU baseline (8 threads on
# CPU 0, the model's oversubscribed baseline) and shows what pmanalyze makes of it.
set -eu
b=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/pmdemo.XXXXXX")
trap 'rm -rf "$out"' EXIT
echo "== pmcollect --cpus 0 -- phases -t 8 -w 40 -r 5 mixed   (8 threads on 1 CPU)"
"$top/bin/pmcollect" -q --cpus 0 -o "$out/demo.zst" -- "$top/$b/workloads/phases" -t 8 -w 40 -r 5 mixed \
	>"$out/truth.json"
echo "   ground truth printed by the workload: $(tail -n 1 "$out/truth.json")"
echo
echo "== pmanalyze --info"
"$top/bin/pmanalyze" --info "$out/demo.zst"
echo
echo "== pmanalyze --cores 1-16"
"$top/bin/pmanalyze" --cores 1-16 "$out/demo.zst"
