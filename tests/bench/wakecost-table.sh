#!/bin/sh
# SPDX-License-Identifier: MIT
# wakecost-table.sh: issue 35's table: a barrier-heavy program recorded with pmcollect --calibrate,
# S(4,2) and T(2) predicted by the replay with and without the calibration's wake-up cost, against
# T(1) and T(2) measured in alternated runs (taskset -c 0, taskset -c 0-1). Timing: needs a quiet
# machine; not part of make check.
#   sh tests/bench/wakecost-table.sh BUILD PAIRS LABEL ENV PROGRAM ARGS...
# prints one table row: label | A(m,inf) | S pred (wake) | S pred (none) | T(2) pred | T(2) meas
# range | S meas median (range of the pairs)
set -eu
B=$1 PAIRS=$2 LABEL=$3 ENVSET=$4
shift 4
out=${TMPDIR:-/tmp}/wakecost-$$.pmt
env $ENVSET "$B/../bin/pmcollect" -q -f -o "$out" --calibrate --repeat 3 -t 4 -- "$@" >/dev/null
pred=$("$B/../bin/pmanalyze" --cores 1,2 --format json "$out")
pred0=$("$B/../bin/pmanalyze" --no-wake-cost --cores 1,2 --format json "$out")
meas=""
i=0
while [ "$i" -lt "$PAIRS" ]; do
	a=$(env $ENVSET OMP_NUM_THREADS=4 taskset -c 0 "$@" | tail -n 1)
	b=$(env $ENVSET OMP_NUM_THREADS=4 taskset -c 0-1 "$@" | tail -n 1)
	meas="$meas$a
$b
"
	i=$((i + 1))
done
rm -f "$out"
python3 - "$LABEL" "$pred" "$pred0" "$meas" <<'PY'
import json, statistics, sys
label, pred, pred0, meas = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4]
def row(p, n):
    return [q for q in p["predictions"] if q["cores"] == n][0]
q, q0 = row(pred, 2), row(pred0, 2)
w = [json.loads(l)["wall_ms"] / 1e3 for l in meas.split("\n") if l.strip()]
t1, t2 = w[0::2], w[1::2]
S = [a / b for a, b in zip(t1, t2)]
A = pred["parallelism"]["A_inf"] if "parallelism" in pred else float("nan")
print("| %s | %.2f | %.2f ± %.2f | %.2f ± %.2f | %.2f s ± %.2f | %.2f-%.2f s | %.2f (%.2f-%.2f) |" % (
    label, A, q["S"], q["S_err"], q0["S"], q0["S_err"], q["T_s"], q.get("T_err_s", 0),
    min(t2), max(t2), statistics.median(t1) / statistics.median(t2), min(S), max(S)))
PY
