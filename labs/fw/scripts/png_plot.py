"""A line plot written as a PNG with the standard library alone (zlib for the compression, a 5x7
bitmap font for the labels), so that the scaling experiment can draw its figure on any machine,
a GPU node without matplotlib included.

    from png_plot import line_plot
    line_plot("out.png", x=[...], series={"name": [...], ...}, title=..., xlabel=..., ylabel=...)
"""

from __future__ import annotations

import math
import struct
import zlib

# 5x7 glyphs, one string of five 0/1 a row; lower case prints as upper case.
_GLYPHS = {
    "0": "01110 10001 10011 10101 11001 10001 01110", "1": "00100 01100 00100 00100 00100 00100 01110",
    "2": "01110 10001 00001 00010 00100 01000 11111", "3": "11111 00010 00100 00010 00001 10001 01110",
    "4": "00010 00110 01010 10010 11111 00010 00010", "5": "11111 10000 11110 00001 00001 10001 01110",
    "6": "00110 01000 10000 11110 10001 10001 01110", "7": "11111 00001 00010 00100 01000 01000 01000",
    "8": "01110 10001 10001 01110 10001 10001 01110", "9": "01110 10001 10001 01111 00001 00010 01100",
    "A": "01110 10001 10001 11111 10001 10001 10001", "B": "11110 10001 10001 11110 10001 10001 11110",
    "C": "01110 10001 10000 10000 10000 10001 01110", "D": "11100 10010 10001 10001 10001 10010 11100",
    "E": "11111 10000 10000 11110 10000 10000 11111", "F": "11111 10000 10000 11110 10000 10000 10000",
    "G": "01110 10001 10000 10111 10001 10001 01111", "H": "10001 10001 10001 11111 10001 10001 10001",
    "I": "01110 00100 00100 00100 00100 00100 01110", "J": "00111 00010 00010 00010 00010 10010 01100",
    "K": "10001 10010 10100 11000 10100 10010 10001", "L": "10000 10000 10000 10000 10000 10000 11111",
    "M": "10001 11011 10101 10101 10001 10001 10001", "N": "10001 10001 11001 10101 10011 10001 10001",
    "O": "01110 10001 10001 10001 10001 10001 01110", "P": "11110 10001 10001 11110 10000 10000 10000",
    "Q": "01110 10001 10001 10001 10101 10010 01101", "R": "11110 10001 10001 11110 10100 10010 10001",
    "S": "01111 10000 10000 01110 00001 00001 11110", "T": "11111 00100 00100 00100 00100 00100 00100",
    "U": "10001 10001 10001 10001 10001 10001 01110", "V": "10001 10001 10001 10001 10001 01010 00100",
    "W": "10001 10001 10001 10101 10101 10101 01010", "X": "10001 10001 01010 00100 01010 10001 10001",
    "Y": "10001 10001 10001 01010 00100 00100 00100", "Z": "11111 00001 00010 00100 01000 10000 11111",
    " ": "00000 00000 00000 00000 00000 00000 00000", ".": "00000 00000 00000 00000 00000 01100 01100",
    ",": "00000 00000 00000 00000 01100 00100 01000", "-": "00000 00000 00000 11111 00000 00000 00000",
    "(": "00010 00100 01000 01000 01000 00100 00010", ")": "01000 00100 00010 00010 00010 00100 01000",
    "/": "00000 00001 00010 00100 01000 10000 00000", ":": "00000 01100 01100 00000 01100 01100 00000",
    "=": "00000 00000 11111 00000 11111 00000 00000", "%": "11000 11001 00010 00100 01000 10011 00011",
    "+": "00000 00100 00100 11111 00100 00100 00000", "_": "00000 00000 00000 00000 00000 00000 11111",
    "x": "00000 00000 10001 01010 00100 01010 10001", "'": "00100 00100 01000 00000 00000 00000 00000",
}
COLORS = [(0, 114, 178), (213, 94, 0), (0, 158, 115), (204, 121, 167), (230, 159, 0), (86, 180, 233)]


class Canvas:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.pixels = bytearray(b"\xff" * (width * height * 3))

    def dot(self, x: int, y: int, color, size: int = 1) -> None:
        for dy in range(size):
            for dx in range(size):
                px, py = x + dx, y + dy
                if 0 <= px < self.width and 0 <= py < self.height:
                    at = 3 * (py * self.width + px)
                    self.pixels[at:at + 3] = bytes(color)

    def line(self, x0: int, y0: int, x1: int, y1: int, color, size: int = 1) -> None:
        steps = max(abs(x1 - x0), abs(y1 - y0), 1)
        for s in range(steps + 1):
            self.dot(round(x0 + (x1 - x0) * s / steps), round(y0 + (y1 - y0) * s / steps), color, size)

    def text(self, x: int, y: int, text: str, color=(0, 0, 0), scale: int = 2, vertical: bool = False) -> None:
        for c in text:
            rows = (_GLYPHS.get(c) or _GLYPHS.get(c.upper()) or _GLYPHS["-"]).split()
            for r, bits in enumerate(rows):
                for col, bit in enumerate(bits):
                    if bit == "1":
                        if vertical:  # read bottom to top
                            self.dot(x + r * scale, y - col * scale, color, scale)
                        else:
                            self.dot(x + col * scale, y + r * scale, color, scale)
            if vertical:
                y -= 6 * scale
            else:
                x += 6 * scale

    def png(self) -> bytes:
        raw = b"".join(b"\x00" + bytes(self.pixels[3 * y * self.width:3 * (y + 1) * self.width])
                       for y in range(self.height))

        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9))
                + chunk(b"IEND", b""))


def text_width(text: str, scale: int = 2) -> int:
    return 6 * scale * len(text)


def nice_ticks(low: float, high: float, count: int = 6) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten apart) covering [low, high]."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    ticks, value = [], first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < high:
        ticks.append(round(value, 10))
    return ticks


def label(value: float) -> str:
    return f"{value:g}" if abs(value) < 1e6 else f"{value:.1e}"


def line_plot(path, x: list[float], series: dict[str, list[float]], title: str, xlabel: str,
              ylabel: str, width: int = 960, height: int = 600) -> None:
    canvas = Canvas(width, height)
    left, right, top, bottom = 110, 30, 60, 80
    plot_w, plot_h = width - left - right, height - top - bottom
    xs = nice_ticks(min(x), max(x))
    all_y = [v for values in series.values() for v in values if v is not None]
    ys = nice_ticks(min(0.0, min(all_y)), max(all_y))

    def px(value: float) -> int:
        return left + round((value - xs[0]) / (xs[-1] - xs[0]) * plot_w)

    def py(value: float) -> int:
        return top + plot_h - round((value - ys[0]) / (ys[-1] - ys[0]) * plot_h)

    grid, ink = (225, 225, 225), (0, 0, 0)
    for t in xs:
        canvas.line(px(t), top, px(t), top + plot_h, grid)
        canvas.text(px(t) - text_width(label(t)) // 2, top + plot_h + 10, label(t))
    for t in ys:
        canvas.line(left, py(t), left + plot_w, py(t), grid)
        canvas.text(left - 10 - text_width(label(t)), py(t) - 7, label(t))
    canvas.line(left, top, left, top + plot_h, ink, 2)
    canvas.line(left, top + plot_h, left + plot_w, top + plot_h, ink, 2)
    canvas.text((width - text_width(title)) // 2, 20, title)
    canvas.text(left + (plot_w - text_width(xlabel)) // 2, height - 35, xlabel)
    canvas.text(25, top + (plot_h + text_width(ylabel)) // 2, ylabel, vertical=True)

    for s, (name, values) in enumerate(series.items()):
        color = COLORS[s % len(COLORS)]
        points = [(px(a), py(b)) for a, b in zip(x, values) if b is not None]
        width = 2 + len(series) - 1 - s  # earlier series drawn wider, so one hidden under a
        for (x0, y0), (x1, y1) in zip(points, points[1:]):  # later one still shows at its edges
            canvas.line(x0, y0, x1, y1, color, width)
        for x0, y0 in points:
            canvas.dot(x0 - 1, y0 - 1, color, 3)
        legend_y = top + 10 + 22 * s
        canvas.line(left + 20, legend_y + 7, left + 50, legend_y + 7, color, 3)
        canvas.text(left + 60, legend_y, name, color)
    with open(path, "wb") as out:
        out.write(canvas.png())
