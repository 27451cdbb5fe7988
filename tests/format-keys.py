#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Prints what formats/FORMAT.md names, one per line, for docs/pmtrace.5 to be checked against
# (tests/cli/t2160-pmtrace-man.sh): "record NAME 0xNNNN" for every record type, "meta KEY" for
# every top-level META key of its JSON examples and code spans (§6 META), "version X.Y" for every change-log entry,
# "warning CODE" for every code of its WARNING table.
import re
import sys

text = open(sys.argv[1], encoding="utf-8").read()
for name, code in sorted(set(re.findall(r"\b([A-Z][A-Z_]+) \((0x[0-9A-F]{4})", text))):
    print("record", name, code)
for v in re.findall(r"^- (\d+\.\d+) \(\d{4}-\d\d-\d\d\)", text, re.M):
    print("version", v)
meta = text[text.index("\n### META\n"):text.index("\n### RUN_BEGIN\n")]
keys = set()
for block in re.findall(r"```\n(.*?)```", meta, re.S):
    depth = 0 if block.lstrip().startswith("{") else 1
    i = 0
    while i < len(block):
        c = block[i]
        if c == '"':
            j = block.index('"', i + 1)
            if depth == 1 and re.match(r"\s*:", block[j + 1:]):
                keys.add(block[i + 1:j])
            i = j + 1
            continue
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
        i += 1
# keys given in the prose as code: `"usable_cpus": "0"`
keys.update(re.findall(r'`"([a-z_]+)":', re.sub(r"```.*?```", "", meta, flags=re.S)))
for k in sorted(keys):
    print("meta", k)
warn = text[text.index("\n### WARNING\n"):]
warn = warn[:warn.index("\n### ", 1)]
for code in re.findall(r"^\| `([a-z0-9-]+)` \|", warn, re.M):
    print("warning", code)
