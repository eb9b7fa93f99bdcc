#!/usr/bin/env python3
"""8-bit non-interlaced PNGs (grey, grey+alpha, RGB, RGBA) to binary PNM
(P5 grey, P6 RGB; alpha dropped), with the standard library alone.

The GPU machine has no PNG library for the CLI's reader, so its tests read
the test photos as PNM, written by this (tests/gpu/run.sh). Usage:
png_to_pnm.py OUT_DIR PNG...
"""
import os
import struct
import sys
import zlib

CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> samples a pixel


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        at += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or interlace or colour not in CHANNELS:
        raise ValueError(f"{path}: only 8-bit non-interlaced grey/RGB(A) PNGs")
    n = CHANNELS[colour]
    stride = width * n
    raw = zlib.decompress(idat)
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - n] if i >= n else 0
            up = previous[i]
            corner = previous[i - n] if i >= n else 0
            predictor = (0, left, up, (left + up) // 2, paeth(left, up, corner))[kind]
            line[i] = (line[i] + predictor) & 0xFF
        rows.append(line)
        previous = line
    keep = 1 if n <= 2 else 3
    pixels = bytearray()
    for line in rows:
        for x in range(width):
            pixels += line[x * n:x * n + keep]
    return width, height, keep, bytes(pixels)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for path in sys.argv[2:]:
        width, height, channels, pixels = decode(path)
        stem = os.path.splitext(os.path.basename(path))[0]
        with open(os.path.join(out, stem + ".pnm"), "wb") as f:
            f.write(b"P%d\n%d %d\n255\n" % (5 if channels == 1 else 6, width, height) + pixels)


if __name__ == "__main__":
    main()
