#!/bin/sh
# SPDX-License-Identifier: MIT
# OpenMP regions of a real, packaged program (issue 17, "Must show"): GraphicsMagick's gm, built
# by Debian with GCC's libgomp, recorded with --omp-regions --omp-runtime llvm. What is known by
# construction: `gm benchmark -iterations K convert ...` runs the same conversion K times in one
# process, so every region has exactly K times the calls of the K = 1 run; with -t 2 no team has
# more than 2 threads; every codeptr_ra lies in a recorded object (gm or its libraries). The names
# come from libdw: the library is stripped, so a region is named by the exported function holding
# it, which readelf's dynamic symbol table must confirm (value <= offset < value + size), or by
# the library's file name and offset when a static function holds it. With -t 1-2 every region,
# named or not, gets Allande et al.'s best configuration.
. "$PMT_TOP/tests/cli/lib.sh"

export KMP_BLOCKTIME=0
if ! command -v gm >/dev/null 2>&1 || ! gm version >/dev/null 2>&1; then
	skip "GraphicsMagick's regions" "gm not installed (Debian package graphicsmagick, .ci/deps.sh)"
	done_testing
	exit $?
fi
lib=$(ldd "$(command -v gm)" | sed -n 's/.*libGraphicsMagick-Q16[^ ]* => \([^ ]*\).*/\1/p')
conv="convert -size 320x240 plasma:fractal -blur 0x2 -resize 60% -sharpen 0x1 null:"
for k in 1 3; do
	# shellcheck disable=SC2086
	run_capture "$PMCOLLECT" -q --omp-regions --omp-runtime llvm -t 2 -o "$T/gm$k.zst" -- \
		gm benchmark -iterations $k $conv
	expect_status "gm benchmark -iterations $k convert recorded with --omp-regions --omp-runtime llvm" 0
	"$PMANALYZE" -q --format json -o "$T/gm$k.json" "$T/gm$k.zst"
done
readelf -W --dyn-syms "$lib" >"$T/dynsym" 2>/dev/null
python3 - "$T/gm1.json" "$T/gm3.json" "$T/dynsym" "$lib" >"$T/checks" <<'EOF'
import json, sys
g1, g3 = (json.load(open(p))["regions"] for p in sys.argv[1:3])
lib = sys.argv[4]
syms = {}
for l in open(sys.argv[3]):
    f = l.split()
    if len(f) >= 8 and f[3] == "FUNC" and f[6] != "UND":
        syms.setdefault(f[7].split("@")[0], []).append((int(f[1], 16), int(f[2], 0)))
def check(what, cond, why=""):
    print(("ok " if cond else "fail ") + what + ("" if cond else ": " + why))
check("regions recorded (an OMPT runtime answered)", g1["recorded"] and g3["recorded"], str(g1.get("reason")))
check("some regions: %d instances in the K = 1 run" % g1["instances"], g1["instances"] >= 3, str(g1["instances"]))
check("every codeptr_ra lies in a recorded object", g1["unnamed_instances"] == 0 and g3["unnamed_instances"] == 0,
      "%d, %d" % (g1["unnamed_instances"], g3["unnamed_instances"]))
key = lambda r: (r["object"], r["offset"])
c1 = {key(r): r["calls"] for r in g1["rows"]}
c3 = {key(r): r["calls"] for r in g3["rows"]}
check("the same %d regions in both runs" % len(c1), set(c1) == set(c3), "%s vs %s" % (sorted(c1), sorted(c3)))
check("3 iterations: every region has 3x the calls of 1 iteration", all(c3.get(k) == 3 * c for k, c in c1.items()),
      str([(r["name"], c1.get(key(r)), r["calls"]) for r in g3["rows"]]))
check("teams of at most 2 threads (-t 2)", all(0 < r["mean_team"] <= 2 for r in g3["rows"]),
      str([r["mean_team"] for r in g3["rows"]]))
inlib = [r for r in g3["rows"] if r["object"] == lib]
check("regions inside %s" % lib, len(inlib) >= 2, str([r["object"] for r in g3["rows"]]))
named = [r for r in inlib if r["function"]]
check("libdw names at least one region by its function", len(named) >= 1, str([r["name"] for r in inlib]))
for r in named:
    spans = syms.get(r["function"], [])
    check("%s: readelf confirms offset 0x%x lies in it" % (r["function"], r["offset"]),
          any(v <= r["offset"] - 1 < v + s for v, s in spans), str(spans))
for r in inlib:
    if not r["function"]:
        want = "%s+0x%x" % (lib.rsplit("/", 1)[-1], r["offset"])
        check("a static function's region is named %s" % want, r["name"] == want, r["name"])
        break
check("region times are positive", all(r["time_ns"] > 0 for r in g3["rows"]), str([r["time_ns"] for r in g3["rows"]]))
EOF
report_checks "$T/checks" "$(head -c 600 "$T/gm3.json")"
run_capture "$PMANALYZE" -q "$T/gm3.zst"
check "table: the regions section names a GraphicsMagick function" \
	grep -Eq '^  [A-Z][A-Za-z]+Image +1 +[0-9]+ ' "$T/out"

# -t 1-2: one run per thread count; Allande's configuration for every region, the unnamed ones
# (a stripped library's static functions) matched across the runs by object and offset
# shellcheck disable=SC2086
run_capture "$PMCOLLECT" -q --omp-regions --omp-runtime llvm -t 1-2 -o "$T/gm12.zst" -- gm $conv
expect_status "gm convert recorded with -t 1-2" 0
"$PMANALYZE" -q --format json --run 1 -o "$T/gm12.json" "$T/gm12.zst"
check "-t 1-2: every region has a best configuration, unnamed ones too" python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["regions"]
rows = g["rows"]
sys.exit(not (g["allande"]["NC"] == 2 and any(not r["function"] for r in rows) and
              all("allande" in r and r["allande"]["best_max"]["threads"] in (1, 2) for r in rows)))' "$T/gm12.json"
done_testing
