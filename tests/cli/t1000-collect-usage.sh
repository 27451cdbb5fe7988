#!/bin/sh
# SPDX-License-Identifier: MIT
# pmcollect's command line: every usage error exits 2 with one "pmcollect: error:" line (plus one
# usage line when the command line itself is malformed), creates no trace and never starts the
# program; --help and --version; the long options of the option table are those docs/pmcollect.1 defines.
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
value_error "output in a missing directory" \
	"^pmcollect: error: cannot create '$T/no/such/dir/out.zst': No such file or directory$" \
	-o "$T/no/such/dir/out.zst" -- touch "$marker"

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
value_error "interval 0" "^pmcollect: error: invalid interval '0': " -i 0 -o "$T/out.zst" -- touch "$marker"
value_error "interval not a number" "^pmcollect: error: invalid interval '10ms': " --interval 10ms -o "$T/out.zst" -- touch "$marker"
value_error "interval too long" "^pmcollect: error: invalid interval '10001': " --interval 10001 -o "$T/out.zst" -- touch "$marker"
value_error "thread count 0" "^pmcollect: error: invalid thread count '0': " -t 0 -o "$T/out.zst" -- touch "$marker"
value_error "bad NUMA node list" "^pmcollect: error: (invalid NUMA node list 'x'|cannot use --membind: NUMA is not available on this machine)$" \
	--membind x -o "$T/out.zst" -- touch "$marker"
value_error "membind with interleave" "^pmcollect: error: --membind and --interleave cannot be combined$" \
	--membind 0 --interleave 0 -o "$T/out.zst" -- touch "$marker"

# --help and --version
run_capture "$PMCOLLECT" --help
expect_status "--help exits 0" 0
if [ ! -s "$T/err" ] && head -1 "$T/out" | grep -Eq "$usage_re"; then ok "--help prints the usage on stdout only"
else not_ok "--help prints the usage on stdout only" "$(head -c 300 "$T/err")"; fi
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
