#!/bin/sh
# SPDX-License-Identifier: MIT
# pmcollect's command line: every usage error exits 2 with one "pmcollect: error:" line (plus one
# usage line when the command line itself is malformed: an unknown option, a missing value or
# command, options that do not go together; a bad value gets its line alone), creates no trace and
# never starts the program; --help (the synopsis and option lines generated from the option table)
# and --version; the long options of the option table are those docs/pmcollect.1 defines.
. "$PMT_TOP/tests/cli/lib.sh"

marker="$T/marker"
usage_re='^usage: pmcollect \[options\] \[--\] <command> \[<args>\.\.\.\]$'

# not_started NAME: the marker command did not run and no trace was left behind
not_started() {
	if [ ! -e "$marker" ] && [ ! -e "$T/out.zst" ]; then ok "$1: program not started, no trace"
	else not_ok "$1: program not started, no trace" "marker or $T/out.zst exists"; rm -f "$marker" "$T/out.zst"; fi
}

# expect_usage_error NAME REGEX: exit 2, stderr = error line matching REGEX, then the usage line
# (warnings aside: lib.sh err_line_only)
expect_usage_error() {
	if [ "$rc" -eq 2 ] && grep -Ev "$usage_re" "$T/err" >"$T/err.nousage" &&
	   err_line_only "$T/err.nousage" "$2" && [ "$(grep -Ec "$usage_re" "$T/err")" -eq 1 ] &&
	   grep -Ev "$PMT_WARNING_RE" "$T/err" | tail -1 | grep -Eq "$usage_re"; then
		ok "$1"
	else
		not_ok "$1" "want exit 2, one line /$2/ and then the usage line" "$(diag)"
	fi
}

# value_error NAME REGEX ARGS...: exit 2 and exactly one error line, nothing else
value_error() {
	name=$1; re=$2; shift 2
	run_capture "$PMCOLLECT" "$@"
	expect_status "$name: exit 2" 2
	expect_err_line "$name: one error line" "$re"
	not_started "$name"
}

cd "$T" || exit 1

# malformed command lines
run_capture "$PMCOLLECT" --bogus -o "$T/out.zst" -- touch "$marker"
expect_usage_error "unknown long option" "^pmcollect: error: unknown option '--bogus'$"
not_started "unknown long option"

run_capture "$PMCOLLECT" -x -o "$T/out.zst" touch "$marker"
expect_usage_error "unknown short option" "^pmcollect: error: unknown option '-x'$"
not_started "unknown short option"

run_capture "$PMCOLLECT" -o "$T/out.zst"
expect_usage_error "missing command" "^pmcollect: error: no command given$"
not_started "missing command"

run_capture "$PMCOLLECT" -o "$T/out.zst" --
expect_usage_error "missing command after --" "^pmcollect: error: no command given$"

run_capture "$PMCOLLECT" -q sh -c ': >"$0"; [ "$1" = -o ]' "$marker" -o
# the first non-option ends pmcollect's options: -o belongs to the command, which runs
if [ "$rc" -eq 0 ] && [ -e "$marker" ] && [ ! -s "$T/err" ]; then ok "options after the command are the command's"
else not_ok "options after the command are the command's" "exit $rc" "$(head -c 300 "$T/err")"; fi
rm -f "$marker" pmtrace.zst

# pmcollect's only other operands are the CPU lists of --runs given as separate words: options
# after them are pmcollect's again (issue 12: options after operands that are not the command)
run_capture "$PMCOLLECT" --runs 0 0 -q -o "$T/runs.zst" -- true
runs=$("$PMANALYZE" --dump "$T/runs.zst" 2>/dev/null | grep -c '"type":"run_begin"')
if [ "$rc" -eq 0 ] && [ "$runs" -eq 2 ] && [ ! -s "$T/err" ]; then ok "options after the --runs lists are pmcollect's"
else not_ok "options after the --runs lists are pmcollect's" "exit $rc, $runs runs (want 2)" "$(head -c 300 "$T/err")"; fi
rm -f "$T/runs.zst"

run_capture "$PMCOLLECT" --output
expect_usage_error "option without its value" "^pmcollect: error: option '--output' needs a value$"
# every value-taking option of the help text (issue 12: the list is read from --help, so an
# option added later is tested too), long and short forms, alone at the end of the line
"$PMCOLLECT" --help >"$T/help" 2>/dev/null
nval=0
for opt in $(sed -n 's/^ *\(-[a-zA-Z], \)\{0,1\}\(--[a-z-]*\)=.*/\2/p' "$T/help") \
	   $(sed -n 's/^ *\(-[a-zA-Z]\), --[a-z-]*=.*/\1/p' "$T/help"); do
	nval=$((nval + 1))
	run_capture "$PMCOLLECT" "$opt"
	if [ "$rc" -eq 2 ] && head -n 1 "$T/err" | grep -q "^pmcollect: error: option '$opt' needs a value$"; then
		ok "$opt without its value: named, exit 2"
	else not_ok "$opt without its value: named, exit 2" "exit $rc: $(head -n 1 "$T/err")"; fi
done
if [ "$nval" -ge 25 ]; then ok "value-taking options found in --help: $nval"
else not_ok "value-taking options found in --help: $nval (want >= 25)"; fi

# invalid values: one line, no usage
# -o's missing directories are made, as --help says (not only for a % template)
run_capture "$PMCOLLECT" -q -o "$T/no/such/dir/out.zst" -- touch "$marker"
if [ "$rc" -eq 0 ] && [ -e "$marker" ] && "$PMANALYZE" --info "$T/no/such/dir/out.zst" >/dev/null 2>&1 &&
   [ "$(stat -c %a "$T/no/such/dir")" = 755 ]; then ok "-o in a missing directory: the directories made (0755), the trace written"
else not_ok "-o in a missing directory: the directories made (0755), the trace written" "$(diag)"; fi
rm -f "$marker"
: >"$T/plainfile"
value_error "output under a file" \
	"^pmcollect: error: cannot create '$T/plainfile/out.zst': Not a directory$" \
	-o "$T/plainfile/out.zst" -- touch "$marker"

echo keep >"$T/existing.zst"
run_capture "$PMCOLLECT" -o "$T/existing.zst" -- touch "$marker"
expect_status "existing output without -f: exit 2" 2
expect_err_line "existing output without -f: one error line" \
	"^pmcollect: error: '$T/existing.zst' already exists \(use --force to overwrite it\)$"
if [ "$(cat "$T/existing.zst")" = keep ] && [ ! -e "$marker" ]; then ok "existing output left alone, program not started"
else not_ok "existing output left alone, program not started"; fi

# a directory: --force would not help, so the error says what it is (issue 29, item 11)
mkdir -p "$T/outdir"
for f in "" -f; do
	run_capture "$PMCOLLECT" $f -o "$T/outdir" -- touch "$marker"
	expect_status "pmcollect $f -o DIR: exit 2" 2
	expect_err_line "pmcollect $f -o DIR: the error says it is a directory" \
		"^pmcollect: error: '$T/outdir' is a directory \(give the trace a file name, e.g. -o '$T/outdir/trace.zst'\)$"
done
if [ -d "$T/outdir" ] && [ ! -e "$marker" ]; then ok "-o DIR: the directory left alone, program not started"
else not_ok "-o DIR: the directory left alone, program not started"; fi

value_error "CPU list '0-'" "^pmcollect: error: invalid CPU list '0-': " --cpus 0- -o "$T/out.zst" -- touch "$marker"
value_error "CPU list 'x'" "^pmcollect: error: invalid CPU list 'x': " -C x -o "$T/out.zst" -- touch "$marker"
value_error "CPU that is not online" \
	"^pmcollect: error: invalid CPU list '4095': CPU 4095 is not online \(online: [0-9,-]+\)$" \
	--cpus 4095 -o "$T/out.zst" -- touch "$marker"
value_error "empty CPU list" "^pmcollect: error: invalid CPU list '': " --cpus= -o "$T/out.zst" -- touch "$marker"
# each kind of value of the option table (common/pm_opt.h), bad: exactly its one line, exit 2
ms="want milliseconds from 0.1 to 10000"
value_error "interval 0 (number)" "^pmcollect: error: invalid --interval '0': $ms$" -i 0 -o "$T/out.zst" -- touch "$marker"
value_error "interval not a number" "^pmcollect: error: invalid --interval '10ms': $ms$" --interval 10ms -o "$T/out.zst" -- touch "$marker"
value_error "interval too long" "^pmcollect: error: invalid --interval '10001': $ms$" --interval 10001 -o "$T/out.zst" -- touch "$marker"
value_error "interval nan" "^pmcollect: error: invalid --interval 'nan': $ms$" --interval nan -o "$T/out.zst" -- touch "$marker"
value_error "omega-se 0 (number above a bound)" "^pmcollect: error: invalid --omega-se '0': want a number above 0$" \
	--calibrate --omega-se 0 -o "$T/out.zst" -- touch "$marker"
value_error "omega-se inf" "^pmcollect: error: invalid --omega-se 'inf': want a number above 0$" \
	--calibrate --omega-se inf -o "$T/out.zst" -- touch "$marker"
value_error "calibrate-budget past its bound" \
	"^pmcollect: error: invalid --calibrate-budget '1e8': want seconds above 0, up to 10000000$" \
	--calibrate --calibrate-budget 1e8 -o "$T/out.zst" -- touch "$marker"
value_error "repeat 0 (whole number)" "^pmcollect: error: invalid --repeat '0': want a whole number from 1 to 1000$" \
	--sweep cores=1 --repeat 0 -o "$T/out.zst" -- touch "$marker"
value_error "sched-buffer-kb 3 (KiB)" "^pmcollect: error: invalid --sched-buffer-kb '3': want KiB from 4 to 4194304$" \
	--sched-buffer-kb 3 -o "$T/out.zst" -- touch "$marker"
value_error "sched-buffer-kb 4.5" "^pmcollect: error: invalid --sched-buffer-kb '4.5': want KiB from 4 to 4194304$" \
	--sched-buffer-kb 4.5 -o "$T/out.zst" -- touch "$marker"
value_error "thread count 0 (callback)" \
	"^pmcollect: error: invalid --threads '0': want a thread count from 1 to 1000000 \(or a list such as 1-4 with --omp-regions\)$" \
	-t 0 -o "$T/out.zst" -- touch "$marker"
value_error "label without '=' (callback)" \
	"^pmcollect: error: invalid --label 'size': want KEY=VALUE \(key up to 64 bytes, value up to 256\)$" \
	-l size -o "$T/out.zst" -- touch "$marker"
value_error "omp-runtime (callback)" "^pmcollect: error: invalid --omp-runtime 'gnu': want 'llvm' or the path of a libomp$" \
	--omp-regions --omp-runtime gnu -o "$T/out.zst" -- touch "$marker"
value_error "bad NUMA node list" "^pmcollect: error: (invalid NUMA node list 'x'|cannot use --membind: NUMA is not available on this machine)$" \
	--membind x -o "$T/out.zst" -- touch "$marker"
value_error "membind with interleave" "^pmcollect: error: --membind and --interleave cannot be combined$" \
	--membind 0 --interleave 0 -o "$T/out.zst" -- touch "$marker"

# --help and --version
run_capture "$PMCOLLECT" --help
expect_status "--help exits 0" 0
if [ ! -s "$T/err" ] && head -1 "$T/out" | grep -q "^usage: pmcollect \[--output <file>\] "; then ok "--help prints the synopsis on stdout only"
else not_ok "--help prints the synopsis on stdout only" "$(head -c 300 "$T/err")"; fi
# the synopsis (up to the first empty line) and the option lines are generated from the table:
# each visible option of the table is in both
options_in_help pmcollect
cp "$T/out" "$T/help.txt"
run_capture "$PMCOLLECT" -h
if [ "$rc" -eq 0 ] && cmp -s "$T/out" "$T/help.txt"; then ok "-h is --help"; else not_ok "-h is --help"; fi
run_capture "$PMCOLLECT" --version
if [ "$rc" -eq 0 ] && grep -Eq '^pmcollect [0-9]+\.[0-9]+\.[0-9]+' "$T/out" && [ ! -s "$T/err" ]; then ok "--version"
else not_ok "--version" "exit $rc" "$(cat "$T/out" "$T/err" | head -c 300)"; fi

# the option table and the man page name the same long options
options_match_man pmcollect
run_capture "$PMCOLLECT" --help
if grep -q -- '--list-options' "$T/out"; then not_ok "--help leaves out the hidden --list-options"; else ok "--help leaves out the hidden --list-options"; fi

done_testing
