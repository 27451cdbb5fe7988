# SPDX-License-Identifier: MIT
# Tiny TAP helpers for the command-line tests (after git's t/test-lib.sh): each check prints
# "ok N - name" or "not ok N - name" with the reason. Environment from tests/run-tests.sh:
# PMT_BIN (pmcollect, pmanalyze), PMT_WORKLOADS (built workloads), PMT_TMP (scratch), PMT_TOP.
set -u
: "${PMT_BIN:?run through tests/run-tests.sh}"
PMCOLLECT="$PMT_BIN/pmcollect"; PMANALYZE="$PMT_BIN/pmanalyze"; W="$PMT_WORKLOADS"
T="$PMT_TMP/$(basename "$0" .sh)"; rm -rf "$T"; mkdir -p "$T"
tap_n=0; tap_failed=0
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1"; }
# not_ok NAME [DETAIL...]: every line of every DETAIL as a "#   " comment (a detail's own line that
# starts with "ok" must not read as a TAP result)
not_ok() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $1"; shift; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/#   /'; done; }
# skip NAME REASON: TAP's "ok N - NAME # SKIP REASON"; tests/run-tests.sh counts it as skipped
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }
# check NAME CMD...: passes when CMD exits 0
check() { name=$1; shift; if "$@" >"$T/check.out" 2>&1; then ok "$name"; else not_ok "$name" "command: $*" "$(head -c 600 "$T/check.out")"; fi; }
# run_capture CMD...: runs CMD, stdout in $T/out, stderr in $T/err, status in $rc, the command
# line in $last_cmd (printed by a failed expect_status or expect_err_line)
run_capture() { last_cmd=$*; "$@" >"$T/out" 2>"$T/err"; rc=$?; }
last_cmd=""
# diag [FILE]: the three lines a failed check of the last run_capture prints for a diagnosis: the
# command, its exit status and its stderr (FILE, default $T/err; the first 600 bytes)
diag() { printf '%s\n' "command: ${last_cmd:-?}" "exit status: ${rc:-?}" "stderr: $(head -c 600 "${1:-$T/err}")"; }
# expect_status NAME WANT: compares $rc
expect_status() {
	if [ "$rc" -eq "$2" ]; then ok "$1"; else not_ok "$1" "want exit status $2" "$(diag)"; fi
}
# Warnings about the machine (late or lost samples, stolen time, a shared CPU, a lengthened
# interval) may come at any load and in any order, so a check of an error or a note looks for its
# line, never counts stderr lines (issue 33). The tools' warnings all start "<tool>: warning: ".
PMT_WARNING_RE='^(pmcollect|pmanalyze): warning: '
# err_line_only FILE REGEX: FILE has exactly one line matching the extended REGEX and every other
# line is a warning (PMT_WARNING_RE): no second error, no usage text, no stray output
err_line_only() {
	[ "$(grep -Ec "$2" "$1")" -eq 1 ] && [ "$(grep -Ev "$2" "$1" | grep -Evc "$PMT_WARNING_RE")" -eq 0 ]
}
# expect_err_line NAME REGEX: stderr ($T/err) has exactly one line matching the extended REGEX,
# and whatever else it has is warnings (err_line_only)
expect_err_line() {
	if err_line_only "$T/err" "$2"; then ok "$1"; else not_ok "$1" "want one stderr line matching /$2/ (other lines: warnings only)" "$(diag)"; fi
}
# The machine's load, for the log of a failed timing or accuracy check: a failure on a busy
# machine must be recognisable as such (issue 11). loadavg's fourth field is running/total tasks.
# options_match_man TOOL: the tool's visible long options (its option table, printed by the hidden
# --list-options) against those the man page docs/TOOL.1 defines (the item line after each .TP of
# its OPTIONS section), both ways: an option missing from the man page, or a man-page option the
# tool lacks, fails; at least 10 options on each side
options_match_man() {
	man="$PMT_TOP/docs/$1.1"
	"$PMT_BIN/$1" --list-options | sort -u >"$T/opts.tool"
	awk '/^\.SH /{opt = ($0 ~ /^\.SH "?OPTIONS/)} opt && prev == ".TP" {print} {prev = $0}' "$man" |
		sed 's/\\-/-/g' | grep -Eo -- '--[a-z][a-z0-9-]*' | sort -u >"$T/opts.man"
	nt=$(wc -l <"$T/opts.tool"); nm=$(wc -l <"$T/opts.man")
	undocumented=$(comm -23 "$T/opts.tool" "$T/opts.man" | tr '\n' ' ')
	unknown=$(comm -13 "$T/opts.tool" "$T/opts.man" | tr '\n' ' ')
	if [ "$nt" -ge 10 ] && [ "$nm" -ge 10 ] && [ -z "$undocumented" ] && [ -z "$unknown" ]; then
		ok "the $nt long options of $1's table are the options docs/$1.1 defines"
	else
		not_ok "the long options of $1's table are the options docs/$1.1 defines" \
			"$nt in the table, $nm in the man page" "not in the man page: $undocumented" \
			"in the man page, not in $1: $unknown"
	fi
}
# options_in_help TOOL: TOOL --help's synopsis (up to its first empty line) and option lines are
# generated from the option table (common/pm_opt.h): each visible option of the table (the hidden
# --list-options) is named in the synopsis and has its option line, and the synopsis (its forms
# included) names no option the table lacks
options_in_help() {
	"$PMT_BIN/$1" --help >"$T/help.all"
	sed '/^$/q' "$T/help.all" >"$T/synopsis"
	"$PMT_BIN/$1" --list-options >"$T/names"
	missing_syn=""; missing_help=""
	while read -r name; do
		grep -q -- "$name\([] =[|]\|$\)" "$T/synopsis" || missing_syn="$missing_syn $name"
		grep -Eq -- "^  (-[a-zA-Z], |    )$name([=[ ]|$)" "$T/help.all" || missing_help="$missing_help $name"
	done <"$T/names"
	n=$(wc -l <"$T/names")
	if [ "$n" -ge 30 ] && [ -z "$missing_syn" ]; then ok "$1: the synopsis names each of the table's $n options"
	else not_ok "$1: the synopsis names each of the table's options" "$n options; missing:$missing_syn"; fi
	if [ "$n" -ge 30 ] && [ -z "$missing_help" ]; then ok "$1 --help: an option line for each of the table's $n options"
	else not_ok "$1 --help: an option line for each of the table's options" "missing:$missing_help"; fi
	unknown=$(grep -o -- '--[a-z][a-z0-9-]*' "$T/synopsis" | sort -u | grep -vxF -f "$T/names" | tr '\n' ' ')
	if [ -z "$unknown" ]; then ok "$1: the synopsis names no option the table lacks"
	else not_ok "$1: the synopsis names no option the table lacks" "$unknown"; fi
}
machine_load() { echo "machine load: $(cut -d' ' -f1-4 /proc/loadavg) (1/5/15-min load average, running/total tasks; $(nproc) CPUs)"; }
# near NAME GOT WANT RELTOL: |GOT-WANT| <= RELTOL*|WANT|
near() { if awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN{d=g-w; if(d<0)d=-d; a=w<0?-w:w; exit !(d<=t*a)}'; then ok "$1 ($2 vs $3)"; else not_ok "$1" "got $2, want $3 within $4" "$(machine_load)"; fi; }
# Accuracy against ground truth is checked in the normal build. Under the sanitizers the same
# workloads run for memory errors and undefined behaviour, and the tools' own ASan runtime (slower
# sampling, an exit-time leak scan) is not what is measured: there a check is a sanity bound of at
# least PMT_SANITY_TOL (the workloads themselves are never sanitized, so their truth is exact).
# PMT_ACCURACY=strict (make check-accuracy) asks for the figures that need a quiet machine.
case "$PMT_BIN" in *-address*|*-undefined*) PMT_SANITIZED=1 ;; *) PMT_SANITIZED=0 ;; esac
PMT_SANITY_TOL=0.15
PMT_ACCURACY=${PMT_ACCURACY:-check}
# accuracy NAME GOT WANT RELTOL: near, or a sanity bound under the sanitizers
accuracy() {
	if [ "$PMT_SANITIZED" = 1 ] && awk -v t="$4" -v s="$PMT_SANITY_TOL" 'BEGIN{exit !(t < s)}'; then
		near "$1 [sanitizer build: sanity bound]" "$2" "$3" "$PMT_SANITY_TOL"
	else
		near "$1" "$2" "$3" "$4"
	fi
}
# cpu_share FILE.json: the share of its one baseline CPU the program had, U / (wall - idle), from
# pmanalyze's JSON; below 1 when other processes ran on that CPU (on a quiet machine >= 0.97).
cpu_share() { python3 -c 'import json,sys
p=json.load(open(sys.argv[1]))["parallelism"]
busy=p["wall_s"]-p["idle_s"]
print("%.3f" % ((p["T1_s"]-p["idle_s"])/busy/p["baseline_cores"] if busy > 0 else 1))' "$1"; }
# The sampled (runnable) estimator reads "runnable, not running" as waiting for the program's own
# threads; other processes on the baseline's CPU add to that wait and bias it (measured: A -23% when
# the program had 36% of its CPU under load 10). make check asserts it when the program had at least
# PMT_MIN_CPU_SHARE of its CPU and otherwise reports a skip with the share; make check-accuracy
# (PMT_ACCURACY=strict) always asserts. The exact mode is asserted at any load.
PMT_MIN_CPU_SHARE=0.90
# quiet_accuracy SHARE NAME GOT WANT RELTOL: accuracy, or a skip when SHARE < PMT_MIN_CPU_SHARE
quiet_accuracy() {
	if [ "$PMT_ACCURACY" != strict ] && awk -v s="$1" -v m="$PMT_MIN_CPU_SHARE" 'BEGIN{exit !(s < m)}'; then
		skip "$2" "machine busy: the program had $1 of its CPU (< $PMT_MIN_CPU_SHARE; $(machine_load)); make check-accuracy asserts it"
	else
		accuracy "$2" "$3" "$4" "$5"
	fi
}
# json_get FILE PATH [DEFAULT]: the value at a dotted PATH in a JSON file (list elements by index:
# traces.0.wall_s); DEFAULT, when given, where the path is missing or null
json_get() { python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
try:
    for k in sys.argv[2].split("."): d=d[int(k)] if isinstance(d, list) else d[k]
except (KeyError, IndexError, TypeError):
    if len(sys.argv) < 4: raise
    d=None
print(sys.argv[3] if d is None and len(sys.argv) > 3 else d)' "$@"; }
# steal_s TRACE: seconds the hypervisor stole from the machine's CPUs during the trace's first run
# (RUN_END other_load.steal_cpus x wall; 0 when not recorded). The exact mode cannot see them: a
# thread's running slice between two sched_switch events includes stolen time, which its own CPU
# clock (the workloads' truth) leaves out. A quiet clean-clone CI run had the pipeline's T(1) and
# T_cp both 10 ms over the truth, one 10 ms tick of steal on a 2-vCPU VM.
steal_s() { "$PMANALYZE" --dump "$1" 2>/dev/null | python3 -c 'import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r.get("type") == "run_end":
        o = r.get("other_load") or {}
        print("%.6f" % ((o.get("steal_cpus") or 0) * r.get("wall_ns", 0) / 1e9)); break
else:
    print(0)'; }
# exact_slack_s JSON STEAL_S WORK_MS: what the exact mode's T_cp may be off beyond its base
# tolerance, in seconds: the switch-ins it inferred (inferred_s) plus the larger of the steal
# (STEAL_S, from steal_s) and |U - WORK_MS|, how far its total CPU time U (sched-exact work_s) is
# from the program's measured work. Time wrongly credited to (or missed from) running slices moves
# U by its total and T_cp by at most that, so this bounds the effect of the steal even when
# /proc/stat's 10 ms ticks miss it, while a replay that breaks the order (U right, T_cp wrong)
# still fails.
exact_slack_s() {
	awk -v g="$(exact_get "$1" inferred_s)" -v s="$2" -v u="$(exact_get "$1" work_s)" -v w="$3" \
	    'BEGIN { d = u - w / 1000; if (d < 0) d = -d; if (s > d) d = s; printf "%.6f\n", g + d }'
}
# guess_s JSON STEAL_S: the exact mode's inferred_s plus the run's steal (STEAL_S, from steal_s),
# in seconds: how far its U may be off beyond its base tolerance; for a program that may spin,
# where U's own error must not widen the bound (exact_slack_s would excuse the spinning)
guess_s() { awk -v g="$(exact_get "$1" inferred_s)" -v s="$2" 'BEGIN { printf "%.6f\n", g + s }'; }
# tracing_cost_s JSON: what recording the scheduler events adds to the exact mode's U beyond the
# kernel's own CPU time of the program (CLOCK_PROCESS_CPUTIME_ID), in seconds: 2 us per recorded
# event. Each tracepoint's ring-buffer write runs on the CPU between the kernel's runtime update and
# the event's timestamp, so the switch timestamps give the running thread that time and the task
# clock does not: measured 1.38-1.50 us per event on the three t3000 traces of a clean-clone CI run
# with the other build's suite beside it (mixed m=2: 129387 events, U 194.1 ms over the process's
# CPU time, 6.9%); 0.1-0.7 us on traces of a few hundred events.
tracing_cost_s() { awk -v e="$(exact_get "$1" events)" 'BEGIN { printf "%.6f\n", e * 2e-6 }'; }
# exact_get JSON KEY: parallelism.estimates.sched-exact.KEY, 0 when there is no exact estimate
exact_get() { json_get "$1" "parallelism.estimates.sched-exact.$2" 0; }
# fault_row TOOL INPUT EXPECTED HAPPENED RESULT: one row of docs/faults.md (tests/faults-table.sh)
# appended to $PMT_FAULTS_TSV when tests/run-tests.sh set it; RESULT is pass, FAIL or skip
fault_row() { [ -n "${PMT_FAULTS_TSV:-}" ] && printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$PMT_FAULTS_TSV"; return 0; }
# report_checks FILE CONTEXT: TAP lines for a checker script's lines "ok WHAT", "skip WHAT: WHY"
# or "fail WHAT: WHY" in FILE; an empty FILE (the checker died) fails with CONTEXT.
report_checks() {
	while read -r verdict what; do
		case $verdict in
		ok) ok "$what" ;;
		skip) ok "$what # SKIP" ;;
		*) not_ok "$what" "$(machine_load)" ;;
		esac
	done <"$1"
	[ -s "$1" ] || not_ok "checks ran" "$2"
}
# need CMD PKG: CMD is installed, from Debian's PKG when missing (reason on stdout when it cannot)
need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null 2>&1
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "$1 not installed and apt-get install $2 failed"; return 1
}
done_testing() { echo "1..$tap_n"; [ "$tap_failed" -eq 0 ]; }
