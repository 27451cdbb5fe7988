#!/bin/sh
# SPDX-License-Identifier: MIT
# pmcollect's --help compared byte for byte with tests/golden/pmcollect-help.txt (git's test_cmp):
# any change of the text, wanted or not, shows up here and is reviewed with the golden file.
. "$PMT_TOP/tests/cli/lib.sh"

golden="$PMT_TOP/tests/golden/pmcollect-help.txt"

run_capture "$PMCOLLECT" --help
expect_status "--help exits 0" 0
if cmp -s "$golden" "$T/out"; then
	ok "--help is tests/golden/pmcollect-help.txt"
else
	not_ok "--help is tests/golden/pmcollect-help.txt" "$(diff -u "$golden" "$T/out" | head -c 600)"
fi
if [ -s "$T/err" ]; then not_ok "--help prints nothing on stderr" "$(head -c 400 "$T/err")"
else ok "--help prints nothing on stderr"; fi

# -h is the same text
run_capture "$PMCOLLECT" -h
if [ "$rc" -eq 0 ] && cmp -s "$golden" "$T/out"; then ok "-h is the same text"
else not_ok "-h is the same text" "exit $rc" "$(diff -u "$golden" "$T/out" | head -c 400)"; fi

done_testing
