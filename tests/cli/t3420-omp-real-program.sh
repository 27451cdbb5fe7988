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
python3 "$PMT_TOP/tests/cli/checks.py" omp_real_program "$T/gm1.json" "$T/gm3.json" "$T/dynsym" "$lib" >"$T/checks"
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
