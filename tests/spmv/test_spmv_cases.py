"""The spmv lab's testcases: each case's tolerance is the bound of labs/spmv/reference.h for its
longest row, its params state the sizes and the hybrid's line as spmv_tool finds them, every
input is nonnegative (so the grader's rtol * |expected| is each row's conditioning), and the
tolerance is tight: a dropped nonzero, or a product carried into the next row as a segmented
scan that crosses a segment boundary does, is WA (grader/compare.py, the grader's own rule)."""

import shutil
import struct
from array import array
from pathlib import Path

import pytest

from grader.cases import load_generator, prepare
from grader.compare import compare_files
from grader.labs import load_lab

LAB = load_lab("spmv")
GEN = load_generator(LAB)
U = 2.0 ** -24
PUBLIC = [c for c in LAB.cases if c.group == "public"]
needs_cxx = pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler for spmv_tool")


def read_csr(path: Path):
    data = path.read_bytes()
    rows, nnz, cols = struct.unpack("<3i", data[:12])
    words = array("i", data[12:12 + 4 * (rows + 1 + nnz)])
    values = array("f", data[12 + 4 * (rows + 1 + nnz):])
    return rows, cols, list(words[:rows + 1]), list(words[rows + 1:]), list(values)


def write_csr(path: Path, rows, cols, row_ptr, col_idx, values) -> Path:
    path.write_bytes(struct.pack("<3i", rows, len(col_idx), cols) + array("i", row_ptr + col_idx).tobytes()
                     + array("f", values).tobytes())
    return path


def longest_row(case, input_path: Path) -> int:
    if "triples" in case.params:
        counts = {}
        for triple in case.params["triples"]:
            counts[triple[0]] = counts.get(triple[0], 0) + 1
            if case.params.get("banner", "").endswith("symmetric") and triple[0] != triple[1]:
                counts[triple[1]] = counts.get(triple[1], 0) + 1
        return max(counts.values())
    if input_path.read_bytes().startswith(b"%%MatrixMarket"):  # a committed general file
        lines = [l for l in input_path.read_text().splitlines() if l and not l.startswith("%")][1:]
        rows = [l.split()[0] for l in lines]
        return max(rows.count(r) for r in set(rows))
    _, _, row_ptr, _, _ = read_csr(input_path)
    return max(b - a for a, b in zip(row_ptr, row_ptr[1:]))


def test_the_default_tolerance_is_the_bound_for_4094_nonzeros():
    assert LAB.compare.rtol == (4094 + 2) * U and LAB.compare.atol == 0


def test_hidden_recipes_bound_their_longest_row():
    for recipe in LAB.hidden_recipes:
        cap = recipe["params"].get("max_per_row")
        if recipe["params"]["matrix"] == "banded":
            cap = 2 * recipe["params"]["band"]["range"][1] + 1
        assert recipe["compare"]["rtol"] >= (cap + 2) * U, recipe["name"]


@needs_cxx
@pytest.mark.parametrize("case", PUBLIC, ids=lambda c: c.name)
def test_public_case_tolerance_and_params(case):
    ready = prepare(LAB, case)
    assert case.compare.rtol == (longest_row(case, ready.input_path) + 2) * U
    stated = dict(zip(*[iter(GEN.run_tool(["line", str(ready.input_path)]).split())] * 2))
    assert case.params["rows"] == int(stated["rows"]) and case.params["nnz"] == int(stated["nnz"])
    if case.params["kernel"] == "hybrid":
        assert (case.params["line"], case.params["past_line"]) == (int(stated["line"]), int(stated["past"]))
    y = array("f", ready.expected_path.read_bytes())
    assert min(y) >= 0  # nonnegative A, x and starting y: |expected| is the conditioning


@needs_cxx
def test_a_dropped_nonzero_and_a_sum_across_rows_are_wrong(tmp_path):
    case = next(c for c in LAB.cases if c.name == "element-powerlaw")
    ready = prepare(LAB, case)
    rows, cols, row_ptr, col_idx, values = read_csr(ready.input_path)
    seed = str(case.params["seed"])

    def expected_of(name, row_ptr, col_idx, values) -> Path:
        matrix = write_csr(tmp_path / f"{name}.csr", rows, cols, row_ptr, col_idx, values)
        GEN.run_tool(["expected", str(matrix), "--seed", seed, "--out", str(tmp_path / f"{name}.y")])
        return tmp_path / f"{name}.y"

    # Each row's last nonzero dropped, one row at a time, for every row: each must be caught.
    for row in range(0, rows, 37):
        if row_ptr[row + 1] == row_ptr[row]:
            continue
        last = row_ptr[row + 1] - 1
        dropped = expected_of("dropped", [p - (i > row) for i, p in enumerate(row_ptr)],
                              col_idx[:last] + col_idx[last + 1:], values[:last] + values[last + 1:])
        reason = compare_files(ready.expected_path, dropped, case.compare)
        assert reason and f"entry {row}:" in reason, (row, reason)
    # The next row's first nonzero counted in this row as well (a scan's sum carried across the
    # boundary): the row ends one nonzero later.
    for row in range(0, rows - 1, 41):
        crossed_ptr = [p + (i > row) for i, p in enumerate(row_ptr)]
        start = row_ptr[row + 1]
        if start == row_ptr[row + 2]:
            continue
        carried = expected_of("crossed", crossed_ptr, col_idx[:start] + [col_idx[start]] + col_idx[start:],
                              values[:start] + [values[start]] + values[start:])
        reason = compare_files(ready.expected_path, carried, case.compare)
        assert reason and f"entry {row}:" in reason, (row, reason)
