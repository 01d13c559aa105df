"""Why Nsight Compute counts more global loads than the emulator in spmv's per-row kernels.

    python3 labs/emu/scripts/unrolled_row_loop.py row-powerlaw
    python3 labs/emu/scripts/unrolled_row_loop.py hybrid-powerlaw

The emulator's profile counts the source's trips of the loop `for (jj = row_start; jj < row_end;
jj++) dot += values[jj] * x[col_idx[jj]];`: a warp issues its k-th trip's three loads once, for
the lanes whose rows are that long. nvcc (13.0, sm_90, -O3; `cuobjdump -sass` of
spmv_row_kernel and spmv_row_part_kernel) runs the loop in four parts, each load of each part its
own instruction: first (length mod 4) trips one at a time, then a body of 16 trips while more
than 12 remain, then one block of 8 if more than 4 remain, then one block of 4 if any remain. A
warp issues an instruction when any of its lanes runs it, so where its lanes' rows differ in
length it issues, part by part, its longest lane's trips of that part: more than its longest
row's trips. This script counts the kernel's global loads both ways on a case's matrix, with each
array's sectors of 32 bytes (cudaMalloc aligns every array to 256). On the kit's cases the first
count is the emulator's figure and the second ncu's, requests and sectors alike
(labs/emu/README.md's profile table; the emulator does not model the unrolling).
"""

from __future__ import annotations

import argparse
import struct
import sys
from pathlib import Path

KIT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(KIT))

from grader.cases import prepare  # noqa: E402
from grader.labs import load_lab  # noqa: E402

WARP = 32
SECTOR_WORDS = 8  # 4-byte words in a 32-byte sector


def read_csr(path: Path) -> tuple[list[int], list[int]]:
    """row_ptr and col_idx of the lab's binary CSR (int32 rows, nnz, cols, then row_ptr, col_idx, values)."""
    data = path.read_bytes()
    rows, nnz, _cols = struct.unpack_from("<3i", data, 0)
    row_ptr = list(struct.unpack_from(f"<{rows + 1}i", data, 12))
    col_idx = list(struct.unpack_from(f"<{nnz}i", data, 12 + 4 * (rows + 1)))
    return row_ptr, col_idx


def unrolled_parts(trips: int) -> tuple[int, int, int, int]:
    """(remainder trips, 16-trip bodies, 8-trip blocks, 4-trip blocks) of a row of `trips` nonzeros."""
    if trips <= 0:
        return 0, 0, 0, 0
    remainder = trips & 3
    left = trips - remainder
    bodies = (left - 12 + 15) // 16 if left > 12 else 0
    left -= 16 * bodies
    eights = 1 if left > 4 else 0
    fours = 1 if left - 8 * eights > 0 else 0
    return remainder, bodies, eights, fours


def source_trips(start: int, trips: int) -> list[tuple[tuple, int]]:
    """(which instruction issue, nonzero index) for each trip as the source runs it."""
    return [(("trip", t), start + t) for t in range(trips)]


def sass_trips(start: int, trips: int) -> list[tuple[tuple, int]]:
    """The same as nvcc's four parts run it: a trip's issue is its part and its place there."""
    remainder, bodies, eights, fours = unrolled_parts(trips)
    issues = [(("remainder", t), start + t) for t in range(remainder)]
    at = start + remainder
    issues += [(("body", i, k), at + 16 * i + k) for i in range(bodies) for k in range(16)]
    at += 16 * bodies
    issues += [(("eight", k), at + k) for k in range(8 * eights)]
    at += 8 * eights
    issues += [(("four", k), at + k) for k in range(4 * fours)]
    return issues


def kernel_loads(row_ptr: list[int], col_idx: list[int], trips_of, line: int | None = None) -> tuple[int, int]:
    """(requests, sectors) of the kernel's global loads over one launch, a warp being 32 consecutive
    rows: row_ptr[row], row_ptr[row + 1] and y[row] once a warp, then the loop's col_idx[jj],
    values[jj] and x[col_idx[jj]] once for each distinct issue."""
    rows = len(row_ptr) - 1
    requests = sectors = 0
    for first in range(0, rows, WARP):
        warp_rows = range(first, min(first + WARP, rows))
        requests += 3
        sectors += 2 * len({row // SECTOR_WORDS for row in warp_rows})  # row_ptr[row] and y[row]
        sectors += len({(row + 1) // SECTOR_WORDS for row in warp_rows})
        lanes_of_issue: dict[tuple, list[int]] = {}
        for row in warp_rows:
            trips = row_ptr[row + 1] - row_ptr[row]
            if line is not None:
                trips = min(trips, line)
            for issue, jj in trips_of(row_ptr[row], trips):
                lanes_of_issue.setdefault(issue, []).append(jj)
        for nonzeros in lanes_of_issue.values():
            requests += 3
            # col_idx and values share the nonzero's index; x is read at its column
            sectors += 2 * len({jj // SECTOR_WORDS for jj in nonzeros})
            sectors += len({col_idx[jj] // SECTOR_WORDS for jj in nonzeros})
    return requests, sectors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", help="an spmv case whose matrix to read, e.g. row-powerlaw")
    args = parser.parse_args(argv)
    lab = load_lab("spmv")
    case = next((c for c in lab.cases if c.name == args.case), None)
    if case is None:
        raise SystemExit(f"unrolled_row_loop: spmv has no case {args.case!r}; see testcases/spmv/cases.toml")
    row_ptr, col_idx = read_csr(prepare(lab, case).input_path)
    # The hybrid's spmv_row_part_kernel runs the loop over each row's first `line` nonzeros.
    line = case.params["line"] if case.params.get("kernel") == "hybrid" else None
    for name, trips_of in (("source's trips (the emulator)", source_trips), ("nvcc's four parts", sass_trips)):
        requests, sectors = kernel_loads(row_ptr, col_idx, trips_of, line)
        print(f"{name}: {requests} load requests, {sectors} sectors a launch")
    return 0


if __name__ == "__main__":
    sys.exit(main())
