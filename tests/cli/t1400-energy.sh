#!/bin/sh
# SPDX-License-Identifier: MIT
# Energy (issue 16, docs/energy.md): pmcollect reads the energy counters in its sampling loop and
# records per-zone energy in RUN_END and ENERGY records (FORMAT.md §5.7). The real code runs on a
# copy of tests/fixtures/sysfs/two-packages (PMT_SYSFS_ROOT) whose counters the traced program
# itself advances, so the truth is known by construction: a wrap of package-0, two packages,
# core and dram zones, a zone that disappears mid-run, and a duplicate (intel-rapl-mmio) that must
# not count. On this VM (no powercap, no perf power PMU) a real run records the reason.
. "$PMT_TOP/tests/cli/lib.sh"

FIX="$PMT_TOP/tests/fixtures/sysfs"
R="$T/root"
cp -r "$FIX/two-packages" "$R"
mkdir -p "$R/proc"
cp "$FIX/none/proc/stat" "$R/proc/stat"
P="$R/sys/class/powercap"

# The program: sets counters atomically (write, then rename: the collector never reads a half
# written file) and sleeps 0.5 s between steps, five times the collector's 100 ms period.
cat >"$T/advance.sh" <<'EOF'
set -e
P=$1
set_uj() { printf '%s\n' "$2" >"$P/$1/energy_uj.tmp"; mv "$P/$1/energy_uj.tmp" "$P/$1/energy_uj"; }
set_uj intel-rapl:0 131000000000
set_uj intel-rapl:1 12000000
set_uj intel-rapl:0:0 5400000
set_uj intel-rapl:0:1 1100000
set_uj intel-rapl:1:0 1600000
set_uj intel-rapl-mmio:0 999000000
sleep 0.5
set_uj intel-rapl:0 262143000000
rm -r "$P/intel-rapl:1:0"
sleep 0.5
set_uj intel-rapl:0 2000000
set_uj intel-rapl:1:1 3200000
sleep 0.5
EOF

run_capture env PMT_SYSFS_ROOT="$R" "$PMCOLLECT" -q -o "$T/e.pmt" -- sh "$T/advance.sh" "$P"
expect_status "pmcollect on the fixture tree" 0
"$PMANALYZE" --dump "$T/e.pmt" >"$T/dump" 2>"$T/dump.err"

# the truth, zone by zone (µJ): package-0 from 1,000,000 up to 262,143,000,000, then a wrap at
# max_energy_range_uj 262,143,328,850 to 2,000,000; core 1 counts 800,000 and then disappears
python3 - "$T/dump" >"$T/check" <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
end = [r for r in recs if r["type"] == "run_end"][0]
begin = [r for r in recs if r["type"] == "run_begin"][0]
meta = [r for r in recs if r["type"] == "meta"][0]
energy = [r for r in recs if r["type"] == "energy"]
truth = {"intel-rapl:0": (262142000000 + 328850 + 2000000, 1, False),
         "intel-rapl:1": (10000000, 0, False), "intel-rapl:0:0": (5000000, 0, False),
         "intel-rapl:0:1": (1000000, 0, False), "intel-rapl:1:1": (3000000, 0, False),
         "intel-rapl:1:0": (800000, 0, True)}
e = end["energy"]
zones = {z["id"]: z for z in e["zones"]}
out = []
def check(name, good, detail):
    out.append("%s %s: %s" % ("ok" if good else "FAIL", name, detail))
check("the six zones, not the mmio duplicate", sorted(zones) == sorted(truth), sorted(zones))
for zid, (uj, wraps, gone) in truth.items():
    z = zones.get(zid, {})
    check("zone %s energy_uj" % zid, z.get("energy_uj") == uj, "%s, truth %d" % (z.get("energy_uj"), uj))
    check("zone %s wraps %d gone %s" % (zid, wraps, gone), z.get("wraps") == wraps and z.get("gone") == gone,
          "wraps %s gone %s" % (z.get("wraps"), z.get("gone")))
check("package_uj", e["package_uj"] == truth["intel-rapl:0"][0] + 10000000, e["package_uj"])
check("dram_uj", e["dram_uj"] == 4000000, e["dram_uj"])
check("core_uj", e["core_uj"] == 5800000, e["core_uj"])
check("uncore_uj null", e["uncore_uj"] is None, e["uncore_uj"])
check("source powercap", e["source"] == "powercap" and meta["sources"]["energy"]["recorded"], e["source"])
order = begin["energy"]["zones"]
names = [z["name"] for z in e["zones"]]
check("RUN_BEGIN zone order = RUN_END's", order == names, order)
check("ENERGY records: one per reading, every 100 ms (>= 4 in 1.5 s on a loaded machine)", len(energy) >= 4, len(energy))
last = energy[-1]["energy_uj"] if energy else []
check("last ENERGY record = RUN_END", last == [z["energy_uj"] for z in e["zones"]], last)
mono = all(all(b >= a for a, b in zip(x["energy_uj"], y["energy_uj"])) for x, y in zip(energy, energy[1:]))
check("ENERGY values never decrease", mono, "")
check("max gap between readings < 1 s", 0 < e["max_gap_ns"] < 1e9, e["max_gap_ns"])
check("other_load from the fixture's static /proc/stat: 0 CPUs", end["other_load"]["cpus"] == 0, end["other_load"])
print("\n".join(out))
EOF
while IFS= read -r line; do
	case "$line" in
	ok*) ok "fixture: ${line#ok }" ;;
	*) not_ok "fixture: ${line#FAIL }" "$(head -c 300 "$T/dump.err")" ;;
	esac
done <"$T/check"
[ -s "$T/check" ] || not_ok "fixture: the trace could be checked" "$(head -c 300 "$T/dump.err")"

# this VM: no powercap, no perf power PMU; the reason is in META and RUN_END
if [ -d /sys/class/powercap ] && ls /sys/class/powercap | grep -q intel-rapl; then
	tap_n=$((tap_n + 1)); echo "ok $tap_n - real run without energy # SKIP this machine has powercap"
else
	run_capture "$PMCOLLECT" -q -o "$T/real.pmt" -- sleep 0.2
	"$PMANALYZE" --dump "$T/real.pmt" >"$T/real.dump"
	if grep '"type":"run_end"' "$T/real.dump" | grep -q '"energy":null,"energy_reason":"no powercap (no /sys/class/powercap/intel-rapl:\* zone)' &&
	   grep '"type":"meta"' "$T/real.dump" | grep -q '"energy":{"recorded":false,"reason":"no powercap'; then
		ok "real run on this VM: energy null, reason 'no powercap' in RUN_END and META"
	else
		not_ok "real run on this VM: energy null with the reason" "$(grep -o '"energy[^}]*' "$T/real.dump" | head -3)"
	fi
fi

# --label goes to META labels
run_capture "$PMCOLLECT" -q -o "$T/label.pmt" --label size=1000 --label kind=a=b -- true
if "$PMANALYZE" --dump "$T/label.pmt" | grep '"type":"meta"' | grep -q '"labels":{"size":"1000","kind":"a=b"}'
then ok "--label KEY=VALUE in META labels"; else not_ok "--label KEY=VALUE in META labels"; fi
run_capture "$PMCOLLECT" -q -o "$T/bad.pmt" --label nokey -- true
expect_status "--label without '=' is a usage error" 2

done_testing
