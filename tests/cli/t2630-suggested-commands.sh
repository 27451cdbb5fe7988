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

done_testing
