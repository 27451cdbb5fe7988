#!/bin/sh
# SPDX-License-Identifier: MIT
# pmanalyze's command line: help, version, bad options and bad input give one clear line and the
# documented exit status (0 ok, 1 bad data, 2 usage), never a crash.
. "$PMT_TOP/tests/cli/lib.sh"

run_capture "$PMANALYZE" --help
expect_status "--help exits 0" 0
if grep -q '^usage: pmanalyze' "$T/out"; then ok "--help prints usage on stdout"; else not_ok "--help prints usage on stdout"; fi

# the option table and the man page name the same long options
options_match_man pmanalyze

if grep -q '%%' "$T/out"; then not_ok "--help prints no literal '%%'" "$(grep '%%' "$T/out")"; else ok "--help prints no literal '%%'"; fi

run_capture "$PMANALYZE" --version
expect_status "--version exits 0" 0

# the synopsis (up to the first empty line of --help) and the option lines are generated from
# the option table: each visible option is in both, and the synopsis's forms (--info, --learn,
# ...) name no option the table lacks
options_in_help pmanalyze
# every word the synopsis offers for an option ("--format table|json|csv") is accepted by the
# option's parser (the words of a module's own parser, e.g. the estimators, cannot drift apart)
sed -n 's/.*\[\(--[a-z-]*\) \([a-z-]*|[a-z|<>-]*\)\].*/\1 \2/p' "$T/synopsis" >"$T/choices"
refused=""; nwords=0
while read -r opt words; do
	for w in $(echo "$words" | tr '|' ' '); do
		case $w in "<"*) continue ;; esac
		nwords=$((nwords + 1))
		"$PMANALYZE" "$opt" "$w" >/dev/null 2>"$T/choice.err"
		grep -q "invalid $opt" "$T/choice.err" && refused="$refused $opt $w;"
	done
done <"$T/choices"
if [ "$nwords" -ge 15 ] && [ -z "$refused" ]; then ok "the synopsis's $nwords choice words are accepted"
else not_ok "the synopsis's choice words are accepted" "$nwords words; refused:$refused"; fi

# a malformed command line: the error line, then the one-line usage
usage_re='^usage: pmanalyze \[options\] <trace>\.\.\.$'
for args in "--bogus x.zst" "-x x.zst" "x.zst --run" ""; do
	run_capture "$PMANALYZE" $args
	if [ "$rc" -eq 2 ] && [ "$(grep -c '^pmanalyze: error: ' "$T/err")" -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 2 ] &&
	   tail -n 1 "$T/err" | grep -Eq "$usage_re"; then ok "'pmanalyze $args': the error and the one-line usage, exit 2"
	else not_ok "'pmanalyze $args': the error and the one-line usage, exit 2" "$(diag)"; fi
done

run_capture "$PMANALYZE" --bogus x.zst
expect_status "unknown option exits 2" 2
if head -n 1 "$T/err" | grep -Eq "^pmanalyze: error: unknown option '--bogus'$"; then ok "unknown option named"; else not_ok "unknown option named" "$(cat "$T/err")"; fi

# a bad value of each kind of the option table (common/pm_opt.h): exactly its one line, no usage
# block, exit 2 (lib.sh expect_err_line: any other line may only be a warning)
sample="$PMT_TOP/sample-traces/phases-mixed-8t-cpu0.zst"
bad_value() {
	name=$1; line=$2; shift 2
	run_capture "$PMANALYZE" "$@"
	expect_status "$name: exit 2" 2
	expect_err_line "$name: its one line" "^pmanalyze: error: $line$"
}
bad_value "--cores 0 (list)" "invalid --cores '0': '0' is outside 1-1000000" --cores 0 "$sample"
bad_value "--cores 5-2 (list)" "invalid --cores '5-2': range '5-2' runs backwards" --cores 5-2 "$sample"
bad_value "--format xml (choice)" "invalid --format 'xml': want table, json or csv" --format xml "$sample"
bad_value "-E bogus (choice, the estimators' parser)" \
	"invalid --estimator 'bogus': want sched-exact, switch-exact, runnable or paper" -E bogus "$sample"
bad_value "--mem (choice)" "invalid --mem 'remote': want local, interleave or local-then-remote" --mem remote "$sample"
bad_value "--run x (whole number)" "invalid --run 'x': want a run id from 0 to 4294967295" --run x "$sample"
bad_value "-j 0 (whole number)" "invalid --jobs '0': want a whole number from 1 to 4096" -j 0 "$sample"
bad_value "--procs 65537 (whole number)" "invalid --procs '65537': want a whole number from 1 to 65536" --procs 65537 "$sample"
bad_value "--pmnf-classes=0 (optional whole number)" "invalid --pmnf-classes '0': want a unit from 1 to 65536" \
	--pmnf-classes=0 "$sample"
bad_value "--threshold 0 (number above a bound)" "invalid --threshold '0': want a percentage above 0, up to 1000" \
	--threshold 0 "$sample"
bad_value "--threshold nan" "invalid --threshold 'nan': want a percentage above 0, up to 1000" --threshold nan "$sample"
bad_value "--placement (callback)" "invalid --placement 'tight': want compact, scatter or a chunk size from 1 to 1000000" \
	--placement tight "$sample"
bad_value "--tcm-event= (callback)" "invalid --tcm-event '': want an event name of 1 to 127 bytes" --tcm-event= "$sample"
# a file that cannot be written is a runtime failure, exit 1 (--help's exit statuses), one line
: >"$T/afile"
sched="$PMT_TOP/sample-traces/pipeline-4t-cpu0-sched.zst"
for out in "-o $T/afile/r.txt" "--html $T/afile/r.html" "--plot $T/afile/plots" "--export-perfetto $T/afile/p.json"; do
	run_capture "$PMANALYZE" $out "$sched"
	expect_status "unwritable $out: exit 1" 1
	expect_err_line "unwritable $out: one line" "^pmanalyze: error: cannot (open|create) '$T/afile/"
done
if "$PMANALYZE" --help | grep -q "^Exit status: 0 success, 1 bad or unreadable trace, or a file that cannot be written$"
then ok "--help: exit status 1 includes a file that cannot be written"; else not_ok "--help: exit status 1 includes a file that cannot be written"; fi
# the value given to an option: '--pmnf-classes 4' is the option without its value, then an operand
run_capture "$PMANALYZE" --format csv --cores 1-2 --pmnf-classes "$sample"
expect_status "--pmnf-classes alone: the default unit, exit 0" 0

run_capture "$PMANALYZE"
expect_status "no trace exits 2" 2

# every value-taking option of --help, given last without its value: one line naming it, status 2
run_capture "$PMANALYZE" --help
for opt in $(sed -n 's/^ *\(-[a-zA-Z], \)\{0,1\}\(--[a-z-]*\)=<.*/\2/p' "$T/out"); do
	run_capture "$PMANALYZE" x.zst "$opt"
	expect_status "$opt without its value exits 2" 2
	if head -n 1 "$T/err" | grep -q "^pmanalyze: error: option '$opt' needs a value$"; then ok "$opt without its value: named"
	else not_ok "$opt without its value: named" "$(head -n 1 "$T/err")"; fi
done
run_capture "$PMANALYZE" x.zst -o
if head -n 1 "$T/err" | grep -q "^pmanalyze: error: option '-o' needs a value$"; then ok "-o without its value: named"
else not_ok "-o without its value: named" "$(head -n 1 "$T/err")"; fi

# options after the operands, as in every GNU tool (README: pmanalyze app.zst --cores 1-40)
sample="$PMT_TOP/sample-traces/phases-mixed-8t-cpu0.zst"
run_capture "$PMANALYZE" --cores 1-3 --format csv "$sample"
cp "$T/out" "$T/before.csv"
run_capture "$PMANALYZE" "$sample" --cores 1-3 --format csv
expect_status "options after the trace: exit 0" 0
if [ -s "$T/out" ] && cmp -s "$T/out" "$T/before.csv"; then ok "options after the trace: the same report as before it"
else not_ok "options after the trace: the same report as before it" "$(head -c 400 "$T/err")"; fi
run_capture "$PMANALYZE" "$sample" --bogus
if [ "$rc" -eq 2 ] && head -n 1 "$T/err" | grep -q "^pmanalyze: error: unknown option '--bogus'$"; then ok "unknown option after the trace: named, exit 2"
else not_ok "unknown option after the trace: named, exit 2" "$(head -n 1 "$T/err")"; fi

for bad in 0 5-2 x "1,,2" "0-"; do
	run_capture "$PMANALYZE" --cores "$bad" x.zst
	expect_status "--cores '$bad' exits 2" 2
	expect_err_line "--cores '$bad' explained in one line" "^pmanalyze: error: invalid --cores '$bad': "
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

# --- damaged and degenerate traces (a real sample trace, cut) -------------------------------------
full="$PMT_TOP/sample-traces/phases-mixed-8t-cpu0.zst"
size=$(wc -c <"$full")
head -c $((size / 2)) "$full" >"$T/half.zst"
run_capture "$PMANALYZE" --format json "$T/half.zst"
expect_status "truncated trace: analyzed, exit 0" 0
got_s=$(sed -n 's/^pmanalyze: warning: truncated: analyzed \([0-9.]*\) s of run 0 .*/\1/p' "$T/err")
if [ -n "$got_s" ] && grep -q "^pmanalyze: warning: truncated: the file ends inside a chunk; analyzed the [0-9]* complete chunks$" "$T/err"
then ok "truncated trace: warns 'truncated: analyzed $got_s s of run 0' and how many chunks"
else not_ok "truncated trace: warns 'truncated: analyzed X s' and how many chunks" "$(cat "$T/err")"; fi
cp "$T/out" "$T/half.json"
# the warning is in the JSON too, and the analyzed wall time is what the warning says
if grep -q '"truncated: analyzed' "$T/half.json"; then ok "truncated trace: the warning is in traces[].warnings"
else not_ok "truncated trace: the warning is in traces[].warnings"; fi
near "truncated trace: wall_s is the analyzed part" "$(json_get "$T/half.json" traces.0.wall_s)" "${got_s:-0}" 0.01
run_capture "$PMANALYZE" --format json "$full"
near "truncated trace: about half of the full run analyzed" "${got_s:-0}" "$(awk -v w="$(json_get "$T/out" traces.0.wall_s)" 'BEGIN{print w/2}')" 0.2

# cut inside the second chunk: metadata but no sample
head -c 2000 "$full" >"$T/nosamples.zst"
run_capture "$PMANALYZE" "$T/nosamples.zst"
expect_status "no samples: exit 1" 1
if [ "$(grep -c '^pmanalyze: error: ' "$T/err")" -eq 1 ] && grep -q "^pmanalyze: error: '.*nosamples.zst': no samples to analyze$" "$T/err"
then ok "no samples: one error line"; else not_ok "no samples: one error line" "$(cat "$T/err")"; fi
head -c 100 "$full" >"$T/header.zst"
run_capture "$PMANALYZE" "$T/header.zst"
expect_status "cut inside the first chunk: exit 1" 1
expect_err_line "cut inside the first chunk: one line" "^pmanalyze: error: .*ends inside its header or first chunk$"

# a program that ran one thread: an answer (S = 1 at every n), not an error
run_capture "$PMCOLLECT" -q -o "$T/one.zst" -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done'
# -q: a warning about late samples (a busy host) is not what this checks (STYLE.md §8: a test
# checks what the tool did, not how busy the machine was); the error line still comes
run_capture "$PMANALYZE" -q "$T/one.zst"
expect_status "one thread: exit 0 (an answer, not an error)" 0
check "one thread: the note serial" grep -qx "note: the program ran one thread at a time: more cores do not help (A(m,inf) = 1, so S(m,n) = 1 and T(n) = T(1) at every n: the optimum is 1 core)" "$T/out"

# -o creates its file only once there is something to write: a bad trace leaves none
for mode in "" --info --dump; do
	rm -f "$T/report.txt"
	run_capture "$PMANALYZE" $mode -o "$T/report.txt" "$T/text.zst"
	if [ "$rc" -eq 1 ] && [ ! -e "$T/report.txt" ]; then ok "-o with a bad trace ($mode): exit 1, no file"
	else not_ok "-o with a bad trace ($mode): exit 1, no file" "exit $rc, file: $(ls -l "$T/report.txt" 2>&1)"; fi
done
rm -f "$T/report.txt"
run_capture "$PMANALYZE" -o "$T/report.txt" "$T/nosamples.zst"
if [ "$rc" -eq 1 ] && [ ! -e "$T/report.txt" ]; then ok "-o with a trace that has nothing to analyze: no file"
else not_ok "-o with a trace that has nothing to analyze: no file" "exit $rc"; fi
run_capture "$PMANALYZE" -o "$T/report.txt" --format csv --cores 1-2 "$PMT_TOP/sample-traces/phases-mixed-8t-cpu0.zst"
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$T/report.txt")" -eq 3 ] && [ ! -s "$T/out" ]; then ok "-o with a good trace: the report is in the file"
else not_ok "-o with a good trace: the report is in the file" "exit $rc"; fi

# a hand-made trace claiming 2,000,000 PUs (the sample's META rewritten, chunk 0 recompressed,
# CRCs recomputed): the default core counts are capped with a note; explicit --cores still go
# past the cap
python3 "$PMT_TOP/tests/cli/checks.py" usage_two_million_pus "$PMT_TOP/sample-traces/phases-mixed-8t-cpu0.zst" "$T/2m-pus.zst"
run_capture "$PMANALYZE" --format csv "$T/2m-pus.zst"
n=$(wc -l <"$T/out")
if [ "$rc" -eq 0 ] && [ "$n" -eq 1025 ]; then ok "2,000,000 PUs: the default stops at 1024 core counts"
else not_ok "2,000,000 PUs: the default stops at 1024 core counts" "exit $rc, $n lines" "$(head -c 300 "$T/err")"; fi
run_capture "$PMANALYZE" "$T/2m-pus.zst"
if grep -q "^note: the default core counts stop at 1024, not at max(m, PUs of the recording machine) = 2000000; give --cores for more$" "$T/out"
then ok "2,000,000 PUs: the table says so in a note"; else not_ok "2,000,000 PUs: the table says so in a note" "$(grep '^note' "$T/out")"; fi
run_capture "$PMANALYZE" --format csv --cores 999998-1000000 "$T/2m-pus.zst"
if [ "$rc" -eq 0 ] && [ "$(sed -n '$s/,.*//p' "$T/out")" = 1000000 ] && [ "$(wc -l <"$T/out")" -eq 4 ]
then ok "2,000,000 PUs: --cores 999998-1000000 is not capped"; else not_ok "2,000,000 PUs: --cores 999998-1000000 is not capped" "exit $rc" "$(tail -2 "$T/out")"; fi

# past n = m the m threads leave the other cores idle (Tudor & Teo: idle cores do not contend):
# the table shows one row for n = m+1..40 that says S(n) = S(m); JSON and CSV keep every n
pipe="$PMT_TOP/sample-traces/pipeline-4t-cpu0-sched.zst"
run_capture "$PMANALYZE" "$pipe" --cores 1-40
if grep -Eq '^ +5-40 +3\.90 .* = S\(m\): m threads, the other cores idle$' "$T/out" && ! grep -Eq '^ +(6|40) ' "$T/out"
then ok "table: 5-40 collapsed into one 'S(m)' row"; else not_ok "table: 5-40 collapsed into one 'S(m)' row" "$(grep -E '^ +[0-9-]+ ' "$T/out")"; fi
run_capture "$PMANALYZE" "$pipe" --cores 1-40 --format csv
if [ "$(grep -c '^[0-9]' "$T/out")" -eq 40 ]; then ok "CSV keeps all 40 rows"; else not_ok "CSV keeps all 40 rows" "$(wc -l <"$T/out") lines"; fi
run_capture "$PMANALYZE" "$pipe" --cores 1-40 --format json
if [ "$(json_get "$T/out" predictions.39.cores)" = 40 ]; then ok "JSON keeps all 40 predictions"; else not_ok "JSON keeps all 40 predictions"; fi

# one core is one core
run_capture "$PMANALYZE" --cores 1 "$PMT_TOP/sample-traces/phases-mixed-8t-cpu0.zst"
if grep -q "^optimal      1 core (S = 1.00, the largest); 95% of it from 1 core; S increases over no interval$" "$T/out"
then ok "--cores 1: 'optimal 1 core', '95% of it from 1 core'"; else not_ok "--cores 1: 'optimal 1 core', '95% of it from 1 core'" "$(grep '^optimal' "$T/out")"; fi

# progress (issue 14 part 4): --progress gives the reading's lines, a terminal only for traces over
# 100 MB, -q none
st="$PMT_TOP/sample-traces/phases-mixed-8t-cpu0.zst"
run_capture "$PMANALYZE" --progress "$st"
expect_err_line "--progress: the trace's size, records and time on stderr" "^pmanalyze: read '.*phases-mixed-8t-cpu0.zst': 0.1 MB, [0-9]+ records in [0-9.]+ s$"
run_capture "$PMANALYZE" -q --progress "$st"
check "-q --progress: no progress line" sh -c '! grep -q "^pmanalyze: read" "$1"' sh "$T/err"
run_capture "$PMANALYZE" "$st"
check "no --progress, stderr not a terminal: no progress line" sh -c '! grep -q "^pmanalyze: read" "$1"' sh "$T/err"
if command -v script >/dev/null 2>&1; then
	script -qec "'$PMANALYZE' '$st' >/dev/null" /dev/null >"$T/tty" 2>&1
	check "a 0.1 MB trace on a terminal: no progress line (100 MB and more only)" sh -c '! grep -q "^pmanalyze: read" "$1"' sh "$T/tty"
else
	skip "a 0.1 MB trace on a terminal: no progress line" "no script(1) (bsdutils)"
fi

# one letter, one meaning across both tools (issue 27): -f is --force, -F --format, -E --estimator,
# -I --info; for one release the old forms still work with one warning line each
# (in $PMT_TOP with the goldens' relative path: the reports name the trace as given)
G="$PMT_TOP/tests/golden"
rel=sample-traces/phases-mixed-8t-cpu0.zst
inrepo() { (cd "$PMT_TOP" && "$@"); }
run_capture inrepo "$PMANALYZE" -f json "$rel"
if [ "$rc" -eq 0 ] && cmp -s "$T/out" "$G/phases-mixed.json" &&
   [ "$(cat "$T/err")" = "pmanalyze: warning: '-f json' is deprecated: use -F json (--format)" ]; then
	ok "deprecated -f json: the JSON report and one warning line"
else not_ok "deprecated -f json: the JSON report and one warning line" "exit $rc" "$(head -c 300 "$T/err")"; fi
run_capture inrepo "$PMANALYZE" -fcsv "$rel"
if [ "$rc" -eq 0 ] && cmp -s "$T/out" "$G/phases-mixed.csv" &&
   [ "$(cat "$T/err")" = "pmanalyze: warning: '-fcsv' is deprecated: use -F csv (--format)" ]; then
	ok "deprecated -fcsv: the CSV report and one warning line"
else not_ok "deprecated -fcsv: the CSV report and one warning line" "exit $rc" "$(head -c 300 "$T/err")"; fi
run_capture inrepo "$PMANALYZE" -i "$rel"
if [ "$rc" -eq 0 ] && cmp -s "$T/out" "$G/phases-mixed.info" &&
   [ "$(cat "$T/err")" = "pmanalyze: warning: '-i' is deprecated: use -I (--info)" ]; then
	ok "deprecated -i: --info and one warning line"
else not_ok "deprecated -i: --info and one warning line" "exit $rc" "$(head -c 300 "$T/err")"; fi
run_capture "$PMANALYZE" -F json -E runnable "$sample"
cp "$T/out" "$T/E.json"
run_capture "$PMANALYZE" -F json -e runnable "$sample"
if [ "$rc" -eq 0 ] && cmp -s "$T/out" "$T/E.json" && grep -q '"estimator":[[:space:]]*"runnable"' "$T/out" &&
   [ "$(cat "$T/err")" = "pmanalyze: warning: '-e runnable' is deprecated: use -E runnable (--estimator)" ]; then
	ok "deprecated -e runnable: as -E runnable, one warning line"
else not_ok "deprecated -e runnable: as -E runnable, one warning line" "exit $rc" "$(head -c 300 "$T/err")"; fi
run_capture inrepo "$PMANALYZE" -I "$rel"
if [ "$rc" -eq 0 ] && cmp -s "$T/out" "$G/phases-mixed.info" && [ ! -s "$T/err" ]; then ok "-I is --info, silent"
else not_ok "-I is --info, silent" "exit $rc" "$(head -c 300 "$T/err")"; fi
# -f alone is --force: two traces of different programs are refused without it, combined with it
other="$PMT_TOP/sample-traces/pipeline-4t-cpu0-sched.zst"
run_capture "$PMANALYZE" -F csv "$sample" "$other"
rc_plain=$rc
run_capture "$PMANALYZE" -f -F csv "$sample" "$other"
if [ "$rc_plain" -eq 2 ] && [ "$rc" -eq 0 ] && [ ! -s "$T/err" ]; then ok "-f is --force: different programs combined, no warning"
else not_ok "-f is --force: different programs combined, no warning" "exit $rc_plain then $rc" "$(head -c 300 "$T/err")"; fi
# --info honours --format (issue 27): JSON and CSV give the runs and samples the text gives
run_capture inrepo "$PMANALYZE" -I -F json "$rel"
cp "$T/out" "$T/info.json"
run_capture inrepo "$PMANALYZE" -I -F csv "$rel"
if python3 "$PMT_TOP/tests/cli/checks.py" usage_info_outputs "$G/phases-mixed.info" "$T/info.json" "$T/out" >"$T/info.check" 2>&1
then ok "--info --format json and csv: the runs and samples of the text"
else not_ok "--info --format json and csv" "$(head -c 1200 "$T/info.check")"; fi
# ... and each run's exit status as RUN_END has it: a run that exited 1 is told from one that exited 0
fail="$PMT_TOP/tests/fixtures/traces/calibration-run-failed.zst"
"$PMANALYZE" -I -F json "$fail" >"$T/fail.json" 2>&1
"$PMANALYZE" -I -F csv "$fail" >"$T/fail.csv" 2>&1
"$PMANALYZE" --dump "$fail" >"$T/fail.dump" 2>&1
check "--info --format json and csv: each run's exit code and signal, as its RUN_END record" \
	python3 "$PMT_TOP/tests/cli/checks.py" usage_info_exit "$T/fail.dump" "$T/fail.json" "$T/fail.csv"
"$PMANALYZE" -I "$fail" >"$T/fail.info" 2>&1
# the wall time line's "measured mean" is the baseline's SAMPLE spacing (it read 9.30 ms for
# samples 10.00 ms apart: RUN_BEGIN's gap to the first and the closing part interval counted)
triad="$PMT_TOP/tests/fixtures/traces/cal-triad-8t-rep3.zst"
"$PMANALYZE" -F json "$triad" >"$T/triad.json" 2>&1
"$PMANALYZE" "$triad" >"$T/triad.txt" 2>&1
"$PMANALYZE" --dump "$triad" >"$T/triad.dump" 2>&1
check "the measured mean interval: the baseline's samples, first to last over their count - 1" \
	python3 "$PMT_TOP/tests/cli/checks.py" usage_mean_interval "$T/triad.dump" "$T/triad.json" "$T/triad.txt"
check "--info: the collector's CPU per run, as RUN_BEGIN has it (a --calibrate trace pins it in the baseline only)" \
	python3 "$PMT_TOP/tests/cli/checks.py" usage_info_collector "$T/fail.dump" "$T/fail.json" "$T/fail.info"
done_testing