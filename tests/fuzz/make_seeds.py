#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the seed corpus of the fuzz targets from the sample traces (run once; the output is
# committed in tests/fuzz/corpus/). Needs the `zstd` command to decompress chunk payloads.
#   reader/: the first byte picks fuzz_reader.c's mode (0 raw, 1 CRCs recomputed, 2 chunk bodies)
#   trace/:  META, RUN_BEGIN, RUN_END, SUMMARY and WARNING texts separated by NUL (fuzz_trace.c)
import os
import struct
import subprocess
import sys

top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(top, "tests", "cli"))
import pmtrace  # noqa: E402
out = os.path.join(top, "tests", "fuzz", "corpus")


def chunks(data):
    """(header, payload) of every chunk of a pmtrace file of either framing (FORMAT.md §2-§4)."""
    for _, h, payload in pmtrace.parse(data)[3]:
        yield h, payload


def records(body):
    """(type, record bytes) of a decompressed chunk (FORMAT.md §5.1)."""
    at = 0
    while at + 8 <= len(body):
        rtype, _, length = struct.unpack_from("<HHI", body, at)
        yield rtype, body[at:at + 8 + length]
        at += 8 + length


def unzstd(payload):
    return subprocess.run(["zstd", "-d", "-c", "-q"], input=payload, check=True,
                          stdout=subprocess.PIPE).stdout


def write(name, data):
    path = os.path.join(out, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    print("%s: %d bytes" % (path, len(data)))


def main():
    traces = {n: open(os.path.join(top, "sample-traces", n + ".zst"), "rb").read()
              for n in ("pigz-8t-cpu0", "xz-T2-cpus01")}
    pigz = traces["pigz-8t-cpu0"]
    write("reader/pigz-raw", b"\x00" + pigz)
    write("reader/pigz-fixcrc", b"\x01" + pigz)
    xz = traces["xz-T2-cpus01"]
    head = 16 + sum(24 + len(p) for _, p in list(chunks(xz))[:2])
    write("reader/xz-2chunks-raw", b"\x00" + xz[:head])
    # format 2 (headers in zstd skippable frames): the same traces re-framed
    pigz2, xz2 = pmtrace.reframe(pigz, 2), pmtrace.reframe(xz, 2)
    write("reader/v2-pigz-raw", b"\x00" + pigz2)
    write("reader/v2-pigz-fixcrc", b"\x01" + pigz2)
    head2 = 24 + sum(32 + len(p) for _, p in list(chunks(xz2))[:2])
    write("reader/v2-xz-2chunks-raw", b"\x00" + xz2[:head2])
    # mode 2: each chunk body is a u16 length and records; bodies are cut at record boundaries
    # to stay under 64 KiB, and only the first records of each kind are kept (small seeds)
    seen = {}
    bodies = []
    cur = b""
    for _, payload in chunks(pigz):
        for rtype, rec in records(unzstd(payload)):
            seen[rtype] = seen.get(rtype, 0) + 1
            if seen[rtype] > 3 or len(rec) > 60000:
                continue
            if len(cur) + len(rec) > 60000:
                bodies.append(cur)
                cur = b""
            cur += rec
    bodies.append(cur)
    framed = b"".join(struct.pack("<H", len(b)) + b for b in bodies)
    write("reader/pigz-records", b"\x02" + framed)
    write("reader/v2-pigz-records", b"\x05" + framed)  # (5 / 3) odd: framed as format 2
    # trace/: the JSON texts of the pigz trace (META of chunk 0, then the first of each type)
    texts = {}
    for _, payload in chunks(pigz):
        for rtype, rec in records(unzstd(payload)):
            if rtype in (1, 2, 3, 7, 0x8001) and rtype not in texts:
                texts[rtype] = rec[8 + 12:]
    texts.setdefault(0x8001, b'{"what":"late sample \\u001b[31m"}')
    write("trace/pigz-json", b"\0".join(texts[t] for t in (1, 2, 3, 7, 0x8001)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
