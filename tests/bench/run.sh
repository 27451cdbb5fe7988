#!/bin/sh
# SPDX-License-Identifier: MIT
# `make bench`: installs what the benchmarks add to the build's packages (linux-perf for the
# perf sched comparison, GNU time for peak memory, the compressors of sections 6 and 9b), then runs tests/bench/bench.py, which prints the tables and writes
# BUILD/bench/bench.json and bench.md. BENCH_QUICK=1: the 2-minute subset.
# usage: sh tests/bench/run.sh [BUILD_DIR]
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-build}
case "$b" in /*) ;; *) b="$top/$b";; esac
sh "$top/.ci/deps.sh" linux-perf time pigz xz-utils zstd
exec python3 "$top/tests/bench/bench.py" --build "$b"
