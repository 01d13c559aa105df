"""Coalescing: the slides' "Coalesced 128 vs Naively blocked 9.20 GFLOP/s" (Tesla C1060,
[Baden & Unat 2010], Lab #2), measured on this machine's GPU at several n.

    python3 labs/matmul/scripts/coalescing.py [--sizes 512 1024 2048] [--block 16] [--reps 5]
                                              [--program PATH]

Each kernel runs in two versions that differ only in which thread index walks along a row of
C: threadIdx.x (a warp reads 32 neighbouring floats: one transaction) or threadIdx.y (a warp
reads 32 floats n apart: up to 32 transactions). Prints GFLOP/s and the ratio of the two.
"""

import argparse

from runner import add_program_options, fit_for_emulator, gflops, parse_and_build, print_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[512, 1024, 2048])
    parser.add_argument("--block", type=int, default=16)
    add_program_options(parser)
    args, program, device = parse_and_build(parser)
    args.sizes, args.reps = fit_for_emulator(args, device, args.sizes, args.reps)
    print(f"Coalescing on {device}, blocks of {args.block}x{args.block}: GFLOP/s, "
          f"median of {args.reps} launches (slides, C1060, n = 512: tiled 128 vs 9.20)")
    rows = []
    for kind in ("tiled", "naive"):
        results = {label: [gflops(program, n, kernel, args.block, args.block, args.reps) for n in args.sizes]
                   for label, kernel in (("coalesced", kind), ("uncoalesced", f"{kind}_uncoalesced"))}
        for label, values in results.items():
            name = f"{kind}, {label}" + (" (naively blocked)" if kind == "tiled" and label == "uncoalesced" else "")
            rows.append([name] + ["-" if v is None else f"{v:.1f}" for v in values])
        rows.append([f"{kind}: coalesced / uncoalesced"] +
                     ["-" if a is None or b is None else f"{a / b:.1f}x"
                      for a, b in zip(results["coalesced"], results["uncoalesced"])])
    print_table("", ["kernel"] + [f"n = {n}" for n in args.sizes], rows)


if __name__ == "__main__":
    main()
