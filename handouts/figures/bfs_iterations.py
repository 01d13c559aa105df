"""The data of the bfs handout's figure "iterations on a chain and on a star": how many launches
edge relaxation (BFS try #1, [cs344 n.d.]) needs on a chain of n vertices, from one
end, and on a star, from its centre, as n doubles.

    python3 handouts/figures/bfs_iterations.py [--bfs PROGRAM] [--max N] [--csv FILE]

PROGRAM is a build of the lab's `bfs` (default: the reference solution, built for the CPU
emulator). Iteration counts depend only on the graph and the algorithm, never on the machine,
so an emulated run gives the same figure as a GPU; the CSV (handouts/figures/bfs-iterations.csv,
committed) is what `make figures` plots, and tests/handouts checks it against a fresh run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
DEFAULT_CSV = KIT / "handouts" / "figures" / "bfs-iterations.csv"
GRAPHS = {"chain (from one end)": ["--graph", "chain", "--source", "0"],
          "star (from the centre)": ["--graph", "star", "--source", "0"]}


def reference_bfs() -> Path:
    sys.path.insert(0, str(KIT))
    from grader.build import build_lab
    from grader.labs import load_lab
    from grader.paths import BUILD_DIR, SOLUTIONS_DIR
    build = build_lab(load_lab("bfs"), src_root=SOLUTIONS_DIR, build_dir=BUILD_DIR / "emu-solution", emu=True,
                      submission=False)
    if not build.ok:
        raise SystemExit(f"the bfs reference did not build under EMU=1: {build.reason}")
    return build.programs["bfs"]


def iterations(bfs: Path, graph_args: list[str], n: int) -> int:
    with tempfile.TemporaryDirectory() as work:
        result = Path(work) / "result.json"
        proc = subprocess.run([str(bfs), "--bench", *graph_args, "--n", str(n), "--runs", "1"],
                              env={**os.environ, "LABKIT_RESULT": str(result)}, capture_output=True,
                              text=True, timeout=300)
        if proc.returncode != 0:
            raise SystemExit(f"{bfs} {' '.join(graph_args)} --n {n} failed: {proc.stderr.strip()}")
        return int(json.loads(result.read_text())["iterations"])


def rows(bfs: Path, max_n: int) -> list[tuple[int, str, int]]:
    sizes = [1 << k for k in range(2, max_n.bit_length()) if 1 << k <= max_n]
    return [(n, graph, iterations(bfs, args, n)) for graph, args in GRAPHS.items() for n in sizes]


def write_csv(found: list[tuple[int, str, int]], path: Path) -> None:
    lines = ["# made by handouts/figures/bfs_iterations.py: the bfs lab's reference (edge relaxation),",
             "# run under the CPU emulator (EMU=1); iteration counts do not depend on the machine",
             "n,graph,iterations"]
    lines += [f"{n},{graph},{count}" for n, graph, count in found]
    path.write_text("\n".join(lines) + "\n")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bfs", type=Path, help="a bfs program (default: the reference, built under EMU)")
    p.add_argument("--max", type=int, default=4096, help="the largest n (default 4096)")
    p.add_argument("--csv", type=Path, default=DEFAULT_CSV)
    args = p.parse_args()
    write_csv(rows(args.bfs or reference_bfs(), args.max), args.csv)
    print(f"wrote {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
