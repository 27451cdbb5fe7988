#!/bin/sh
# SPDX-License-Identifier: MIT
# The "spinning?" note (analyzer/result/compute.c check_spinning) says the threads "blocked X
# times/s", X from the status nvcsw of the samples. The collector re-reads a thread's status only
# every 64 samples, so in a short run most threads are read once and none of their switches is
# seen: the note said "blocked 0.00 times/s" for a 0.19 s phases run on 1 CPU whose scheduler
# events show 7 blocking switches at its barriers. X must be what the records measured: the
# nvcsw deltas between a thread's fresh status reads (flag 0x02) over the thread time those reads
# span, and only over at least one second of it (below that, fewer than one per second cannot be
# told from none seen). Both recomputed here from pmanalyze --dump, never from the report.
. "$PMT_TOP/tests/cli/lib.sh"

GEN="$(dirname "$W")/bench/gentrace"
# measured TRACE: "<nvcsw deltas> <seconds spanned>" from the fresh status reads of the samples
measured() {
	"$PMANALYZE" --dump "$1" | python3 -c 'import json,sys
last={}; n=0; span=0.0
for l in sys.stdin:
    d=json.loads(l)
    if d["type"]!="sample": continue
    for t in d["threads"]:
        if not t["flags"] & 2: continue
        p=last.get(t["tid"])
        if p and t["nvcsw"]>=p[1]: n+=t["nvcsw"]-p[1]; span+=(d["t_ns"]-p[0])/1e9
        last[t["tid"]]=(d["t_ns"],t["nvcsw"])
print(n, span)'
}
# agrees TRACE JSON: no spin-seen note unless the records span >= 1 s, and then its rate is theirs
agrees() {
	python3 -c 'import json,sys
n,span=float(sys.argv[2]),float(sys.argv[3])
notes=[x for x in json.load(open(sys.argv[1]))["coded_notes"] if x["code"]=="spin-seen"]
if span<1.0:
    assert not notes, ("%.3f s spanned by fresh status reads, yet" % span, notes)
else:
    for x in notes: assert abs(x["values"]["blocks_per_s"]-n/span)<=1e-9*max(1,n/span), (n, span, x)' "$2" $(measured "$1")
}

# --- a synthetic 0.3 s baseline (30 samples): thread i's status is fresh only at sample 64 - i
if [ -x "$GEN" ]; then
	"$GEN" "$T/g.zst" 4 0.3 >/dev/null
	set -- $(measured "$T/g.zst")
	check "gentrace 0.3 s: no thread has two fresh status reads (nothing spanned)" test "$2" = 0.0
	"$PMANALYZE" -q --format json "$T/g.zst" >"$T/g.json" 2>"$T/err"
	check "gentrace 0.3 s: no 'blocked X times/s' claimed from status never re-read" agrees "$T/g.zst" "$T/g.json"
else
	skip "gentrace 0.3 s" "gentrace not built (make tests)"
fi

# --- a real short baseline whose threads block at two barriers
run_capture "$PMCOLLECT" -q --cpus 0 -t 4 -o "$T/p.zst" -- "$W/phases" -t 4 -w 20 -r 2 balanced
expect_status "phases -t 4 -r 2 on CPU 0 recorded" 0
"$PMANALYZE" -q --format json "$T/p.zst" >"$T/p.json" 2>"$T/err"
check "phases 0.2 s: a 'spinning?' rate only from what the status reads measured" agrees "$T/p.zst" "$T/p.json"
done_testing
