#!/bin/sh
# SPDX-License-Identifier: MIT
# The omega-unknown note of a sweep trace suggests 'pmcollect --calibrate ... -- COMMAND'
# (analyzer/studies/contention.c explain_missing). A sweep's META command holds {threads}, which
# pmcollect --sweep replaces per run and --calibrate passes on as it is: the suggested command ran
# 'overhead -t {threads}', which fails (exit 2). The command suggested must be the one the
# baseline ran: its RUN_BEGIN argv (pmanalyze --dump), with -t its RUN_BEGIN threads.
. "$PMT_TOP/tests/cli/lib.sh"

run_capture "$PMCOLLECT" -q --sweep 'cores=1;threads=1-2' -o "$T/s.zst" -- "$W/overhead" -t '{threads}' -w 4 -s 1 none
expect_status "sweep cores=1;threads=1-2 of overhead -t {threads} recorded" 0
"$PMANALYZE" -q --format json "$T/s.zst" >"$T/s.json" 2>"$T/err"
"$PMANALYZE" --dump "$T/s.zst" >"$T/s.jsonl" 2>>"$T/err"
check "the omega-unknown note suggests the baseline's own command and thread count" python3 -c 'import json,re,shlex,sys
b=[d for l in open(sys.argv[2]) for d in [json.loads(l)] if d["type"]=="run_begin" and d.get("role")=="baseline"]
assert len(b)==1, b
n=[x["text"] for x in json.load(open(sys.argv[1]))["coded_notes"] if x["code"].startswith("omega")]
assert len(n)==1, n
m=re.search(r"record them with (.*) and analyze with", n[0])
assert m, n[0]
w=shlex.split(m.group(1))[0]
w=shlex.split(w)
i=w.index("--")
assert w[i+1:]==b[0]["argv"], (w[i+1:], b[0]["argv"])
assert w[:i]==["pmcollect","--calibrate","-t",str(b[0]["threads"]),"-o","calib.zst"], w[:i]' "$T/s.json" "$T/s.jsonl"
done_testing
