"""Puts the bench table of handouts/spmv.md in place: one row per matrix and version, each figure
a quoted-figure marker of spmv-bench.toml in handouts/figures/ (authoring/quoted.py), so that
`make bench LAB=spmv RECORD=1`, run next, records those figures and writes them into the table.

    python3 labs/spmv/scripts/bench_table.py     # before the recorded bench (gpu_verify.sh runs it)

The table stands between the lines `<!-- bench-table spmv -->` and `<!-- /bench-table -->`;
what is between them is replaced. Run it again after changing the versions or matrices.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HANDOUT = Path(__file__).resolve().parents[3] / "handouts" / "spmv.md"
MATRICES = ("banded", "powerlaw")
VERSIONS = ("row", "element", "hybrid", "cuSPARSE")
BLOCK = re.compile(r"(<!-- bench-table spmv -->\n).*?(<!-- /bench-table -->)", re.S)


# The marker's opening is put together here so that this file holds no marker of its own
# (authoring/quoted.py reads every file of the kit for them).
OPEN, CLOSE = "<!--" + " fig", "<!--" + " /fig -->"


def marker(figure: str, fmt: str) -> str:
    return f"{OPEN} spmv-bench spmv-bench.{figure} {fmt} -->?{CLOSE}"


def table() -> str:
    lines = ["| matrix | version | GB/s | vs copy | vs cuSPARSE |", "|---|---|---|---|---|"]
    for kind in MATRICES:
        for version in VERSIONS:
            key = f"{kind}_{version}"
            library = "1" if version == "cuSPARSE" else marker(f"{key}_vs_cusparse", "%.2f")
            lines.append(f"| {kind} | {version} | {marker(key + '_gbps', '%.0f')} | "
                         f"{marker(key + '_vs_copy', '%.2f')} | {library} |")
    lines.append(f"\nThe device-to-device copy ran at {marker('copy_gbps', '%.0f')} GB/s.")
    return "\n".join(lines) + "\n"


def main() -> int:
    text = HANDOUT.read_text()
    if not BLOCK.search(text):
        print(f"{HANDOUT}: no <!-- bench-table spmv --> ... <!-- /bench-table --> block to fill", file=sys.stderr)
        return 1
    HANDOUT.write_text(BLOCK.sub(lambda m: m.group(1) + table() + m.group(2), text))
    print(f"bench table with quoted-figure markers written into {HANDOUT.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
