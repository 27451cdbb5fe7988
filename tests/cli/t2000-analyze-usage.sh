#!/bin/sh
# SPDX-License-Identifier: MIT
# pmanalyze's command line: help, version, bad options and bad input give one clear line and the
# documented exit status (0 ok, 1 bad data, 2 usage), never a crash.
. "$PMT_TOP/tests/cli/lib.sh"

run_capture "$PMANALYZE" --help
expect_status "--help exits 0" 0
if grep -q '^usage: pmanalyze' "$T/out"; then ok "--help prints usage on stdout"; else not_ok "--help prints usage on stdout"; fi

# every long option of --help is documented in the man page
missing=""
for opt in $(grep -o -- '--[a-z][a-z-]*' "$T/out" | sort -u); do
	grep -q -- "$(echo "$opt" | sed 's/-/\\\\-/g')" "$PMT_TOP/docs/pmanalyze.1" || missing="$missing $opt"
done
if [ -z "$missing" ]; then ok "every long option is in docs/pmanalyze.1"; else not_ok "every long option is in docs/pmanalyze.1" "missing:$missing"; fi

run_capture "$PMANALYZE" --version
expect_status "--version exits 0" 0

run_capture "$PMANALYZE" --bogus x.zst
expect_status "unknown option exits 2" 2
if head -n 1 "$T/err" | grep -Eq "^pmanalyze: error: unknown option '--bogus'$"; then ok "unknown option named"; else not_ok "unknown option named" "$(cat "$T/err")"; fi

run_capture "$PMANALYZE"
expect_status "no trace exits 2" 2

for bad in 0 5-2 x "1,,2" "0-"; do
	run_capture "$PMANALYZE" --cores "$bad" x.zst
	expect_status "--cores '$bad' exits 2" 2
	if head -n 1 "$T/err" | grep -q "^pmanalyze: error: invalid --cores '$bad': "; then ok "--cores '$bad' explained"; else not_ok "--cores '$bad' explained" "$(cat "$T/err")"; fi
done
run_capture "$PMANALYZE" --cores 5-2 x.zst
if grep -q "backwards" "$T/err"; then ok "--cores 5-2 says the range runs backwards"; else not_ok "--cores 5-2 says the range runs backwards" "$(cat "$T/err")"; fi

run_capture "$PMANALYZE" --format xml x.zst
expect_status "--format xml exits 2" 2

# not a trace / missing file: exit 1, exactly one line
printf 'hello, world\n' >"$T/text.zst"
run_capture "$PMANALYZE" "$T/text.zst"
expect_status "not a trace exits 1" 1
expect_err_line "not a trace: one line" "^pmanalyze: error: .*not a pmtrace file"

run_capture "$PMANALYZE" "$T/does-not-exist.zst"
expect_status "missing file exits 1" 1
expect_err_line "missing file: one line" "^pmanalyze: error: cannot open '.*does-not-exist.zst': No such file or directory$"

: >"$T/empty.zst"
run_capture "$PMANALYZE" "$T/empty.zst"
expect_status "empty file exits 1" 1
expect_err_line "empty file: one line" "^pmanalyze: error: "

done_testing
