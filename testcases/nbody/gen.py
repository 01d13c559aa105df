"""The nbody lab's testcases: bodies and their expected accelerations.

A case's params either name a generator (`dist = "cube"` or `"lattice"`, `n`, `seed`, `moving`:
labs/nbody/body_gen.h), which nbody_tool runs, or the case has a committed input (a text or
binary bodies file). Expected accelerations come from nbody_tool's float64 all-pairs sums
(labs/nbody/reference.h), rounded to float32, with the case's softening. nbody_tool is built with
g++ into build/tools/ on first use (a few seconds).

The grader's compare: each case's rtol is (n + 32) u and its atol that rtol times the largest
sum of |contributions| any body of total mass M can have at softening eps, 2 / (3 sqrt 3) M / eps^2
(compare_rule below; tests/nbody/test_nbody_cases.py keeps cases.toml so). It holds for every
placement of the bodies, so a right answer always passes it; the harness's own check, with each
component's own sum of |contributions|, is the tight one, and a failure there is WA too.

From the command line, to make bodies for your own runs:
    python3 testcases/nbody/gen.py bodies --dist cube --n 4096 --seed 7 --out cube4096.bin
    python3 testcases/nbody/gen.py expected cube4096.bin --softening 0.05 --out cube4096.acc
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

KIT_ROOT = Path(__file__).resolve().parents[2]
TOOL = KIT_ROOT / "build" / "tools" / "nbody_tool"
TOOL_SOURCES = [
    KIT_ROOT / "testcases/nbody/nbody_tool.cpp",
    KIT_ROOT / "labs/nbody/bodies.cpp",
    KIT_ROOT / "labs/nbody/body_gen.cpp",
    KIT_ROOT / "labs/nbody/reference.cpp",
    KIT_ROOT / "labs/nbody/real_option.cpp",
    KIT_ROOT / "labs/common/binfile.cpp",
    KIT_ROOT / "labs/common/cli.cpp",
    KIT_ROOT / "labs/common/lab_error.cpp",
]
TOOL_HEADERS = [KIT_ROOT / "labs/nbody/bodies.h", KIT_ROOT / "labs/nbody/body_gen.h",
                KIT_ROOT / "labs/nbody/reference.h", KIT_ROOT / "labs/nbody/real_option.h",
                KIT_ROOT / "labs/common/seeded.h", KIT_ROOT / "labs/common/cli.h"]
GENERATOR_PARAMS = ("dist", "n", "seed", "moving")
UNIT_ROUNDOFF = 2.0 ** -24
DEFAULT_SOFTENING = 0.05  # the harness's


def tool() -> Path:
    """nbody_tool, built with g++ when missing or older than its sources."""
    newest = max(p.stat().st_mtime for p in TOOL_SOURCES + TOOL_HEADERS)
    if TOOL.exists() and TOOL.stat().st_mtime >= newest:
        return TOOL
    TOOL.parent.mkdir(parents=True, exist_ok=True)
    cxx = os.environ.get("CXX", "g++")
    # Build under a private name, then rename: two graders preparing cases at once never see
    # half a binary.
    with tempfile.TemporaryDirectory(dir=TOOL.parent) as tmp:
        partial = Path(tmp) / "nbody_tool"
        cmd = [cxx, "-std=c++17", "-O2", f"-I{KIT_ROOT / 'labs/common'}", f"-I{KIT_ROOT / 'labs/nbody'}",
               *map(str, TOOL_SOURCES), "-o", str(partial)]
        built = subprocess.run(cmd, capture_output=True, text=True)
        if built.returncode != 0:
            raise RuntimeError(f"building nbody_tool failed ({' '.join(cmd)}):\n{built.stderr}")
        os.replace(partial, TOOL)
    return TOOL


def run_tool(args: list[str]) -> subprocess.CompletedProcess:
    done = subprocess.run([str(tool()), *args], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"nbody_tool {' '.join(args)}: {done.stderr.strip()}")
    return done


def rtol(n: int) -> float:
    """labs/nbody/reference.h's nbody_rtol: (n + 32) u."""
    return (n + 32) * UNIT_ROUNDOFF


def compare_rule(n: int, softening: float, total_mass: float = 1.0) -> dict:
    """The grader's compare for a case of n bodies: rtol (n + 32) u, and atol rtol times the
    largest sum of |contributions| possible, M max_r r / (r^2 + eps^2)^(3/2) = 2 M / (3 sqrt 3 eps^2)."""
    largest_scale = 2 * total_mass / (3 * math.sqrt(3) * softening ** 2)
    return {"rtol": rtol(n), "atol": rtol(n) * largest_scale}


def make_input(params: dict, path: Path) -> None:
    options = []
    for key in GENERATOR_PARAMS:
        if key in params:
            options += [f"--{key}", str(params[key])]
    run_tool(["bodies", *options, "--out", str(path)])


def make_expected(params: dict, input_path: Path, path: Path) -> None:
    softening = params.get("softening", DEFAULT_SOFTENING)
    run_tool(["expected", str(input_path), "--softening", str(softening), "--out", str(path)])


if __name__ == "__main__":
    sys.exit(subprocess.run([str(tool()), *sys.argv[1:]]).returncode)
