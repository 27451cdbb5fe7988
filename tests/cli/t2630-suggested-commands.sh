#!/bin/sh
# SPDX-License-Identifier: MIT
# The commands a note suggests are commands a shell runs as written (issue 29): for
# `pmcollect -- sh -c "xz -T8 -k f"` pmanalyze suggested 'pmcollect --calibrate -t 8 -o calib.zst --
# sh -c 'xz -T8 -k f'', whose inner quotes close the outer ones. A program's words with spaces,
# quotes, $ and ` (and a trace path with a space) are quoted so that every suggestion in the table,
# the JSON and the HTML's next steps passes `sh -n` and splits back into the recorded words.
. "$(dirname "$0")/lib.sh"

prog='x=1; echo "it'"'"'s $x `true`" >/dev/null'
run_capture "$PMCOLLECT" -q -o "$T/a q.zst" -- sh -c "$prog"
expect_status "pmcollect -- sh -c '<words with quotes, \$ and \`>' (exit 0)" 0
"$PMANALYZE" -q "$T/a q.zst" >"$T/table" 2>&1
"$PMANALYZE" -q --format json "$T/a q.zst" >"$T/json" 2>&1
"$PMANALYZE" -q --html "$T/a.html" "$T/a q.zst" >/dev/null 2>&1
check "every suggested command: sh -n, and its words are the recorded program's" python3 - "$PMT_TOP/tests/cli" "$T" "$prog" <<'PY'
import html, json, re, subprocess, sys
sys.path.insert(0, sys.argv[1])
from invariants import check_commands, suggested_commands
T, prog = sys.argv[2], sys.argv[3]
texts = [l[len("note: "):] for l in open(T + "/table").read().splitlines() if l.startswith("note: ")]
texts += json.load(open(T + "/json"))["notes"]
texts += [html.unescape(re.sub(r"<[^>]*>", " ", li)) for li in
          re.findall(r"<li>(.*?)</li>", open(T + "/a.html").read(), re.S)]
bad = check_commands(texts, "note")
cmds = [c for t in texts for c, _ in suggested_commands(t)]
def words(c):
    """the words sh makes of c (set -- c: nothing runs), as a list"""
    p = subprocess.run(["sh", "-c", "set -- %s; for a; do printf '%%s\\0' \"$a\"; done" % c],
                       capture_output=True, text=True, check=True)
    return p.stdout.split("\0")[:-1]
cal = [words(c) for c in cmds if c.startswith("pmcollect --calibrate")]
ana = [words(c) for c in cmds if c.startswith("pmanalyze ")]
assert not bad, bad
assert cal and all(w[w.index("--") + 1:] == ["sh", "-c", prog] for w in cal), (cmds, cal)
assert all("-t 0" not in c for c in cmds), cmds
assert ana and all(w[1] == T + "/a q.zst" for w in ana), cmds
print("%d suggestions checked" % len(cmds))
PY

# make demo's suggestions name its trace, which is still there when the demo has ended (it
# suggested a file in a folder it removed on exit)
sh "$PMT_TOP/tests/demo.sh" "$(dirname "$PMT_WORKLOADS")" >"$T/demo" 2>&1
check "make demo: every trace its suggested pmanalyze commands name exists after it" python3 - "$PMT_TOP/tests/cli" "$T/demo" <<'PY'
import os, shlex, sys
sys.path.insert(0, sys.argv[1])
from invariants import suggested_commands
text = open(sys.argv[2]).read()
cmds = [c for l in text.splitlines() if l.startswith("note: ") for c, _ in suggested_commands(l)]
ana = [shlex.split(c) for c in cmds if c.startswith("pmanalyze ")]
assert ana, "no pmanalyze command suggested:\n" + text[-800:]
for w in ana:
    traces = [a for a in w[1:] if a.endswith(".zst") and a != "calib.zst"]
    assert traces and all(os.path.exists(a) for a in traces), w
print("%d pmanalyze suggestions, their traces exist" % len(ana))
PY
# a trace read from standard input: no suggestion names '-' beside another trace (pmanalyze
# refuses '- calib.zst'); the omega note suggests the calibration trace alone
"$PMANALYZE" -q - <"$T/a q.zst" >"$T/stdin" 2>&1
check "trace on standard input: no suggested 'pmanalyze - ...', and 'pmanalyze calib.zst' instead" python3 - "$PMT_TOP/tests/cli" "$T/stdin" <<'PY'
import shlex, sys
sys.path.insert(0, sys.argv[1])
from invariants import suggested_commands
text = open(sys.argv[2]).read()
cmds = [c for l in text.splitlines() if l.startswith("note: ") for c, _ in suggested_commands(l)]
ana = [shlex.split(c) for c in cmds if c.startswith("pmanalyze ")]
assert ana and all("-" not in w for w in ana), cmds
assert ["pmanalyze", "calib.zst"] in ana, cmds
print(cmds)
PY
done_testing
