"""Compares a program's output with the expected output, streaming in chunks (outputs reach GBs).

Each compare returns None when the output is right, or a one-line reason naming the first
wrong entry with its index, the expected and the actual value, and how many entries are wrong
("; 40 of 1000 entries wrong"): one wrong corner and a wholly wrong matrix are different bugs.
"""

from __future__ import annotations

import math
import os
from array import array
from pathlib import Path

from grader.labs import Compare
from grader.program_files import Opened, open_folder, open_left

CHUNK_ENTRIES = 1 << 20
# Past the first wrong entry, entries are counted one by one up to this many (a Python loop:
# about a second); the count of a larger output says how far it looked.
COUNT_ENTRIES = 1 << 22


def _where(index: int, total: int, matrix: bool) -> str:
    """'entry 5' or, for a square matrix (lab.toml's [compare] matrix = true), 'entry 5 (row 1,
    column 2)'. A vector whose length happens to be a square stays a vector."""
    side = math.isqrt(total)
    if matrix and side > 1 and side * side == total:
        return f"entry {index} (row {index // side}, column {index % side})"
    return f"entry {index}"


def _close(expected: float, actual: float, rule: Compare) -> bool:
    if math.isnan(actual) or math.isnan(expected):
        return False
    return abs(actual - expected) <= rule.atol + rule.rtol * abs(expected)


def compare_output(expected_path: Path, actual: Opened, rule: Compare) -> str | None:
    """None when the output is right; else why not. `actual` is the program's output as
    program_files.open_left() opened it (a link, folder or FIFO never gets this far)."""
    expected_size = expected_path.stat().st_size
    if actual.file is None:
        if actual.size and rule.format != "text":
            return _size_reason(actual.size, expected_size)
        return actual.problem
    if rule.format == "text":
        return compare_text(expected_path, actual)
    return compare_binary(expected_path, actual, rule)


def _size_reason(size_actual: int, size_expected: int) -> str:
    return (f"output has {size_actual} bytes ({size_actual / 4:g} entries); "
            f"expected {size_expected} bytes ({size_expected // 4} entries)")


def compare_binary(expected_path: Path, actual: Opened, rule: Compare) -> str | None:
    typecode = {"f32": "f", "i32": "i"}[rule.format]
    size_expected = expected_path.stat().st_size
    total = size_expected // 4
    if actual.size != size_expected:
        return _size_reason(actual.size, size_expected)
    exact = rule.format == "i32" or (rule.rtol == 0 and rule.atol == 0)
    wrong = lambda e, a: (e != a) if exact else not _close(e, a, rule)  # noqa: E731
    fa = actual.file
    first, wrong_count, counted_to = None, 0, total
    with expected_path.open("rb") as fe:
        offset = 0
        while True:
            want_bytes = fe.read(CHUNK_ENTRIES * 4)
            got_bytes = fa.read(CHUNK_ENTRIES * 4)
            if not want_bytes:
                break
            if len(got_bytes) != len(want_bytes):
                return f"the output file changed size while it was read (at entry {offset})"
            if exact and want_bytes == got_bytes:
                offset += len(want_bytes) // 4
                continue
            want, got = array(typecode, want_bytes), array(typecode, got_bytes)
            if first is not None and offset - first[0] + len(want) > COUNT_ENTRIES:
                counted_to = offset  # counted enough: the rest is not read
                break
            for i, (e, a) in enumerate(zip(want, got)):
                if wrong(e, a):
                    wrong_count += 1
                    if first is None:
                        first = (offset + i, e, a)
            offset += len(want)
    if first is None:
        return None
    index, e, a = first
    counted = (f"{wrong_count} of {total} entries wrong" if counted_to == total else
               f"{wrong_count} of the first {counted_to} of {total} entries wrong (the rest not counted)")
    return f"{_where(index, total, rule.matrix)}: expected {e!r}, got {a!r}; {counted}"


def compare_text(expected_path: Path, actual: Opened) -> str | None:
    expected_lines = expected_path.read_text().splitlines()
    actual_lines = actual.file.read(text_cap(expected_path.stat().st_size)).decode("utf-8", "replace").splitlines()
    differing = [number for number, (e, a) in enumerate(zip(expected_lines, actual_lines), start=1) if e != a]
    if differing:
        number = differing[0]
        e, a = expected_lines[number - 1], actual_lines[number - 1]
        return (f"line {number}: expected {e[:200]!r}, got {a[:200]!r}; "
                f"{len(differing)} of {len(expected_lines)} lines differ")
    if len(actual_lines) != len(expected_lines):
        return (f"printed {len(actual_lines)} lines, expected {len(expected_lines)}"
                + (f"; line {len(expected_lines) + 1} is {actual_lines[len(expected_lines)][:200]!r}"
                   if len(actual_lines) > len(expected_lines) else ""))
    return None


def text_cap(expected_bytes: int) -> int:
    """The most of a text output the grader reads: text is compared in memory."""
    return 4 * expected_bytes + (1 << 20)


def output_cap(rule: Compare, expected_bytes: int) -> int:
    """The most bytes of an output worth opening: a bigger one is wrong without reading it."""
    return text_cap(expected_bytes) if rule.format == "text" else expected_bytes


def compare_files(expected_path: Path, actual_path: Path, rule: Compare) -> str | None:
    """compare_output on a file named by its path, opened as the grader opens a program's."""
    actual_path = Path(actual_path)
    try:
        folder = open_folder(actual_path.parent)
    except OSError:
        return "the program wrote no output file"
    try:
        opened = open_left(folder, actual_path.name, output_cap(rule, expected_path.stat().st_size),
                           not_same_as=(expected_path,))
    finally:
        os.close(folder)
    try:
        return compare_output(expected_path, opened, rule)
    finally:
        opened.close()
