# SPDX-License-Identifier: MIT
"""The chunk framing of a pmtrace file (formats/FORMAT.md §2-§4), for the command-line tests that
take a trace apart, damage it or put it back together in either framing: format 1 (bare headers)
or format 2 (headers in zstd skippable frames). Chunk payloads are kept byte for byte."""
import json
import struct
import subprocess
import zlib

MAGIC1 = b"\x89PMT\r\n\x1a\n"
SKIP = struct.pack("<I", 0x184D2A5B)      # the skippable-frame magic number pmtrace uses
FILE2 = SKIP + struct.pack("<I", 16) + MAGIC1
CHUNK2 = SKIP + struct.pack("<I", 24)     # before "PMCK"


def parse(data):
    """(major, minor, header_bytes, chunks) of a well-formed trace: chunks is a list of
    (start offset, the 24-byte chunk header, payload)."""
    if data[:8] == MAGIC1:
        pre, at = b"", 16
    elif data[:16] == FILE2:
        pre, at = CHUNK2, 24
    else:
        raise ValueError("not a pmtrace file")
    hdr = at
    major, minor = struct.unpack_from("<HH", data, at - 8)
    chunks = []
    while at < len(data):
        if data[at:at + len(pre) + 4] != pre + b"PMCK":
            raise ValueError("bad chunk magic at %d" % at)
        h = data[at + len(pre):at + len(pre) + 24]
        csize = struct.unpack_from("<I", h, 8)[0]
        p0 = at + len(pre) + 24
        chunks.append((at, h, data[p0:p0 + csize]))
        at = p0 + csize
    return major, minor, data[:hdr], chunks


def file_header(major, minor=None):
    """The file header of format major (minor: 3 for 1, 0 for 2 unless given)."""
    if minor is None:
        minor = 3 if major == 1 else 0
    h = MAGIC1 + struct.pack("<HH", major, minor)
    h += struct.pack("<I", zlib.crc32(h))
    return FILE2[:8] + h if major >= 2 else h


def chunk(major, header, payload):
    """One chunk of format major from its 24-byte header and payload (CRCs as given)."""
    return (CHUNK2 if major >= 2 else b"") + header + payload


def chunk_header(seq, payload, usize):
    """A 24-byte chunk header for payload with its CRCs computed."""
    h = b"PMCK" + struct.pack("<IIII", seq, len(payload), usize, zlib.crc32(payload))
    return h + struct.pack("<I", zlib.crc32(h))


def reframe(data, major):
    """The trace data re-framed as format major, every chunk byte for byte."""
    _, _, _, chunks = parse(data)
    return file_header(major) + b"".join(chunk(major, h, p) for _, h, p in chunks)


def with_meta(data, edit):
    """The trace data (either framing) with its META record's JSON changed by edit(meta dict),
    which changes it in place: the first chunk decompressed, its first record (META, type 1)
    rewritten, recompressed, its CRCs recomputed; every other chunk byte for byte."""
    major, _, head, chunks = parse(data)
    _, h, payload = chunks[0]
    body = subprocess.run(["zstd", "-d", "-c", "-q"], input=payload, stdout=subprocess.PIPE,
                          check=True).stdout
    rtype, flags, ln = struct.unpack_from("<HHI", body, 0)
    if rtype != 1:
        raise ValueError("the first record is not META")
    meta = json.loads(body[8 + 12:8 + ln])
    edit(meta)
    text = json.dumps(meta).encode()
    body = struct.pack("<HHI", 1, flags, 12 + len(text)) + body[8:8 + 12] + text + body[8 + ln:]
    payload = subprocess.run(["zstd", "-q", "-c", "--stream-size=%d" % len(body)], input=body,
                             stdout=subprocess.PIPE, check=True).stdout
    first = chunk(major, chunk_header(struct.unpack_from("<I", h, 4)[0], payload, len(body)), payload)
    return head + first + b"".join(chunk(major, hh, p) for _, hh, p in chunks[1:])
