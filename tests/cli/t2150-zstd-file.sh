#!/bin/sh
# SPDX-License-Identifier: MIT
# A trace is a zstd file (issue 30, FORMAT.md §2): the zstd command-line tool tests it, lists its
# frames (one skippable frame for the file header, then per chunk a skippable frame and the
# payload's zstd frame) and decompresses it to the record stream; file(1) calls it zstd. pmanalyze
# reads it, and a 1.x sample, also from a pipe (`pmanalyze -`), a cut-short copy included.
. "$PMT_TOP/tests/cli/lib.sh"

# over 2 s of wall time whatever the load (the sleep), so the flush per second makes chunks 1, 2, ...
tr="$T/new.zst"
run_capture "$PMCOLLECT" -q -o "$tr" -- sh -c '"$0" -t 2 -w 20 -r 3 balanced && sleep 2.2' "$W/phases"
expect_status "pmcollect records a trace" 0

# what the file holds, from its own headers (tests/cli/pmtrace.py): chunks and records' bytes
python3 "$PMT_TOP/tests/cli/checks.py" zstd_layout "$tr" "$PMT_TOP/tests/cli" >"$T/layout" 2>&1
read -r major minor nchunks usize <"$T/layout"
# chunk 0 holds META alone; a flush at least once a second (FORMAT.md §4.3) makes 2 more in 2.2 s
if [ "$major.$minor" = 2.0 ] && [ "$nchunks" -ge 3 ]; then ok "the trace is pmtrace 2.0 with $nchunks chunks"
else not_ok "the trace is pmtrace 2.0 with 3 or more chunks" "$(cat "$T/layout")"; fi

run_capture zstd -t "$tr"
expect_status "zstd -t passes" 0

# zstd -l: 2 frames per chunk plus the header's, of which the skippable ones are 1 + chunks
run_capture zstd -l "$tr"
frames=$(awk 'NR == 2 {print $1 " " $2}' "$T/out")
if [ "$rc" -eq 0 ] && [ "$frames" = "$((2 * nchunks + 1)) $((nchunks + 1))" ]; then
	ok "zstd -l lists $((2 * nchunks + 1)) frames, $((nchunks + 1)) of them skippable"
else not_ok "zstd -l lists the frames" "exit $rc, frames/skips '$frames', want $((2 * nchunks + 1)) $((nchunks + 1))" "$(cat "$T/out" "$T/err")"; fi

# zstd -dc: the chunks' records, usize bytes in all, and they parse as records (FORMAT.md §5.1)
zstd -dc "$tr" >"$T/records" 2>"$T/err"; rc=$?
n=$(wc -c <"$T/records")
if [ "$rc" -eq 0 ] && [ "$n" -eq "$usize" ]; then ok "zstd -dc yields the records' $usize bytes"
else not_ok "zstd -dc yields the records' bytes" "exit $rc, $n bytes, want $usize" "$(cat "$T/err")"; fi
if python3 "$PMT_TOP/tests/cli/checks.py" zstd_records "$T/records" >"$T/py.out" 2>&1
then ok "zstdcat's stream is the records, META first, SUMMARY last ($(cat "$T/py.out"))"
else not_ok "zstdcat's stream is the records" "$(tail -3 "$T/py.out")"; fi

run_capture file "$tr"
if grep -q "Zstandard compressed data" "$T/out"; then ok "file(1) says Zstandard"
else not_ok "file(1) says Zstandard" "$(cat "$T/out")"; fi

# --info names the version, of the new trace and of a 1.x sample
run_capture "$PMANALYZE" --info "$tr"
if [ "$rc" -eq 0 ] && grep -Eq "^trace +.*\(pmtrace 2\.0, $nchunks chunks, " "$T/out"; then ok "--info: pmtrace 2.0"
else not_ok "--info: pmtrace 2.0" "exit $rc" "$(head -2 "$T/out")"; fi
run_capture "$PMANALYZE" --info "$PMT_TOP/sample-traces/pigz-8t-cpu0.zst"
if [ "$rc" -eq 0 ] && grep -Eq "^trace +.*\(pmtrace 1\.0, 6 chunks, " "$T/out"; then ok "--info of a 1.x sample: pmtrace 1.0"
else not_ok "--info of a 1.x sample: pmtrace 1.0" "exit $rc" "$(head -2 "$T/out")"; fi

# pmanalyze - : the same report from a pipe as from the file, for both framings
for f in "$tr" "$PMT_TOP/sample-traces/pigz-8t-cpu0.zst"; do
	"$PMANALYZE" --format csv "$f" >"$T/file.csv" 2>"$T/file.err"
	cat "$f" | "$PMANALYZE" --format csv - >"$T/pipe.csv" 2>"$T/err"; rc=$?
	if [ "$rc" -eq 0 ] && [ -s "$T/pipe.csv" ] && cmp -s "$T/file.csv" "$T/pipe.csv"; then
		ok "cat $(basename "$f") | pmanalyze -: the report of the file"
	else not_ok "cat $(basename "$f") | pmanalyze -: the report of the file" "exit $rc" "$(diff "$T/file.csv" "$T/pipe.csv" | head -5)" "$(cat "$T/err")"; fi
done

# a copy cut inside its last chunk, from a pipe: the complete chunks, with the truncation warning
size=$(wc -c <"$tr")
head -c $((size - 7)) "$tr" | "$PMANALYZE" --format csv - >"$T/out" 2>"$T/err"; rc=$?
if [ "$rc" -eq 0 ] && [ -s "$T/out" ] && grep -q '^pmanalyze: warning: truncated' "$T/err"; then
	ok "a cut-short trace on a pipe: analyzed with a 'truncated' warning"
else not_ok "a cut-short trace on a pipe: analyzed with a 'truncated' warning" "exit $rc" "$(cat "$T/err")"; fi

# standard input is read once: '-' with another trace is a usage error
run_capture "$PMANALYZE" - "$tr" </dev/null
expect_status "'-' with another trace: exit 2" 2
if grep -q "^pmanalyze: error: '-' (a trace on standard input) must be the only trace$" "$T/err"; then
	ok "'-' with another trace: the reason"
else not_ok "'-' with another trace: the reason" "$(cat "$T/err")"; fi

done_testing
