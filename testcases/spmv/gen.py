"""The spmv lab's testcases: sparse matrices and their expected y.

A case's params either write a small matrix out here (`triples = [[i, j, value], ...]` with
`rows`, `cols`, and `format = "mtx"` or `"csr"`: hand-made cases) or name a generator
(`matrix = "banded"` or `"powerlaw"`, `rows`, ... `matrix_seed`: see labs/spmv/matrix_gen.h),
which spmv_tool runs. Expected outputs come from spmv_tool's float64 accumulation over the
nonzeros as triples (labs/spmv/reference.h says how x and the starting y come from `seed`).
spmv_tool is built here with g++ into build/tools/ on first use (a few seconds).

From the command line, to make matrices for your own runs:
    python3 testcases/spmv/gen.py matrix --matrix powerlaw --rows 4096 --out power.csr
    python3 testcases/spmv/gen.py expected power.csr --seed 1 --out power.y
    python3 testcases/spmv/gen.py line power.csr     # the hybrid's line by the rule
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

KIT_ROOT = Path(__file__).resolve().parents[2]
TOOL = KIT_ROOT / "build" / "tools" / "spmv_tool"
TOOL_SOURCES = [
    KIT_ROOT / "testcases/spmv/spmv_tool.cpp",
    KIT_ROOT / "labs/spmv/matrix_gen.cpp",
    KIT_ROOT / "labs/spmv/csr.cpp",
    KIT_ROOT / "labs/spmv/matrix_market.cpp",
    KIT_ROOT / "labs/spmv/reference.cpp",
    KIT_ROOT / "labs/common/binfile.cpp",
    KIT_ROOT / "labs/common/cli.cpp",
    KIT_ROOT / "labs/common/lab_error.cpp",
]
TOOL_HEADERS = [KIT_ROOT / "labs/spmv/matrix_gen.h", KIT_ROOT / "labs/spmv/csr.h",
                KIT_ROOT / "labs/spmv/matrix_market.h", KIT_ROOT / "labs/spmv/reference.h",
                KIT_ROOT / "labs/common/seeded.h", KIT_ROOT / "labs/common/cli.h"]
# Params the program takes (or the expected output needs), not the generator.
NOT_MATRIX_OPTIONS = {"seed", "kernel", "reps", "format", "line", "past_line", "nnz", "longest"}


def tool() -> Path:
    """spmv_tool, built with g++ when missing or older than its sources."""
    newest = max(p.stat().st_mtime for p in TOOL_SOURCES + TOOL_HEADERS)
    if TOOL.exists() and TOOL.stat().st_mtime >= newest:
        return TOOL
    TOOL.parent.mkdir(parents=True, exist_ok=True)
    cxx = os.environ.get("CXX", "g++")
    # Built under a private name, then renamed: two graders preparing cases at once never see
    # half a binary.
    with tempfile.TemporaryDirectory(dir=TOOL.parent) as tmp:
        partial = Path(tmp) / "spmv_tool"
        cmd = [cxx, "-std=c++17", "-O2", f"-I{KIT_ROOT / 'labs/common'}", f"-I{KIT_ROOT / 'labs/spmv'}",
               *map(str, TOOL_SOURCES), "-o", str(partial)]
        built = subprocess.run(cmd, capture_output=True, text=True)
        if built.returncode != 0:
            raise RuntimeError(f"building spmv_tool failed ({' '.join(cmd)}):\n{built.stderr}")
        os.replace(partial, TOOL)
    return TOOL


def run_tool(args: list[str]) -> str:
    done = subprocess.run([str(tool()), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"spmv_tool {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def matrix_options(params: dict) -> list[str]:
    """The generator's options from a case's params (min_per_row -> --min-per-row)."""
    options = []
    for key, value in params.items():
        if key not in NOT_MATRIX_OPTIONS:
            options += [f"--{key.replace('_', '-')}", str(value)]
    return options


def write_triples(path: Path, params: dict) -> None:
    """A hand-made matrix: Matrix Market as written (1-based), or binary CSR (rows in order)."""
    rows, cols, triples = params["rows"], params["cols"], params["triples"]
    if params.get("format", "mtx") == "mtx":
        # `banner` = "pattern symmetric" writes a SuiteSparse-style pattern file: [i, j] only, the
        # lower triangle, each entry off the diagonal standing for its mirror too.
        banner = params.get("banner", "real general")
        lines = [f"%%MatrixMarket matrix coordinate {banner}", "% a hand-made testcase", f"{rows} {cols} {len(triples)}"]
        lines += [" ".join(str(v) for v in triple) for triple in triples]
        Path(path).write_text("\n".join(lines) + "\n")
        return
    ordered = sorted(triples, key=lambda t: t[0])
    row_ptr = [0] * (rows + 1)
    for i, _, _ in ordered:
        row_ptr[i] += 1  # 1-based row i counts toward offset i (row i - 1 ends there)
    for r in range(rows):
        row_ptr[r + 1] += row_ptr[r]
    head = struct.pack("<3i", rows, len(ordered), cols)
    body = struct.pack(f"<{rows + 1}i", *row_ptr)
    body += struct.pack(f"<{len(ordered)}i", *[j - 1 for _, j, _ in ordered])
    body += struct.pack(f"<{len(ordered)}f", *[value for _, _, value in ordered])
    Path(path).write_bytes(head + body)


def make_input(params: dict, path: Path) -> None:
    if "triples" in params:
        write_triples(Path(path), params)
    else:
        run_tool(["matrix", *matrix_options(params), "--format", params.get("format", "csr"), "--out", str(path)])


def make_expected(params: dict, input_path: Path, path: Path) -> None:
    run_tool(["expected", str(input_path), "--seed", str(params["seed"]), "--out", str(path)])


if __name__ == "__main__":
    sys.exit(subprocess.run([str(tool()), *sys.argv[1:]]).returncode)
