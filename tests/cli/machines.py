# SPDX-License-Identifier: MIT
# machines.py: the memory model's properties on target machines (issue 28), for t2750. Usage:
#   machines.py PMANALYZE TRACE... -- TOPOLOGY.xml...
# For each calibrated trace x topology x placement (compact, scatter, chunks of 3) x memory policy (local,
# interleave, local-then-remote), one `pmanalyze --format json --machine XML --cores 1-(PUS+4)`;
# the rows n > PUS (CPUs the target lacks) must say on_target "absent" and carry no S, T, R or
# omega; every other row must hold
#   S <= min(n, A(m,inf)), T(n) >= T_cp, omega >= 0, finite numbers (no null S, S_err, T_s, A,
#   omega, omega_err, except in rows marked saturated, which are counted),
#   S, omega, their uncertainties and the placement of n >= m equal to those of n = m (idle cores
#   do not contend: Tudor & Teo), busy_cores = min(n, m),
#   omega_err not null where omega is, and neither omega_err nor S_err shrinking from one n to the
#   next past the largest calibrated core count (up to m: beyond it they are constant),
#   a cross-socket share of 0 where the busy threads are on the first socket under local and
#   local-then-remote,
#   omega not falling as busy cores are added (compact placement, every policy).
# Prints one line per violation (at most 20) and a summary "checked: T topologies x P placements x
# Q policies = R reports, N rows, V violations"; exits 1 when there is a violation or a run fails.
import json
import math
import os
import subprocess
import sys

PLACEMENTS = ["compact", "scatter", "3"]
POLICIES = ["local", "interleave", "local-then-remote"]
EPS = 1e-9


def all_finite(v):
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, dict):
        return all(all_finite(x) for x in v.values())
    if isinstance(v, list):
        return all(all_finite(x) for x in v)
    return True


def main():
    sep = sys.argv.index("--")
    pma, traces, topos = sys.argv[1], sys.argv[2:sep], sys.argv[sep + 1:]
    reports = rows = saturated = absent = 0
    bad = []

    def violation(where, what):
        bad.append(f"{where}: {what}")

    for trace, topo in [(t, x) for t in traces for x in topos]:
        for pl in PLACEMENTS:
            for pol in POLICIES:
                where0 = f"{os.path.basename(trace)} on {os.path.basename(topo)} --placement {pl} --mem {pol}"
                # the PU count first, from the target machine the report names
                cmd = [pma, "--format", "json", "--machine", topo, "--placement", pl,
                       "--mem", pol, "--cores", "1", trace]
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode != 0:
                    violation(where0, f"exit {p.returncode}: {p.stderr.strip()[:200]}")
                    continue
                pus = json.loads(p.stdout)["memory"]["target_machine"]["pus"]
                # four core counts past the target's CPUs: those rows must carry no S
                cmd[cmd.index("--cores") + 1] = f"1-{pus + 4}"
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode != 0:
                    violation(where0, f"exit {p.returncode}: {p.stderr.strip()[:200]}")
                    continue
                d = json.loads(p.stdout)
                if not all_finite(d):
                    violation(where0, "a non-finite number (NaN, Infinity) in the JSON")
                reports += 1
                par = d["parallelism"]
                m, A_inf, T_cp = int(par["m"]), par["A_inf"], par["T_cp_s"]
                cal = max(pt["cores"] for pt in d["memory"]["points"])
                preds = d["predictions"]
                at_m = next((q for q in preds if q["cores"] == m), None)
                prev = None
                for q in preds:
                    rows += 1
                    n = q["cores"]
                    where = f"{where0} n={n}"
                    if (q["on_target"] == "absent") != (n > pus):
                        violation(where, f"on_target {q['on_target']} with {pus} CPUs on the target")
                    if n > pus:  # a core count the target lacks: no prediction
                        if any(q[k] is not None for k in ("S", "S_err", "T_s", "R", "omega")):
                            violation(where, f"S = {q['S']}, T = {q['T_s']} for a core count the target lacks")
                        absent += 1
                        continue
                    if q["saturated"]:  # mu <= kL on a socket of the busy cores: S not given
                        saturated += 1
                        prev = None
                        continue
                    for k in ("A", "S", "S_err", "T_s", "omega", "omega_err"):
                        v = q[k]
                        if v is None or not math.isfinite(v):
                            violation(where, f"{k} = {v}")
                    if None in (q["S"], q["T_s"], q["omega"], q["omega_err"]):
                        prev = None
                        continue
                    if q["S"] > min(n, A_inf) * (1 + EPS):
                        violation(where, f"S = {q['S']} > min(n, A) = {min(n, A_inf)}")
                    if q["T_s"] < T_cp * (1 - EPS):
                        violation(where, f"T = {q['T_s']} < T_cp = {T_cp}")
                    if q["omega"] < 0:
                        violation(where, f"omega = {q['omega']} < 0")
                    if q["busy_cores"] != min(n, m):
                        violation(where, f"busy_cores = {q['busy_cores']}, want {min(n, m)}")
                    if n >= m and at_m is not None:
                        for k in ("S", "S_err", "omega", "omega_err", "per_socket", "T_s"):
                            if q[k] != at_m[k]:
                                violation(where, f"{k} = {q[k]} differs from {k}(m = {m}) = {at_m[k]}")
                    first_only = q["per_socket"].startswith("{" + str(q["busy_cores"]) + ",") or \
                        q["per_socket"] == "{" + str(q["busy_cores"]) + "}"
                    if pol != "interleave" and first_only and q["cross_socket"] != 0:
                        violation(where, f"cross_socket = {q['cross_socket']} with every thread on "
                                  f"the first socket ({q['per_socket']})")
                    if prev is not None and n > cal:
                        for k in ("omega_err", "S_err"):
                            if q[k] < prev[k] * (1 - 1e-9) - EPS:
                                violation(where, f"{k} shrank from {prev[k]} at n={prev['cores']} to {q[k]}")
                    if prev is not None and pl == "compact" and q["omega"] < prev["omega"] - EPS:
                        violation(where, f"omega fell from {prev['omega']} to {q['omega']} as a busy core was added")
                    prev = q
    for b in bad[:20]:
        print("violation:", b)
    print(f"checked: {len(traces)} traces x {len(topos)} topologies x {len(PLACEMENTS)} placements x "
          f"{len(POLICIES)} policies = {reports} reports, {rows} rows ({saturated} saturated, "
          f"{absent} absent from the target), "
          f"{len(bad)} violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
