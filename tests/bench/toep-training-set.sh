#!/bin/sh
# SPDX-License-Identifier: MIT
# The real TOEP training set of issue 16: 3 workloads (phases balanced, imbalanced, mixed) x
# threads 1-16 x CPU sets {0}, {0,1} x 3 repetitions = 288 traces in the current directory.
# Then: pmanalyze -q --learn *.pmt   (docs/energy.md §3). Run from the top of a built tree:
#   mkdir -p /tmp/ts && cd /tmp/ts && sh $TOP/tests/bench/toep-training-set.sh $TOP
B=${1:?usage: toep-training-set.sh <top of the built tree>}
for rep in 1 2 3; do
for w in balanced imbalanced mixed; do
for t in $(seq 1 16); do
for c in 0 0-1; do
  nice $B/bin/pmcollect -q --no-sched -f -o $w-t$t-c$c-r$rep.pmt -C $c -t $t --label size=10 -- $B/build/workloads/phases -t $t -w 10 $w >/dev/null 2>&1
done; done; done; done
echo finished
