#!/bin/sh
# SPDX-License-Identifier: MIT
# Hostile traces through the real pmanalyze binary: the fuzz corpora replayed by the plain replay
# driver, then a sample of damaged copies of a real trace (cut, bit flips, chunks swapped,
# repeated, dropped; control characters in the metadata): exit 0 with a damage warning, or exit 1
# with one error line; never a signal, never more than 10 s. The every-length / 1000-flip loops
# run in-process in tests/unit/test_corrupt.c. Rows for docs/faults.md go to $PMT_FAULTS_TSV.
. "$PMT_TOP/tests/cli/lib.sh"

FUZZ_BIN="$(dirname "$W")/fuzz"

# --- fuzz corpora, replayed without libFuzzer --------------------------------------------------------
for t in reader trace sched; do
	run_capture "$FUZZ_BIN/replay-$t" "$PMT_TOP/tests/fuzz/corpus/$t"
	n=$(sed -n 's/^replayed \([0-9]*\) files, 0 unreadable$/\1/p' "$T/out")
	if [ "$rc" -eq 0 ] && [ -n "$n" ] && [ "$n" -gt 0 ]; then
		ok "fuzz corpus '$t' replays ($n files)"
		fault_row "fuzz replay ($t)" "tests/fuzz/corpus/$t: $n inputs" "no crash, no sanitizer report" "$n replayed, exit 0" pass
	else
		not_ok "fuzz corpus '$t' replays" "exit $rc" "$(tail -c 600 "$T/err")"
		fault_row "fuzz replay ($t)" "tests/fuzz/corpus/$t" "no crash, no sanitizer report" "exit $rc" FAIL
	fi
done

# --- damaged copies of a real trace -----------------------------------------------------------------
full="$PMT_TOP/sample-traces/xz-T2-cpus01.zst"
mkdir -p "$T/bad"
# 8 cuts, 12 bit flips, 4 swaps, 4 repeats, 4 drops, at fixed pseudo-random places, on the sample
# as recorded (pmtrace 1.x) and re-framed as the writer writes today (2.x, FORMAT.md §2)
python3 "$PMT_TOP/tests/cli/checks.py" hostile_corrupt "$full" "$T/bad" "$PMT_TOP/tests/cli"
total=0; bad=0; maxs=0
for f in "$T"/bad/*.zst; do
	name=$(basename "$f" .zst)
	for mode in "" --salvage; do
		total=$((total + 1))
		t0=$(date +%s%N)
		timeout -s KILL 10 "$PMANALYZE" $mode --format json "$f" >"$T/out" 2>"$T/err"
		rc=$?
		ms=$((($(date +%s%N) - t0) / 1000000)); [ "$ms" -gt "$maxs" ] && maxs=$ms
		errs=$(grep -c '^pmanalyze: error: ' "$T/err")
		lines=$(wc -l <"$T/err")
		case "$rc" in
		0) grep -Eq '^pmanalyze: warning: (truncated|salvaged|chunks missing|incomplete)' "$T/err" ||
			{ bad=$((bad + 1)); not_ok "$name $mode: exit 0 without a damage warning" "$(cat "$T/err")"; continue; } ;;
		1) # one error line; the warnings about what was read may come before it
			[ "$errs" -eq 1 ] && [ "$(grep -Ec '^pmanalyze: (error|warning): ' "$T/err")" -eq "$lines" ] ||
			{ bad=$((bad + 1)); not_ok "$name $mode: exit 1 but not one error line" "$(head -c 600 "$T/err")"; continue; } ;;
		*) bad=$((bad + 1)); not_ok "$name $mode: exit $rc (signal or timeout)" "$(head -c 600 "$T/err")"; continue ;;
		esac
		ok "$name ${mode:-(default)}: exit $rc"
	done
done
fault_row "pmanalyze binary" "$total damaged copies of sample xz-T2-cpus01 as recorded (1.x) and re-framed as 2.x (each: 8 cuts, 12 bit flips, 4 swaps, 4 repeated and 4 dropped chunks; default and --salvage)" \
	"exit 0 with a damage warning, or exit 1 with one error line; within 10 s" \
	"$((total - bad)) of $total as expected; slowest ${maxs} ms" "$([ $bad -eq 0 ] && echo pass || echo FAIL)"

# --- a count field over its limit (FORMAT.md §7) is refused by name, before any allocation ---------
# the sample's first chunks again, the first SAMPLE record's n raised to 1,000,001 (recompressed,
# CRCs recomputed), so only the limit check can reject it
python3 "$PMT_TOP/tests/cli/checks.py" hostile_limit "$full" "$T/limit.zst" "$PMT_TOP/tests/cli"
run_capture "$PMANALYZE" "$T/limit.zst"
if [ "$rc" -eq 1 ] && [ "$(grep -c '^pmanalyze: error: ' "$T/err")" -eq 1 ] &&
   grep -q "^pmanalyze: error: '.*limit.zst': size field exceeds a format limit (SAMPLE n 1000001 > 1000000) after [0-9]* records$" "$T/err"
then ok "SAMPLE n over the limit: exit 1, the field named"; r=pass
else not_ok "SAMPLE n over the limit: exit 1, the field named" "exit $rc" "$(cat "$T/err")"; r=FAIL; fi
fault_row "pmanalyze binary" "SAMPLE record with n = 1,000,001 (limit 1,000,000), CRCs valid" \
	"exit 1, one error line naming the field, nothing allocated for it" "exit $rc: $(grep error "$T/err" | sed "s|$T/||")" $r

# --- control characters from a trace never reach the terminal ---------------------------------------
# a program whose command line and cwd carry ESC and a newline
esc=$(printf '\033[31mred\nline')
mkdir -p "$T/d$esc"
(cd "$T/d$esc" && "$PMCOLLECT" -q -o "$T/esc.zst" -- sh -c '"$0" -t 2 -w 20 -r 1 balanced' "$W/phases" "x$esc" >/dev/null 2>&1)
escaped=0
for mode in --info --format=table --format=csv; do
	run_capture "$PMANALYZE" $mode "$T/esc.zst"
	if [ "$rc" -eq 0 ] && [ -s "$T/out" ] && ! grep -q "$(printf '\033')" "$T/out" "$T/err"; then
		ok "control characters replaced ($mode)"
	else
		escaped=1; not_ok "control characters replaced ($mode)" "exit $rc" "$(od -c "$T/out" | head -5)"
	fi
	[ "$mode" = --info ] && cp "$T/out" "$T/info.out"
done
n=$(grep -c '?\[31mred?line' "$T/info.out")
if [ "$n" -ge 2 ]; then ok "--info shows command line and cwd with '?' for ESC and newline"; else not_ok "--info shows command line and cwd with '?' for ESC and newline" "$(cat "$T/info.out")"; fi
fault_row "pmanalyze binary" "trace whose command line and cwd contain ESC [31m and a newline" \
	"--info, table and CSV print them with '?' in place of control characters" \
	"$n --info lines with '?[31mred?line'; no ESC byte in any output" \
	"$([ "$escaped" -eq 0 ] && [ "$n" -ge 2 ] && echo pass || echo FAIL)"

done_testing
