#!/bin/sh
# SPDX-License-Identifier: MIT
# Privileges (docs/pmcollect.1, PRIVILEGES): as root, --user NAME (or SUDO_USER) runs the program
# unprivileged while pmcollect keeps root; the trace file is never writable by others whatever the
# umask; without root pmcollect still records (what needs root is optional and said so in META).
# Rows for docs/faults.md go to $PMT_FAULTS_TSV.
. "$PMT_TOP/tests/cli/lib.sh"


if [ "$(id -u)" -ne 0 ] || ! id nobody >/dev/null 2>&1; then
	skip "privilege tests" "need root and a 'nobody' user"
	done_testing; exit $?
fi
nuid=$(id -u nobody); ngid=$(id -g nobody); ngroups=$(id -G nobody)
# what the program sees: its uid, gid, groups, the uid of its parent (pmcollect), HOME and USER
probe='echo "$(id -u) $(id -g)"; id -G; sed -n "s/^Uid:[[:space:]]*\([0-9]*\).*/\1/p" /proc/$PPID/status; echo "$USER"'

# expect_user NAME CASE WANT_UID WANT_GID WANT_GROUPS WANT_USER: checks $T/out of the probe
expect_user() {
	got=$(sed -n 1p "$T/out"); groups=$(sed -n 2p "$T/out"); parent=$(sed -n 3p "$T/out"); user=$(sed -n 4p "$T/out")
	happened="exit $rc; program uid/gid $got, groups $groups, USER=$user; pmcollect uid $parent"
	if [ "$rc" -eq 0 ] && [ "$got" = "$3 $4" ] && [ "$groups" = "$5" ] && [ "$parent" = 0 ] && [ "$user" = "$6" ]; then
		ok "$1: $happened"; fault_row privileges "$2" "program runs as uid $3 gid $4 groups $5, pmcollect keeps uid 0" "$happened" pass
	else
		not_ok "$1" "$happened" "$(head -c 300 "$T/err")"; fault_row privileges "$2" "program runs as uid $3, pmcollect keeps uid 0" "$happened" FAIL
	fi
}

run_capture "$PMCOLLECT" -q -o "$T/user.zst" --user nobody -- sh -c "$probe"
expect_user "--user nobody" "pmcollect as root with --user nobody" "$nuid" "$ngid" "$ngroups" nobody
if "$PMANALYZE" --dump "$T/user.zst" | grep '"type":"run_begin"' | grep -q "\"user\":{\"name\":\"nobody\",\"uid\":$nuid,\"gid\":$ngid}"
then ok "--user: RUN_BEGIN records the user"; else not_ok "--user: RUN_BEGIN records the user"; fi

run_capture env SUDO_USER=nobody "$PMCOLLECT" -q -o "$T/sudo.zst" -- sh -c "$probe"
expect_user "SUDO_USER=nobody" "pmcollect run by sudo (SUDO_USER=nobody), no --user" "$nuid" "$ngid" "$ngroups" nobody

run_capture env SUDO_USER=nobody "$PMCOLLECT" -q -o "$T/sudoroot.zst" --user root -- sh -c "$probe"
expect_user "--user root overrides SUDO_USER" "pmcollect run by sudo with --user root" 0 0 "$(id -G root)" root

run_capture "$PMCOLLECT" -q -o "$T/nosuch.zst" --user no-such-user-pmt -- true
if [ "$rc" -eq 2 ] && err_line_only "$T/err" "^pmcollect: error: invalid user 'no-such-user-pmt': no such user$" && [ ! -e "$T/nosuch.zst" ]
then ok "unknown --user: exit 2, one line, no file"; r=pass; else not_ok "unknown --user: exit 2, one line, no file" "$(diag)"; r=FAIL; fi
fault_row privileges "--user names no user" "exit 2, one error line, no trace file" "exit $rc: $(head -1 "$T/err")" $r

# --- the trace file: 0644 at most, whatever the umask ------------------------------------------------
for um in 000 022 077; do
	(umask $um && "$PMCOLLECT" -q -o "$T/umask$um.zst" -- true) >/dev/null 2>&1
	mode=$(stat -c %a "$T/umask$um.zst")
	want=$([ $um = 077 ] && echo 600 || echo 644)
	if [ "$mode" = "$want" ]; then ok "umask $um: trace mode $mode"; r=pass; else not_ok "umask $um: trace mode $mode, want $want"; r=FAIL; fi
	fault_row privileges "pmcollect as root under umask $um" "trace file mode $want (never writable by group or others)" "mode $mode" $r
done

# --- without root ----------------------------------------------------------------------------------------
mkdir -p "$T/nobody"; chmod 777 "$T/nobody"
asnobody() { setpriv --reuid="$nuid" --regid="$ngid" --clear-groups "$@"; }
run_capture asnobody "$PMCOLLECT" -q -o "$T/nobody/plain.zst" -- "$W/phases" -t 2 -w 20 -r 1 balanced
"$PMANALYZE" --dump "$T/nobody/plain.zst" >"$T/plain.jsonl" 2>/dev/null; drc=$?
samples=$(grep -c '"type":"sample"' "$T/plain.jsonl")
# taskstats exit records need CAP_NET_ADMIN; the proc connector does not on recent kernels
pc=$(grep -o '"taskstats":{[^}]*}' "$T/plain.jsonl" | head -1)
if [ "$rc" -eq 0 ] && [ "$drc" -eq 0 ] && [ "$samples" -gt 0 ] && echo "$pc" | grep -q '"recorded":false,"reason":".*needs root'
then ok "without root: recorded, taskstats marked unavailable with a reason"; r=pass
else not_ok "without root: recorded, taskstats marked unavailable with a reason" "exit $rc, dump $drc, $samples samples, $pc"; r=FAIL; fi
fault_row privileges "pmcollect run as nobody (no root)" "records from /proc; META says which root-only source is missing and why" "exit $rc; $samples samples; META $pc" $r

# an explicit --sched cannot be honoured without root: an error before anything starts, while
# the default falls back (the plain run above) (issue 29)
run_capture asnobody "$PMCOLLECT" -q --sched -o "$T/nobody/sched.zst" -- touch "$T/nobody/sched-ran"
if [ "$rc" -eq 2 ] && err_line_only "$T/err" "^pmcollect: error: cannot record scheduler events \(--sched\): tracefs needs root \(" &&
   [ ! -e "$T/nobody/sched.zst" ] && [ ! -e "$T/nobody/sched-ran" ]
then ok "--sched without root: exit 2, one line, no trace, the program not started"; r=pass
else not_ok "--sched without root: exit 2, one line, no trace, the program not started" "exit $rc" "$(cat "$T/err")" "$(ls "$T/nobody")"; r=FAIL; fi
fault_row privileges "pmcollect as nobody with --sched" "exit 2 with one error line, no trace file" "exit $rc: $(head -1 "$T/err")" $r

run_capture asnobody "$PMCOLLECT" -q -o "$T/nobody/other.zst" --user root -- true
if [ "$rc" -eq 2 ] && grep -q "^pmcollect: error: invalid user 'root': running the program as another user needs root$" "$T/err" && [ ! -e "$T/nobody/other.zst" ]
then ok "--user without root: exit 2, one line"; r=pass; else not_ok "--user without root: exit 2, one line" "exit $rc" "$(cat "$T/err")"; r=FAIL; fi
fault_row privileges "pmcollect as nobody with --user root" "exit 2 with one error line, no trace file" "exit $rc: $(head -1 "$T/err")" $r

done_testing
