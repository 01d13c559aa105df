"""Compares a program's output with the expected output, streaming in chunks (outputs reach GBs).

Each compare returns None when the output is right, or a one-line reason naming the first
wrong entry with its index, the expected and the actual value.
"""

from __future__ import annotations

import math
from array import array
from pathlib import Path

from grader.labs import Compare

CHUNK_ENTRIES = 1 << 20


def _where(index: int, total: int) -> str:
    """'entry 5' or, for a square matrix, 'entry 5 (row 1, column 2)'."""
    side = math.isqrt(total)
    if side > 1 and side * side == total:
        return f"entry {index} (row {index // side}, column {index % side})"
    return f"entry {index}"


def _close(expected: float, actual: float, rule: Compare) -> bool:
    if math.isnan(actual) or math.isnan(expected):
        return False
    return abs(actual - expected) <= rule.atol + rule.rtol * abs(expected)


def compare_output(expected_path: Path, actual_path: Path, rule: Compare) -> str | None:
    if rule.format == "text":
        return compare_text(expected_path, actual_path)
    return compare_binary(expected_path, actual_path, rule)


def compare_binary(expected_path: Path, actual_path: Path, rule: Compare) -> str | None:
    typecode = {"f32": "f", "i32": "i"}[rule.format]
    if not actual_path.exists():
        return "the program wrote no output file"
    size_expected = expected_path.stat().st_size
    size_actual = actual_path.stat().st_size
    total = size_expected // 4
    if size_actual != size_expected:
        return (f"output has {size_actual} bytes ({size_actual / 4:g} entries); "
                f"expected {size_expected} bytes ({total} entries)")
    exact = rule.format == "i32" or (rule.rtol == 0 and rule.atol == 0)
    with expected_path.open("rb") as fe, actual_path.open("rb") as fa:
        offset = 0
        while True:
            want_bytes = fe.read(CHUNK_ENTRIES * 4)
            got_bytes = fa.read(CHUNK_ENTRIES * 4)
            if not want_bytes:
                return None
            if exact and want_bytes == got_bytes:
                offset += len(want_bytes) // 4
                continue
            want, got = array(typecode, want_bytes), array(typecode, got_bytes)
            for i, (e, a) in enumerate(zip(want, got)):
                if (e != a) if exact else not _close(e, a, rule):
                    return f"{_where(offset + i, total)}: expected {e!r}, got {a!r}"
            offset += len(want)


def compare_text(expected_path: Path, actual_path: Path) -> str | None:
    if not actual_path.exists():
        return "the program wrote no output file"
    expected_lines = expected_path.read_text().splitlines()
    actual_lines = actual_path.read_text(errors="replace").splitlines()
    for number, (e, a) in enumerate(zip(expected_lines, actual_lines), start=1):
        if e != a:
            return f"line {number}: expected {e!r}, got {a!r}"
    if len(actual_lines) != len(expected_lines):
        return (f"printed {len(actual_lines)} lines, expected {len(expected_lines)}"
                + (f"; line {len(expected_lines) + 1} is {actual_lines[len(expected_lines)]!r}"
                   if len(actual_lines) > len(expected_lines) else ""))
    return None
