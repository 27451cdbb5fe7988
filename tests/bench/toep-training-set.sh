#!/bin/sh
# SPDX-License-Identifier: MIT
# The real TOEP training set of issue 16: 3 workloads (phases balanced, imbalanced, mixed) x
# threads 1-16 x CPU sets {0}, {0,1} x 3 repetitions = 288 traces in the current directory,
# repetitions outermost so that the runs of one configuration are spread over the whole session.
# Each run is one pass of the pattern (-r 1) of 10 ms per thread and phase (-w 10): the whole set
# takes 4-6 minutes on this 2-vCPU VM (3 passes, phases' default, took over 15).
# Then: pmanalyze -q --learn *.pmt and pmanalyze -q --toep *.pmt (docs/energy.md §3).
# Run from the top of a built tree:
#   mkdir -p /tmp/ts && cd /tmp/ts && sh $TOP/tests/bench/toep-training-set.sh $TOP
# WORK_MS, REPEATS and REPS override -w, -r and the number of repetitions.
B=${1:?usage: toep-training-set.sh <top of the built tree>}
W=${WORK_MS:-10}
R=${REPEATS:-1}
start=$(date +%s)
for rep in $(seq 1 "${REPS:-3}"); do
for w in balanced imbalanced mixed; do
for t in $(seq 1 16); do
for c in 0 0-1; do
  nice "$B/bin/pmcollect" -q --no-sched -f -o "$w-t$t-c$c-r$rep.pmt" -C "$c" -t "$t" --label size=$W \
    -- "$B/build/workloads/phases" -t "$t" -w "$W" -r "$R" "$w" >/dev/null 2>&1
done; done; done; done
echo "finished: $(ls ./*.pmt | wc -l) traces in $(( $(date +%s) - start )) s"
