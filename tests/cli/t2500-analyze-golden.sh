#!/bin/sh
# SPDX-License-Identifier: MIT
# pmanalyze's outputs compared byte for byte with tests/golden/ (git's test_cmp): --help, and the
# table, JSON and CSV reports of a trace without scheduler events (sampled estimators), one with
# them (exact mode) and a calibration trace (memory model fitted). Any change of output shows as
# a diff here and is reviewed; regenerate deliberately with PMT_GOLDEN_UPDATE=1 and say why in
# the commit. Runs from the top of the tree with relative paths, so no output holds a path of
# this machine; nothing here depends on the analyzing machine (the topology is the trace's).
. "$PMT_TOP/tests/cli/lib.sh"

G="$PMT_TOP/tests/golden"
# golden NAME ARGS...: runs pmanalyze ARGS in $PMT_TOP; stdout must equal $G/NAME, stderr be empty
# and the status 0
golden() {
	name=$1; shift
	(cd "$PMT_TOP" && "$PMANALYZE" "$@") >"$T/$name" 2>"$T/$name.err"
	rc=$?
	if [ "${PMT_GOLDEN_UPDATE:-}" = 1 ]; then
		cp "$T/$name" "$G/$name"
	fi
	if [ "$rc" -ne 0 ] || [ -s "$T/$name.err" ]; then
		not_ok "$name: pmanalyze $*" "exit $rc" "$(head -c 400 "$T/$name.err")"
	elif diff -u "$G/$name" "$T/$name" >"$T/$name.diff" 2>&1; then
		ok "$name: pmanalyze $* matches tests/golden/$name"
	else
		not_ok "$name: pmanalyze $* differs from tests/golden/$name" "$(head -c 3000 "$T/$name.diff")"
	fi
}

golden help.txt --help
for f in table json csv; do
	golden phases-mixed.$f --format $f sample-traces/phases-mixed-8t-cpu0.zst
	golden pipeline-sched.$f --format $f sample-traces/pipeline-4t-cpu0-sched.zst
	golden cal-phases.$f --format $f --cores 1-6 tests/golden/cal-phases-4t.zst
done
golden pipeline-sched-1-12.table --cores 1-12 sample-traces/pipeline-4t-cpu0-sched.zst
golden phases-mixed.info --info sample-traces/phases-mixed-8t-cpu0.zst

# the same command twice gives the same bytes (nothing from the clock or the analyzing machine)
(cd "$PMT_TOP" && "$PMANALYZE" --format json tests/golden/cal-phases-4t.zst) >"$T/again.json" 2>&1
(cd "$PMT_TOP" && "$PMANALYZE" --format json tests/golden/cal-phases-4t.zst) >"$T/again2.json" 2>&1
if cmp -s "$T/again.json" "$T/again2.json"; then ok "two runs give identical bytes"
else not_ok "two runs give identical bytes" "$(diff "$T/again.json" "$T/again2.json" | head -20)"; fi

done_testing
