#!/usr/bin/env python3
"""Draws Overseer's icons into assets/ (standard library only, so any machine can redraw them).

The mark is an eye: a ring with a pupil. The app icon sits on a rounded square; the tray icons are
the bare mark in the colour of the state: idle (blue), approvals waiting (amber), braked (red).
"""
import math
import os
import struct
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets")


def png(path, size, pixel):
    rows = bytearray()
    for y in range(size):
        rows.append(0)
        for x in range(size):
            rows.extend(pixel(x, y))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b""))


def coverage(inside, x, y, n=4):
    """Fraction of the pixel (x, y) inside a shape, by n*n supersampling (anti-aliased edges)."""
    return sum(inside(x + (i + 0.5) / n, y + (j + 0.5) / n) for i in range(n) for j in range(n)) / (n * n)


def mark(size, colour, background=None):
    c = size / 2
    ring_outer, ring_inner, pupil = size * 0.40, size * 0.27, size * 0.14
    radius = size * 0.22  # corner radius of the app icon's square
    def in_square(px, py):
        dx, dy = max(abs(px - c) - (c - radius), 0), max(abs(py - c) - (c - radius), 0)
        return dx * dx + dy * dy <= radius * radius
    def in_mark(px, py):
        d = math.hypot(px - c, py - c)
        return ring_inner <= d <= ring_outer or d <= pupil
    def pixel(x, y):
        m = coverage(in_mark, x, y)
        if background is None:
            return bytes((*colour, round(255 * m)))
        s = coverage(in_square, x, y)
        rgb = tuple(round(colour[i] * m + background[i] * (1 - m)) for i in range(3))
        return bytes((*rgb, round(255 * s)))
    return pixel


if __name__ == "__main__":
    os.makedirs(ROOT, exist_ok=True)
    png(os.path.join(ROOT, "icon.png"), 512, mark(512, (255, 255, 255), background=(37, 62, 140)))
    for name, colour in (("tray", (59, 110, 220)), ("tray-pending", (230, 150, 20)), ("tray-braked", (210, 40, 40))):
        png(os.path.join(ROOT, f"{name}.png"), 32, mark(32, colour))
        png(os.path.join(ROOT, f"{name}@2x.png"), 64, mark(64, colour))
