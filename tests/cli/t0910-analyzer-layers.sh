#!/bin/sh
# SPDX-License-Identifier: MIT
# The analyzer's and the collector's include rule (analyzer/README.md, collector/README.md),
# checked by .ci/layers.sh: includes between their folders point down the README's Layers: line, no
# two modules include each other. The real trees pass; copies with an upward include, a bare
# cross-folder name and a circle fail with the line that names the offence.
. "$PMT_TOP/tests/cli/lib.sh"

# clean DIR LABEL: layers.sh passes DIR and prints nothing
clean() {
	run_capture sh "$PMT_TOP/.ci/layers.sh" "$1"
	if [ "$rc" -eq 0 ] && [ ! -s "$T/out" ]; then ok "$2"
	else not_ok "$2" "exit $rc" "$(head -c 600 "$T/out")"; fi
}
# offence DIR LABEL PATTERN...: layers.sh fails DIR with exit 1 and a line matching each PATTERN
offence() {
	d=$1 label=$2
	shift 2
	run_capture sh "$PMT_TOP/.ci/layers.sh" "$d"
	miss=0
	for pat in "$@"; do grep -q -- "$pat" "$T/out" || miss=1; done
	if [ "$rc" -eq 1 ] && [ "$miss" -eq 0 ]; then ok "$label"
	else not_ok "$label" "exit $rc" "$(head -c 600 "$T/out")"; fi
}
# graph DIR LABEL UP EDGE...: --graph prints each folder EDGE ("a -> b") and no line matching UP
graph() {
	d=$1 label=$2 up=$3
	shift 3
	run_capture sh "$PMT_TOP/.ci/layers.sh" --graph "$d"
	miss=0
	for e in "$@"; do grep -q "^$e ([0-9]*)\$" "$T/out" || miss=1; done
	if [ "$rc" -eq 0 ] && [ "$miss" -eq 0 ] && ! grep -Eq "$up" "$T/out"; then ok "$label"
	else not_ok "$label" "exit $rc" "$(head -c 600 "$T/out")"; fi
}
# insert FILE HEADER: FILE includes HEADER before its first include
insert() { sed -i "0,/^#include/s|^#include|#include \"$2\"\n#include|" "$1"; }

clean "$PMT_TOP/analyzer" "analyzer/: every include points down, no circle"
# the front end (main) includes the top layer, and nothing points up
graph "$PMT_TOP/analyzer" "--graph: folder edges, all down" '^(model|notes) -> (trace|studies|result|render)' \
	'main -> render' 'trace -> model'

copy() { rm -rf "$T/a"; cp -r "$PMT_TOP/analyzer" "$T/a"; }

copy; insert "$T/a/model/model.c" render/report.h
offence "$T/a" "an upward include (model/ -> render/) is named, exit 1" \
	'model/model.c: includes "render/report.h": model/ may not include render/'

copy; insert "$T/a/studies/toep.c" estimate.h
offence "$T/a" "a bare name of another folder's header is named, exit 1" \
	'studies/toep.c: includes "estimate.h" of model/ by its bare name: write "model/estimate.h"'

copy; insert "$T/a/studies/learn.h" toep.h; insert "$T/a/studies/toep.c" learn.h
offence "$T/a" "a circle inside a folder (toep <-> learn) is named, exit 1" \
	'^modules include each other in a circle: .*studies/toep' '^modules include each other in a circle: .*studies/learn'

copy; mkdir "$T/a/extra"; printf '#include "model/model.h"\n' >"$T/a/extra/x.c"
offence "$T/a" "a folder missing from the README's Layers: line is named, exit 1" \
	"extra/x.c: folder 'extra' is not in the README's Layers: line"

# the collector's folders, by the same rule (collector/README.md)
clean "$PMT_TOP/collector" "collector/: every include points down, no circle"
graph "$PMT_TOP/collector" "collector --graph: folder edges, all down" '^(sources|omp|interfere) -> (session|cli)' \
	'cli -> session' 'session -> sources'

ccopy() { rm -rf "$T/c"; cp -r "$PMT_TOP/collector" "$T/c"; }

ccopy; insert "$T/c/sources/sampler.c" session/run.h
offence "$T/c" "collector: an upward include (sources/ -> session/) is named, exit 1" \
	'sources/sampler.c: includes "session/run.h": sources/ may not include session/'

ccopy; insert "$T/c/interfere/identity.c" counters.h
offence "$T/c" "collector: a bare name of another folder's header is named, exit 1" \
	'interfere/identity.c: includes "counters.h" of sources/ by its bare name: write "sources/counters.h"'

# every path of the project's own files named in its docs and comments exists (.ci/paths.sh)
run_capture sh "$PMT_TOP/.ci/paths.sh" "$PMT_TOP"
if [ "$rc" -eq 0 ] && [ ! -s "$T/out" ]; then ok "every file path named in docs and comments exists"
else not_ok "every file path named in docs and comments exists" "exit $rc" "$(head -c 600 "$T/out")"; fi
rm -rf "$T/p"; mkdir -p "$T/p/docs" "$T/p/analyzer/trace"
: >"$T/p/analyzer/trace/records.c"
: >"$T/p/docs/model.md"
# the stale names are built here so that this file names no stale path itself
stale=analyzer/records d=docs x=x.md gone=gone-page.md
printf 'read by `analyzer/trace/records.c` and `%s.c`\n' "$stale" >"$T/p/$d/$x"
# a man page: its escaped hyphen is read as '-'; another project's docs/ path (after a '/') is
# not this tree's; docs/model.md exists
printf '.IR %s/model.md and %s/%s\n.RI extrap/%s/file\\-formats.md\n' "$d" "$d" \
	"$(printf %s "$gone" | sed 's/-/\\-/')" "$d" >"$T/p/$d/y.1"
run_capture sh "$PMT_TOP/.ci/paths.sh" "$T/p"
if [ "$rc" -eq 1 ] && grep -qx "$d/$x: names $stale.c, which does not exist" "$T/out" &&
   ! grep -q 'trace/records.c' "$T/out"; then ok "a stale path is named, exit 1"
else not_ok "a stale path is named, exit 1" "exit $rc" "$(head -c 600 "$T/out")"; fi
if grep -qx "$d/y.1: names $d/$gone, which does not exist" "$T/out" &&
   [ "$(grep -c "^$d/y.1:" "$T/out")" -eq 1 ]; then
	ok "a stale docs/ path in a man page is named (with its escaped hyphen), nothing else of it"
else not_ok "a stale docs/ path in a man page is named" "exit $rc" "$(head -c 600 "$T/out")"; fi
# no function of either tool, common/ or formats/ is over 150 lines (.ci/funclen.sh); those over
# 100 are listed in the log, the next to split
sh "$PMT_TOP/.ci/funclen.sh" "$PMT_TOP/analyzer" "$PMT_TOP/collector" "$PMT_TOP/common" "$PMT_TOP/formats" >"$T/len"
sed "s|$PMT_TOP/||" "$T/len" | awk '$1 > 100 { print "# over 100 lines: " $0 }'
long=$(awk '$1 > 150' "$T/len")
if [ -s "$T/len" ] && [ -z "$long" ]; then ok "no function is over 150 lines ($(awk '$1 > 100' "$T/len" | wc -l) over 100)"
else not_ok "no function is over 150 lines" "$long"; fi
# ... and the check sees a long one: a copy with a 151-line function fails it
rm -rf "$T/f"; mkdir -p "$T/f"
{ echo 'int long_one(void)'; echo '{'; i=0; while [ $i -lt 147 ]; do echo '	(void)0;'; i=$((i + 1)); done; echo '	return 0;'; echo '}'; } >"$T/f/x.c"
check "funclen.sh measures a 151-line function as 151" grep -q "^151 $T/f/x.c:1 long_one\$" \
	"$(sh "$PMT_TOP/.ci/funclen.sh" "$T/f" >"$T/f/len"; echo "$T/f/len")"
done_testing
