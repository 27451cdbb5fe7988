#!/bin/sh
# SPDX-License-Identifier: MIT
# m, the program's thread count, from the context switches where the samples missed threads: a
# short zstd -T4 recorded as user nobody on one CPU (tests/fixtures/traces/zstd-nobody-switches.zst)
# had its four workers live between two samples, so the samples saw one thread; its PSWITCH
# records switch five threads in. pmanalyze said "the program ran one thread at a time: nothing
# to predict" (exit 3); m must be the records' peak of threads running at once, and switch-exact
# the estimator. The peak is recounted here from the records (pmanalyze --dump).
. "$PMT_TOP/tests/cli/lib.sh"

fx="$PMT_TOP/tests/fixtures/traces/zstd-nobody-switches.zst"
# the samples' most threads in one sample, and the threads the PSWITCH records switch in
read -r peak tids <<EOF2
$("$PMANALYZE" --dump "$fx" | python3 -c 'import json, sys
peak, tids = 0, set()
for l in sys.stdin:
    d = json.loads(l)
    if d["type"] == "sample":
        peak = max(peak, len(d["threads"]))
    elif d["type"] == "pswitch":
        tids.add(d["common_pid"])  # the thread the record is of (FORMAT.md, PSWITCH)
print(peak, len(tids))')
EOF2
check "the samples saw one thread at a time (peak $peak), the switch records more ($tids threads)" \
	sh -c '[ "$1" = 1 ] && [ "$2" -ge 2 ]' sh "$peak" "$tids"
run_capture "$PMANALYZE" -q "$fx"
expect_status "pmanalyze predicts (exit 0), not 'nothing to predict' (exit 3)" 0
check "m is the context switches' peak of threads running at once, at most the threads switched in" \
	sh -c 'm=$(sed -n "s/^m  *\([0-9]*\) threads (peak of threads running at once in the context switches)$/\1/p" "$1"); [ -n "$m" ] && [ "$m" -ge 2 ] && [ "$m" -le "$2" ]' sh "$T/out" "$tids"
check "the estimator is switch-exact" grep -q "^A(m,inf) .*(estimator switch-exact;" "$T/out"
done_testing
