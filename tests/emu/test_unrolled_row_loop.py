"""labs/emu/scripts/unrolled_row_loop.py's model of nvcc's unrolled row loop, on matrices made here."""

from __future__ import annotations

import sys
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(KIT / "labs/emu/scripts"))

import unrolled_row_loop as model  # noqa: E402


def test_the_four_parts_cover_every_trip_once():
    for trips in range(0, 200):
        issues = model.sass_trips(1000, trips)
        assert [jj for _, jj in issues] == list(range(1000, 1000 + trips))
        assert len({issue for issue, _ in issues}) == trips  # each trip its own issue


def test_parts_of_lengths_the_sass_shows():
    assert model.unrolled_parts(3) == (3, 0, 0, 0)
    assert model.unrolled_parts(4) == (0, 0, 0, 1)
    assert model.unrolled_parts(12) == (0, 0, 1, 1)
    assert model.unrolled_parts(16) == (0, 1, 0, 0)
    assert model.unrolled_parts(31) == (3, 1, 1, 1)


def test_rows_of_3_and_4_issue_more_than_the_longest_row():
    row_ptr, col_idx = [0, 3, 7], list(range(7))  # one warp, rows of 3 and 4 nonzeros
    # the source: 4 trips of 3 loads, plus row_ptr twice and y; nvcc: 3 remainder trips, then a block of 4
    assert model.kernel_loads(row_ptr, col_idx, model.source_trips)[0] == 3 + 3 * 4
    assert model.kernel_loads(row_ptr, col_idx, model.sass_trips)[0] == 3 + 3 * (3 + 4)
    # rows of one length: the same requests and sectors either way
    row_ptr = [4 * r for r in range(33)]
    col_idx = [0] * (4 * 32)
    assert model.kernel_loads(row_ptr, col_idx, model.source_trips) == \
        model.kernel_loads(row_ptr, col_idx, model.sass_trips)


def test_a_line_cuts_each_row():
    row_ptr, col_idx = [0, 9, 10], list(range(10))
    assert model.kernel_loads(row_ptr, col_idx, model.source_trips, line=4)[0] == 3 + 3 * 4
