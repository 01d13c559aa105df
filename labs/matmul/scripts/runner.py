"""What the exploration scripts share: build the lab's program, run it, read its figures.

The program is your own, starter/matmul/matmul.c built by `make matmul`, unless a script is
given --program PATH (any build of the lab, e.g. a TA's build of the reference)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

KIT_ROOT = Path(__file__).resolve().parents[3]


# Under the CPU emulator a product costs about a second at n = 512 and doubles eightfold with n:
# the handout's n = 2048 is minutes a launch, hours a table. Past this size the scripts scale
# every size down by one power of two, so that a table takes about a minute.
EMU_LARGEST_N = 256


def add_program_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--reps", type=int, default=5, help="launches a figure is the median of")
    parser.add_argument("--program", type=Path, help="an already built matmul program (default: build yours)")
    parser.add_argument("--emu-full", action="store_true",
                        help="under the CPU emulator, run the sizes and repetitions asked for (hours at n = 2048)")


def fit_for_emulator(args, device: str, sizes: list[int], reps: int) -> tuple[list[int], int]:
    """The sizes and repetitions to run: as asked on a GPU; under the emulator, one repetition
    and sizes divided by a power of two until the largest is at most EMU_LARGEST_N, said up
    front with how to ask for the rest."""
    if "emulation" not in device or args.emu_full:
        return sizes, reps
    factor = 1
    while max(sizes) // factor > EMU_LARGEST_N:
        factor *= 2
    fitted = [max(16, n // factor) for n in sizes]
    if factor > 1 or reps > 1:
        print(f"note: CPU emulation: n = {', '.join(map(str, sizes))} with {reps} repetitions would take "
              f"{'hours' if max(sizes) >= 1024 else 'minutes'} here; running n = {', '.join(map(str, fitted))}, "
              f"one repetition each (seconds). On a GPU the command runs as written; --emu-full runs it "
              f"here as written.", flush=True)
    return fitted, 1


def parse_and_build(parser: argparse.ArgumentParser) -> tuple[argparse.Namespace, Path, str]:
    """The command line (with add_program_options'), the program to run and its device's name."""
    args = parser.parse_args()
    program = program_from(args)
    return args, program, device_name(program)


def program_from(args) -> Path:
    """Builds your starter/matmul/matmul.c with the kit's Makefile, unless --program names one."""
    if args.program:
        return args.program
    command = ["make", "--no-print-directory", "-C", str(KIT_ROOT), "matmul"]
    build = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if build.returncode != 0:
        sys.exit(f"the build failed:\n{build.stdout}")
    return KIT_ROOT / "build" / "starter" / "matmul" / "matmul"


class RunFailed(Exception):
    pass


def run(program: Path, *args) -> dict:
    """Runs the program once; returns the figures of its result file (kernel_ms, gflops, ...)."""
    with tempfile.TemporaryDirectory() as folder:
        result_file = Path(folder) / "result.json"
        env = {**os.environ, "LABKIT_RESULT": str(result_file)}
        proc = subprocess.run([str(program), *map(str, args)], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            last = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
            raise RunFailed(last[-1] if last else f"exit status {proc.returncode}")
        return json.loads(result_file.read_text())


def gflops(program: Path, n: int, kernel: str, ntx: int, nty: int, reps: int) -> float | None:
    """The kernel's GFLOP/s on blocks of ntx x nty threads, or None after saying why there is none."""
    try:
        return run(program, "--n", n, "--kernel", kernel, "--ntx", ntx, "--nty", nty, "--reps", reps)["gflops"]
    except RunFailed as e:
        print(f"  ({kernel} {ntx}x{nty} at n = {n}: {e})", file=sys.stderr)
        return None


def gflops_cell(program: Path, n: int, kernel: str, ntx: int, nty: int, reps: int) -> str:
    """One table cell: the kernel's GFLOP/s, or "-" where there is none."""
    figures = gflops(program, n, kernel, ntx, nty, reps)
    return "-" if figures is None else f"{figures:.1f}"


def device_name(program: Path) -> str:
    try:
        name = str(run(program, "--n", 1).get("device", "?"))
    except RunFailed as e:
        sys.exit(f"cannot run {program}: {e}")
    if "emulation" in name:
        print("note: CPU emulation: these figures say nothing about a GPU")
    return name


def print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(row[i])) for row in [header] + rows) for i in range(len(header))]
    print(title)
    for row in [header] + rows:
        print("  " + "  ".join(str(cell).ljust(widths[0]) if i == 0 else str(cell).rjust(widths[i])
                               for i, cell in enumerate(row)))
