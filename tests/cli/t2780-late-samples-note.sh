#!/bin/sh
# SPDX-License-Identifier: MIT
# The late-samples note says what the late samples cost the headline estimator. With switch-exact
# the run segments come from the context switches, but the wakes are placed from the schedstat
# that the samples read: the note must say so, with the number of wakes placed that the
# "switches" line of the same report gives, and not that the headline does not depend on the
# samples (what it says of sched-exact). Fixture: tests/fixtures/traces/switch-late-samples.zst.
. "$PMT_TOP/tests/cli/lib.sh"

fx="$PMT_TOP/tests/fixtures/traces/switch-late-samples.zst"
run_capture "$PMANALYZE" "$fx"
expect_status "pmanalyze of a switch-exact trace with late samples" 0
placed=$(sed -n 's/^switches .*, \([0-9]*\) wakes placed from schedstat,.*/\1/p' "$T/out")
check "the headline is switch-exact and the switches line counts the wakes placed" \
	sh -c 'grep -q "^A(m,inf) .*(estimator switch-exact;" "$1" && [ -n "$2" ] && [ "$2" -gt 0 ]' sh "$T/out" "$placed"
check "the late-samples note names those $placed wakes placed from the samples' schedstat" grep -Eq \
	"^note: late or lost samples: .*the headline A\\(m,inf\\) rests on the context switches, which do not depend on it, and on $placed wakes placed from the schedstat these samples read: " "$T/out"
check "... and does not say the headline comes from scheduler events that do not depend on it" \
	sh -c '! grep -q "^note: late or lost samples: .*comes from the scheduler events" "$1"' sh "$T/out"
"$PMANALYZE" --format json "$fx" >"$T/json" 2>/dev/null
check "JSON: the note's values.wakes_placed is $placed" python3 -c '
import json, sys
n = [x for x in json.load(open(sys.argv[1]))["coded_notes"] if x["code"] == "late-samples"]
assert n and n[0]["values"]["wakes_placed"] == int(sys.argv[2]), n' "$T/json" "$placed"
done_testing
