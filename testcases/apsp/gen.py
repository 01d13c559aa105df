"""Testcases of the apsp lab: seeded random graphs and their expected outputs.

The generated cases in cases.toml name their parameters:
    n, m     vertices and edges
    seed     of the generator (labs/apsp/random_graph.h)
    cycle    true: the first n edges are a directed cycle through every vertex in a random
             order (every pair connected, long paths); false: every edge uniform (self-loops,
             repeated edges and unreachable pairs come with it)
Both the inputs and the expected outputs come from oracle.cpp, a small C++ program built here on
demand (g++ -O2 -pthread): expected outputs by Dijkstra from every source on every CPU core,
an algorithm independent of the Floyd-Warshall under test, and far too slow in pure Python for
the large cases.

    python3 testcases/apsp/gen.py committed    rewrites the small hand-made cases (HAND_MADE):
                                               c*.in and their expected c*.out
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
KIT_ROOT = HERE.parent.parent
ORACLE_SOURCES = [HERE / "oracle.cpp", KIT_ROOT / "labs/apsp/random_graph.h",
                  KIT_ROOT / "labs/apsp/apsp_format.h", KIT_ROOT / "labs/common/seeded.h"]
ORACLE = KIT_ROOT / "build/tools/apsp-oracle"


def oracle() -> Path:
    """The oracle program, (re)built when missing or older than its sources."""
    newest = max(source.stat().st_mtime for source in ORACLE_SOURCES)
    if not ORACLE.exists() or ORACLE.stat().st_mtime < newest:
        ORACLE.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["g++", "-std=c++17", "-O2", "-pthread", "-Wall",
                        f"-I{KIT_ROOT / 'labs/common'}", f"-I{KIT_ROOT / 'labs/apsp'}",
                        str(HERE / "oracle.cpp"), "-o", str(ORACLE)], check=True)
    return ORACLE


def make_input(params: dict, path: Path) -> None:
    subprocess.run([str(oracle()), "generate", str(params["n"]), str(params["m"]), str(params["seed"]),
                    "1" if params.get("cycle") else "0", str(path)], check=True)


def make_expected(params: dict, input_path: Path, path: Path) -> None:
    subprocess.run([str(oracle()), "solve", str(input_path), str(path), str(os.cpu_count() or 1)],
                   check=True)


# The hand-made public cases: name -> (n, edges as (src, dst, w)). Small, so that each file
# is well under 100 KB and can be read in a hex dump.
def _hand_made() -> dict[str, tuple[int, list[tuple[int, int, int]]]]:
    cases = {}
    cases["c01-one-vertex"] = (1, [])
    cases["c02-no-edges"] = (5, [])
    # Self-loops (never below d(i,i) = 0), a repeated edge (the smallest weight counts),
    # zero weights, and an edge back that is longer than the path around.
    cases["c03-loops-repeats"] = (4, [(0, 0, 5), (1, 1, 0), (1, 2, 7), (1, 2, 3), (1, 2, 9),
                                      (2, 3, 0), (3, 1, 0), (0, 1, 1000), (3, 0, 2), (2, 0, 999)])
    # Two parts with no edge between them, across the first block boundary (64).
    chain = [(i, i + 1, (7 * i) % 11) for i in range(39)]
    ring = [(40 + i, 40 + (i + 1) % 30, (5 * i) % 13 + 1) for i in range(30)]
    cases["c04-two-parts"] = (70, chain + ring)
    # Every weight zero: distances are 0 or unreachable.
    cases["c05-zero-weights"] = (100, [((17 * i) % 100, (31 * i + 7) % 100, 0) for i in range(150)])
    # A complete graph: every ordered pair once.
    n = 40
    cases["c06-complete"] = (n, [(i, j, (i * 37 + j * 11) % 1001) for i in range(n) for j in range(n) if i != j])
    # A path 149 -> 148 -> ... -> 0 of heavy edges: the longest distances cross every block.
    cases["c07-long-path"] = (150, [(i, i - 1, 1000) for i in range(149, 0, -1)])
    return cases


HAND_MADE = _hand_made()


def write_input(path: Path, n: int, edges: list[tuple[int, int, int]]) -> None:
    path.write_bytes(struct.pack(f"<2i{3 * len(edges)}i", n, len(edges), *(v for e in edges for v in e)))


def write_committed() -> None:
    for name, (n, edges) in HAND_MADE.items():
        write_input(HERE / f"{name}.in", n, edges)
        make_expected({}, HERE / f"{name}.in", HERE / f"{name}.out")
        print(f"wrote {name}.in and {name}.out ({n} vertices, {len(edges)} edges)")


if __name__ == "__main__":
    if sys.argv[1:] != ["committed"]:
        sys.exit(__doc__)
    write_committed()
