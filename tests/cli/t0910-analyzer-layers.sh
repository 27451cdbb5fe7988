#!/bin/sh
# SPDX-License-Identifier: MIT
# The analyzer's and the collector's include rule (analyzer/README.md, collector/README.md),
# checked by .ci/layers.sh: includes between their folders point down the README's Layers: line, no
# two modules include each other. The real trees pass; copies with an upward include, a bare
# cross-folder name and a circle fail with the line that names the offence.
. "$PMT_TOP/tests/cli/lib.sh"

run_capture sh "$PMT_TOP/.ci/layers.sh" "$PMT_TOP/analyzer"
if [ "$rc" -eq 0 ] && [ ! -s "$T/out" ]; then ok "analyzer/: every include points down, no circle"
else not_ok "analyzer/: every include points down, no circle" "exit $rc" "$(head -c 600 "$T/out")"; fi

# the graph between folders: the front end (main) includes the top layer, and nothing points up
run_capture sh "$PMT_TOP/.ci/layers.sh" --graph "$PMT_TOP/analyzer"
if [ "$rc" -eq 0 ] && grep -q '^main -> render ([0-9]*)$' "$T/out" && grep -q '^trace -> model ([0-9]*)$' "$T/out" &&
   ! grep -Eq '^(model|notes) -> (trace|studies|result|render)' "$T/out"; then ok "--graph: folder edges, all down"
else not_ok "--graph: folder edges, all down" "exit $rc" "$(head -c 600 "$T/out")"; fi

copy() { rm -rf "$T/a"; cp -r "$PMT_TOP/analyzer" "$T/a"; }

copy; sed -i '0,/^#include/s|^#include|#include "render/report.h"\n#include|' "$T/a/model/model.c"
run_capture sh "$PMT_TOP/.ci/layers.sh" "$T/a"
if [ "$rc" -eq 1 ] && grep -q "model/model.c: includes \"render/report.h\": model/ may not include render/" "$T/out"; then
	ok "an upward include (model/ -> render/) is named, exit 1"
else not_ok "an upward include (model/ -> render/) is named, exit 1" "exit $rc" "$(head -c 600 "$T/out")"; fi

copy; sed -i '0,/^#include/s|^#include|#include "estimate.h"\n#include|' "$T/a/studies/toep.c"
run_capture sh "$PMT_TOP/.ci/layers.sh" "$T/a"
if [ "$rc" -eq 1 ] && grep -q 'studies/toep.c: includes "estimate.h" of model/ by its bare name: write "model/estimate.h"' "$T/out"; then
	ok "a bare name of another folder's header is named, exit 1"
else not_ok "a bare name of another folder's header is named, exit 1" "exit $rc" "$(head -c 600 "$T/out")"; fi

copy; sed -i '0,/^#include/s|^#include|#include "toep.h"\n#include|' "$T/a/studies/learn.h"
sed -i '0,/^#include/s|^#include|#include "learn.h"\n#include|' "$T/a/studies/toep.c"
run_capture sh "$PMT_TOP/.ci/layers.sh" "$T/a"
if [ "$rc" -eq 1 ] && grep -q '^modules include each other in a circle: .*studies/toep' "$T/out" &&
   grep -q '^modules include each other in a circle: .*studies/learn' "$T/out"; then
	ok "a circle inside a folder (toep <-> learn) is named, exit 1"
else not_ok "a circle inside a folder (toep <-> learn) is named, exit 1" "exit $rc" "$(head -c 600 "$T/out")"; fi

copy; mkdir "$T/a/extra"; printf '#include "model/model.h"\n' >"$T/a/extra/x.c"
run_capture sh "$PMT_TOP/.ci/layers.sh" "$T/a"
if [ "$rc" -eq 1 ] && grep -q "extra/x.c: folder 'extra' is not in the README's Layers: line" "$T/out"; then
	ok "a folder missing from the README's Layers: line is named, exit 1"
else not_ok "a folder missing from the README's Layers: line is named, exit 1" "exit $rc" "$(head -c 600 "$T/out")"; fi

# the collector's folders, by the same rule (collector/README.md)
run_capture sh "$PMT_TOP/.ci/layers.sh" "$PMT_TOP/collector"
if [ "$rc" -eq 0 ] && [ ! -s "$T/out" ]; then ok "collector/: every include points down, no circle"
else not_ok "collector/: every include points down, no circle" "exit $rc" "$(head -c 600 "$T/out")"; fi

run_capture sh "$PMT_TOP/.ci/layers.sh" --graph "$PMT_TOP/collector"
if [ "$rc" -eq 0 ] && grep -q '^cli -> session ([0-9]*)$' "$T/out" && grep -q '^session -> sources ([0-9]*)$' "$T/out" &&
   ! grep -Eq '^(sources|omp|interfere) -> (session|cli)' "$T/out"; then ok "collector --graph: folder edges, all down"
else not_ok "collector --graph: folder edges, all down" "exit $rc" "$(head -c 600 "$T/out")"; fi

ccopy() { rm -rf "$T/c"; cp -r "$PMT_TOP/collector" "$T/c"; }

ccopy; sed -i '0,/^#include/s|^#include|#include "session/run.h"\n#include|' "$T/c/sources/sampler.c"
run_capture sh "$PMT_TOP/.ci/layers.sh" "$T/c"
if [ "$rc" -eq 1 ] && grep -q 'sources/sampler.c: includes "session/run.h": sources/ may not include session/' "$T/out"; then
	ok "collector: an upward include (sources/ -> session/) is named, exit 1"
else not_ok "collector: an upward include (sources/ -> session/) is named, exit 1" "exit $rc" "$(head -c 600 "$T/out")"; fi

ccopy; sed -i '0,/^#include/s|^#include|#include "counters.h"\n#include|' "$T/c/interfere/identity.c"
run_capture sh "$PMT_TOP/.ci/layers.sh" "$T/c"
if [ "$rc" -eq 1 ] && grep -q 'interfere/identity.c: includes "counters.h" of sources/ by its bare name: write "sources/counters.h"' "$T/out"; then
	ok "collector: a bare name of another folder's header is named, exit 1"
else not_ok "collector: a bare name of another folder's header is named, exit 1" "exit $rc" "$(head -c 600 "$T/out")"; fi

# every path of the project's own files named in its docs and comments exists (.ci/paths.sh)
run_capture sh "$PMT_TOP/.ci/paths.sh" "$PMT_TOP"
if [ "$rc" -eq 0 ] && [ ! -s "$T/out" ]; then ok "every file path named in docs and comments exists"
else not_ok "every file path named in docs and comments exists" "exit $rc" "$(head -c 600 "$T/out")"; fi
rm -rf "$T/p"; mkdir -p "$T/p/docs" "$T/p/analyzer/trace"
: >"$T/p/analyzer/trace/records.c"
stale=analyzer/records # built here so that this file names no stale path itself
printf 'read by `analyzer/trace/records.c` and `%s.c`\n' "$stale" >"$T/p/docs/x.md"
run_capture sh "$PMT_TOP/.ci/paths.sh" "$T/p"
if [ "$rc" -eq 1 ] && grep -qx "docs/x.md: names $stale.c, which does not exist" "$T/out" &&
   ! grep -q 'trace/records.c' "$T/out"; then ok "a stale path is named, exit 1"
else not_ok "a stale path is named, exit 1" "exit $rc" "$(head -c 600 "$T/out")"; fi
done_testing
