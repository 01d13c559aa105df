"""Thread geometry: the slides' performance-comparison tables ([Baden & Unat 2010], Lab #2,
"Performance Comparison"), measured on this machine's GPU.

    python3 labs/matmul/scripts/geometry.py [--n 2048] [--reps 5] [--program PATH]

Prints GFLOP/s (2 n^3 / median kernel time) of the tiled kernel for square blocks of 32, 16,
8 and 4 threads a side, with coalesced and "naively blocked" indexing, and of the naive kernel
for the slides' block shapes ntx x nty, with threadIdx.x walking along a row of C (coalesced,
the lab's naive) and down a column (the slides' matMul). The slides' figures, from a Tesla
C1060 at n = 512, are printed beside them.
"""

import argparse

from runner import add_program_options, fit_for_emulator, gflops_cell, parse_and_build, print_table

TILES = [32, 16, 8, 4]
SLIDES_TILED = {"coalesced": ["-", "128", "53.8", "12.5"], "naively blocked": ["-", "9.20", "8.90", "8.26"]}
NAIVE_SHAPES = [(2, 256), (2, 128), (2, 64), (2, 32), (4, 128), (4, 64), (16, 16), (32, 8)]
SLIDES_NAIVE = ["8.85", "7.69", "6.36", "6.30", "4.61", "3.96", "-", "-"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=2048)
    add_program_options(parser)
    args, program, device = parse_and_build(parser)
    (args.n,), args.reps = fit_for_emulator(args, device, [args.n], args.reps)
    print(f"Thread geometry on {device}, n = {args.n}: GFLOP/s, median of {args.reps} launches")
    print()
    rows = []
    for label, kernel in (("coalesced", "tiled"), ("naively blocked", "tiled_uncoalesced")):
        rows.append([label] + [gflops_cell(program, args.n, kernel, t, t, args.reps) for t in TILES])
    for label, cells in SLIDES_TILED.items():
        rows.append([f"{label} (slides, C1060)"] + cells)
    print_table("tiled kernel, blocks of T x T threads:", ["geometry"] + [f"{t}x{t}" for t in TILES], rows)
    print()
    rows = []
    for label, kernel in (("x walks a row of C (naive)", "naive"),
                          ("x walks a column (slides' matMul)", "naive_uncoalesced")):
        rows.append([label] + [gflops_cell(program, args.n, kernel, x, y, args.reps) for x, y in NAIVE_SHAPES])
    rows.append(["slides' matMul (C1060)"] + SLIDES_NAIVE)
    print_table("naive kernel, blocks of ntx x nty threads:", ["geometry"] + [f"{x}x{y}" for x, y in NAIVE_SHAPES],
                rows)


if __name__ == "__main__":
    main()
