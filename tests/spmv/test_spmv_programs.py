"""The spmv lab's programs under the CPU emulator: the reference's three versions right on both
formats (a symmetric pattern file from SuiteSparse's form, empty rows, a scan over several
levels of blocks), the harness's errors for bad files and options, its own check catching a
wrong y, the hybrid's line checked against the rule, and the untouched starter stopping at its
first TODO."""

import shutil
import struct
from dataclasses import replace
from pathlib import Path

import pytest

from grader.cases import load_generator
from grader.compare import compare_files
from grader.labs import load_lab
from grader.testing import lab_program, run

LAB = load_lab("spmv")
GEN = load_generator(LAB)
needs_cxx = pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler for spmv_tool")


@pytest.fixture(scope="module")
def spmv():
    return lab_program("spmv", "spmv")


def mtx(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


SYMMETRIC = "%%MatrixMarket matrix coordinate pattern symmetric\n% a star\n4 4 4\n1 1\n2 1\n3 1\n4 1\n"


@needs_cxx
@pytest.mark.parametrize("kernel", ["row", "element", "hybrid"])
def test_each_version_is_right_on_a_symmetric_pattern_file(spmv, tmp_path, kernel):
    matrix = mtx(tmp_path / "star.mtx", SYMMETRIC)
    GEN.make_expected({"seed": 3}, matrix, tmp_path / "want.y")
    done = run([spmv, matrix, "--kernel", kernel, "--seed", "3", "--out", tmp_path / "y"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 x 4, nnz = 7" in done.stdout and "CORRECT" in done.stdout
    assert compare_files(tmp_path / "want.y", tmp_path / "y", LAB.compare) is None


@needs_cxx
def test_the_scan_carries_across_three_levels_of_blocks(spmv, tmp_path):
    # One row of 70,000 nonzeros between rows of one: 274 blocks of 256, and two levels above them.
    matrix = tmp_path / "long.csr"
    rows, nnz = 3, 70_002
    row_ptr = [0, 1, 70_001, 70_002]
    matrix.write_bytes(struct.pack("<3i", rows, nnz, 70_000) + struct.pack(f"<{rows + 1}i", *row_ptr)
                       + struct.pack(f"<{nnz}i", *([0] + list(range(70_000)) + [5]))
                       + struct.pack(f"<{nnz}f", *([0.5] * nnz)))
    GEN.make_expected({"seed": 1}, matrix, tmp_path / "want.y")
    done = run([spmv, matrix, "--kernel", "element", "--out", tmp_path / "y"], timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert compare_files(tmp_path / "want.y", tmp_path / "y", replace(LAB.compare, rtol=(70_000 + 2) * 2.0 ** -24)) is None


@pytest.mark.parametrize("text, message", [
    ("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "'matrix array'; the lab reads sparse matrices"),
    ("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", "the field 'complex'"),
    ("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n", "ends after 1 entries; its size line announces 2"),
    ("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n", "line 3 names entry (3, 1), outside the 2 x 2 matrix"),
    ("%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n", "a symmetric matrix is square"),
])
def test_bad_matrix_market_files_are_named_and_explained(spmv, tmp_path, text, message):
    done = run([spmv, mtx(tmp_path / "bad.mtx", text), "--kernel", "row"])
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "bad.mtx" in done.stderr


@pytest.mark.parametrize("words, message", [
    ([2, 1], "the binary CSR header alone (int32 rows, nnz, cols) needs 12"),
    ([2, 1, 2, 0, 1, 1, 0], "need exactly 20"),
    ([2, 1, 2, 0, 2, 1, 0, 0], "row_ptr[2] = 1 is below row_ptr[1] = 2"),
    ([1, 1, 2, 0, 1, 5, 0], "nonzero 0 is in column 5, out of range"),
])
def test_bad_csr_files_are_named_and_explained(spmv, tmp_path, words, message):
    path = tmp_path / "bad.csr"
    path.write_bytes(struct.pack(f"<{len(words)}i", *words))
    done = run([spmv, path, "--kernel", "row"])
    assert done.returncode == 2, done.stderr
    assert message in done.stderr


def test_bad_options_say_what_to_do(spmv, tmp_path):
    matrix = mtx(tmp_path / "star.mtx", SYMMETRIC)
    assert "give one input file and --kernel" in run([spmv, matrix]).stderr
    assert "--kernel 'rows' names no version" in run([spmv, matrix, "--kernel", "rows"]).stderr
    assert "goes with --bench" in run([spmv, matrix, "--kernel", "row", "--band", "3"]).stderr


def test_the_bench_checks_every_version(spmv):
    done = run([spmv, "--bench", "--rows", "300"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("| right |") == 6 and "WRONG" not in done.stdout


def test_the_untouched_starter_names_its_first_todo(tmp_path):
    starter = lab_program("spmv", "spmv", flavor="starter")
    matrix = mtx(tmp_path / "star.mtx", SYMMETRIC)
    expected = {"row": "launch spmv_row_kernel in spmv_run",
                "element": "launch mark_heads_kernel and multiply_kernel in element_spmv",
                "hybrid": "compute the hybrid's line by Bell and Garland's rule in hybrid_line"}
    for kernel, todo in expected.items():
        done = run([starter, matrix, "--kernel", kernel])
        assert done.returncode == 4 and f"TODO not done: {todo}" in done.stderr, (kernel, done.stderr)
