"""Table II of Carrega and Ferreira ([Carrega & Ferreira n.d.]) on this machine: every version
of Floyd-Warshall on one graph of n = 2048 vertices, ten runs each, milliseconds a run.

    python3 labs/fw/scripts/table2.py [--fw PROGRAM] [--n 2048] [--runs 10]
        [--versions cpu,parallel,grid-sync,grid-sync-reg,rows] [--csv table2.csv]

The paper's columns are CPU Sequential (cpu), GPU Parallel (parallel), Atomic GPU (grid-sync,
here with cooperative groups' grid.sync() instead of the paper's hand-made barrier) and Memory
Atomic GPU (grid-sync-reg); like the paper, the table leaves out the one-thread version (it
takes minutes at n = 2048). Our own per-k kernel (rows, the module's) is added beside them. The
graph is `fw --random 2048` (degree 8, lengths 1..100): the paper does not describe its graphs.
Each version's result is checked against Dijkstra from every source (fw --check). The paper's
versions are given to students (labs/fw/paper_versions.cu), so the student edition runs the
table on the student's own build: every column but rows is the same code as the reference's.

GPU times are the kernels' (CUDA events), the CPU's is its host clock: in both, the copies and
the file reading are left out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fw_program import add_fw_options, device_of, fit_for_emulator, parse_fw_args, run_fw

KIT = Path(__file__).resolve().parents[3]
PAPER_NAMES = {"cpu": "CPU Sequential", "parallel": "GPU Parallel", "grid-sync": "Atomic GPU",
               "grid-sync-reg": "Memory Atomic GPU", "rows": "(module: rows)"}
# Table II as printed (ms, GeForce GTX 960 and Xeon X5670), for the comparison line.
PAPER = {
    "cpu": [40289, 40211, 40215, 40222, 40219, 40889, 40892, 40199, 40221, 40224],
    "parallel": [5626, 5622, 5639, 5625, 5614, 5617, 5613, 5627, 5649, 5617],
    "grid-sync": [3179, 3198, 3207, 3229, 3226, 3205, 3231, 3205, 3207, 3159],
    "grid-sync-reg": [2541, 2729, 2793, 2819, 2749, 2752, 2549, 2543, 2551, 2731],
}


def run_version(fw: Path, version: str, n: int, runs: int, seed: int) -> tuple[list[float], str, bool]:
    proc, figures = run_fw(fw, "--random", n, "--seed", seed, "--version", version, "--runs", runs, "--check")
    if proc.returncode not in (0, 1) or figures is None:
        raise SystemExit(f"fw --version {version} failed (exit {proc.returncode}):\n{proc.stderr}")
    times = [figures[f"kernel_ms_{r}"] for r in range(1, runs + 1)]
    return times, figures.get("device", "CPU"), proc.returncode == 0 and "CHECK: all" in proc.stdout


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=2048)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--versions", default="cpu,parallel,grid-sync,grid-sync-reg,rows")
    p.add_argument("--csv", type=Path, help="also write the table as CSV")
    add_fw_options(p, "hours at n = 2048")
    args = parse_fw_args(p)
    fit_for_emulator(args, device_of(args.fw), {"n": 256, "runs": 3})

    versions = args.versions.split(",")
    columns, device, checked = {}, "?", {}
    for version in versions:
        print(f"running {version} ...", file=sys.stderr, flush=True)
        columns[version], name, checked[version] = run_version(args.fw, version, args.n, args.runs, args.seed)
        if name != "CPU":
            device = name

    width = max(14, *(len(PAPER_NAMES.get(v, v)) + 2 for v in versions))

    def line(label: str, cells) -> None:
        print(f"{label:<22}" + "".join(f"{cell:>{width}}" for cell in cells))

    print(f"Table II on {device}: n = {args.n}, ms a run (GPU: kernels by CUDA events; CPU: host clock)")
    line("run", (PAPER_NAMES.get(v, v) for v in versions))
    for r in range(args.runs):
        line(str(r + 1), (f"{columns[v][r]:.1f}" for v in versions))
    line("mean", (f"{sum(columns[v]) / args.runs:.1f}" for v in versions))
    line("min", (f"{min(columns[v]):.1f}" for v in versions))
    line("paper's mean (GTX 960)", (f"{sum(PAPER[v]) / len(PAPER[v]):.1f}" if v in PAPER else "-" for v in versions))
    line("checked", ("Dijkstra agrees" if checked[v] else "WRONG" for v in versions))
    if args.csv:
        with args.csv.open("w") as f:
            f.write("run," + ",".join(versions) + "\n")
            for r in range(args.runs):
                f.write(f"{r + 1}," + ",".join(f"{columns[v][r]:.3f}" for v in versions) + "\n")
    return 0 if all(checked.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
