#!/bin/sh
# SPDX-License-Identifier: MIT
# omega(n) from a calibration in windows of a running process (pmcollect --calibrate -p --window)
# by C per instruction (docs/model.md "Windows"). gentrace cal_windows=0.1 writes the six windows
# such a calibration records (three rounds of 1 CPU and 2 CPUs, the process left running after
# each), the 2-CPU windows with twice the CPU time of the 1-CPU ones (both CPUs busy: the ratio
# of CPU times would read omega(2) = 1) and instructions at a CPI 10% higher: omega(2) = 0.10 by
# construction. Checked: omega(2) = 0.10 within 1e-6 from cycles per instruction, and from CPU
# time per instruction when the windows have instructions but no cycles (win_counters=1); the
# cal-windows note's wording and the memory line say so; without instructions (win_counters=0,
# a machine without a PMU) omega stays unknown with the note's wording of before.
. "$PMT_TOP/tests/cli/lib.sh"

GEN="$(dirname "$W")/bench/gentrace"
note_re() { # the start of the cal-windows note of 6 windows of 0.5 s on 1 and 2 cores
	printf '%s' "note: the calibration is 6 windows of 0.5 s of a running process on 1, 2 cores \(pmcollect --calibrate -p --window\): a window of a fixed length does not do a fixed amount of the program's work, "
}
for mode in 2 1 0; do
	if ! "$GEN" "$T/w$mode.zst" 4 0.5 cal_windows=0.1 win_counters=$mode >/dev/null 2>"$T/gen.err"; then
		not_ok "gentrace cal_windows=0.1 win_counters=$mode" "$(cat "$T/gen.err")"; done_testing; exit 1
	fi
done

for mode in 2 1; do
	case $mode in 2) what="cycles per instruction"; src=cycles_per_instruction; unit=cycles; C1=1e9 ;;
	              1) what="CPU time per instruction"; src=cpu_time_per_instruction; unit=cpu_time; C1=5e8 ;; esac
	run_capture "$PMANALYZE" --format json "$T/w$mode.zst"
	expect_status "JSON of the windows ($what): exit 0" 0
	cp "$T/out" "$T/w$mode.json"
	w2=$(python3 -c 'import json, sys
p = [q for q in json.load(open(sys.argv[1]))["predictions"] if q["cores"] == 2]
print(p[0]["omega"] if p and p[0]["omega"] is not None else "null")' "$T/w$mode.json")
	near "$what: omega(2) = 0.10 within 1e-6" "$w2" 0.1 1e-5
	check "$what: JSON omega_source $src, memory.source $unit, per_instruction, instructions_ref 8e8, C1 $C1" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m, p = d["memory"], [q for q in d["predictions"] if q["cores"] == 2][0]
assert p["omega_source"] == sys.argv[2], p
assert m["source"] == sys.argv[3] and m["per_instruction"] is True, m
assert abs(m["instructions_ref"] - 8e8) < 1, m
assert abs(m["params"]["C1"] / float(sys.argv[4]) - 1) < 1e-9, m["params"]
assert len(m["points"]) == 6 and all(q["instructions"] > 0 for q in m["points"]), m["points"]
n = [x for x in d["coded_notes"] if x["code"] == "cal-windows"]
assert n and n[0]["values"]["per_instruction"] == (1 if sys.argv[3] == "cycles" else 2), n
assert not [x for x in d["coded_notes"] if x["code"] == "omega-unknown"], d["coded_notes"]
' "$T/w$mode.json" "$src" "$unit" "$C1"
	run_capture "$PMANALYZE" "$T/w$mode.zst"
	expect_status "table of the windows ($what): exit 0" 0
	check "$what: the memory line names C(n)'s source" grep -q "^memory       C(n) from $what; model single-socket" "$T/out"
	check "$what: the windows' table with instructions" grep -qx "calibration  in windows of a running process (C(n) = $what x 8e+08 instructions: see the notes)" "$T/out"
	check "$what: the note says omega comes from C per instruction, and when that holds" grep -Eqx \
		"$(note_re)so C\(n\) is each window's ${what% per instruction} per instruction retired times 8e\+08 instructions \(the median of the 1-CPU windows\), as if every window had done that work, and omega\(n\) = C\(n\)/C\(1\) - 1 \(eq\. 7\); this assumes the program retires the same instructions per unit of work on 1 and on c cores, as threads that block while they wait do and threads that spin do not \(a spinning wait retires instructions that do no work: docs/model\.md, Limits\)" "$T/out"
done

# without instructions: as before (omega unknown, the windows listed, the note's old wording)
run_capture "$PMANALYZE" --format json "$T/w0.zst"
expect_status "JSON of the windows without instructions: exit 0" 0
check "without instructions: omega(2) null, omega_source none, memory source none, cal-windows choice 0" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = [q for q in d["predictions"] if q["cores"] == 2][0]
assert p["omega"] is None and p["omega_source"] == "none", p
assert d["memory"]["source"] == "none" and "per_instruction" not in d["memory"], d["memory"]
n = [x for x in d["coded_notes"] if x["code"] == "cal-windows"]
assert n and n[0]["values"]["per_instruction"] == 0, n
' "$T/out"
run_capture "$PMANALYZE" "$T/w0.zst"
expect_status "table of the windows without instructions: exit 0" 0
check "without instructions: the windows' table as before" grep -qx 'calibration  in windows of a running process (C(n) unknown: see the notes)' "$T/out"
check "without instructions: the note's wording of before" grep -Eqx \
	"$(note_re)so its CPU time is not C\(n\) and omega\(n\) = C\(n\)/C\(1\) - 1 \(eq\. 7\) is not computed from it; the table 'calibration in windows' gives each window's busy cores; for omega record whole runs \(pmcollect --calibrate -- CMD\)" "$T/out"
check "without instructions: the 2-CPU windows' busy cores are 2 (the CPU-time ratio is no omega)" sh -c \
	"grep -Eq '^ {13} +1 +2 +0\.500 +1\.000 +2\.00\$' \"\$1\"" sh "$T/out"
done_testing
