"""Writes the tile shapes tune_fast found best into the reference solution (a maintainer's
tool, for tuning the reference to another GPU):

    build/tune_fast 4096 > tune-4096.txt; build/tune_fast 1024 > tune-1024.txt
    python3 labs/matmul/scripts/pick_fast_shape.py tune-4096.txt tune-1024.txt

FastShape becomes the best shape at the large n, SmallShape the best 64-row shape at the
small n. Rebuild and run `make bench LAB=matmul` afterwards.
"""

import re
import sys
from pathlib import Path

SOLUTION = Path(__file__).resolve().parents[3] / "solutions/matmul/matmul.c"


def best(path: str, key: str) -> str:
    found = re.search(rf"^{key}: (.*)$", Path(path).read_text(), re.M)
    if not found:
        sys.exit(f"{path} has no '{key}:' line: did tune_fast run to its end?")
    return found.group(1).strip()


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    large, small = best(sys.argv[1], "best"), best(sys.argv[2], "best-small")
    text = SOLUTION.read_text()
    text, count_large = re.subn(r"using FastShape = TileShape<[^>]*>;", f"using FastShape = TileShape<{large}>;", text)
    text, count_small = re.subn(r"using SmallShape = TileShape<[^>]*>;", f"using SmallShape = TileShape<{small}>;", text)
    if count_large != 1 or count_small != 1:
        sys.exit(f"{SOLUTION} does not hold one FastShape and one SmallShape line")
    SOLUTION.write_text(text)
    print(f"FastShape = TileShape<{large}>, SmallShape = TileShape<{small}>")


if __name__ == "__main__":
    main()
