# SPDX-License-Identifier: MIT
"""pngpix: the pixels of an 8-bit RGB or RGBA PNG (cairo's and Chromium's screenshots), for the
CLI tests that look for ink in a plot; python3's standard library only (no PIL in the CI image).
read(path) -> (width, height, bytes per pixel, rows), rows[y][x * bpp:x * bpp + 3] the RGB of
pixel (x, y). Source: PNG specification (RFC 2083), sections 4.1 (chunks) and 6 (filters)."""
import struct
import zlib


def read(path):
    d = open(path, "rb").read()
    assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, idat = 8, b""
    while at < len(d):
        n, kind = struct.unpack(">I4s", d[at:at + 8])
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", d[at + 8:at + 18])
        elif kind == b"IDAT":
            idat += d[at + 8:at + 8 + n]
        at += 12 + n
    assert depth == 8, "bit depth %d" % depth
    bpp = {2: 3, 6: 4}[ctype]
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):  # undo the filters, RFC 2083 section 6
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def plot_area_counts(path, colours):
    """The number of pixels of each colour (hex "rrggbb") inside the plot area of a 960 x 540
    plot of analyzer/render/plot.c (margins left 78, right 28, top 48, bottom 88 px), as a list in the
    order of colours; AssertionError when the PNG is not 960 x 540."""
    w, h, bpp, rows = read(path)
    assert (w, h) == (960, 540), (w, h)
    want = [bytes.fromhex(c) for c in colours]
    count = dict.fromkeys(want, 0)
    for y in range(48, h - 88):
        row = rows[y]
        for x in range(78, w - 28):
            px = bytes(row[x * bpp:x * bpp + 3])
            if px in count:
                count[px] += 1
    return [count[c] for c in want]
