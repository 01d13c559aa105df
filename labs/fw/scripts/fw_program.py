"""What the fw lab's scripts share: which fw program they run when they are not told (--fw PATH),
how they run it and read its figures, and their emulator limits."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

KIT = Path(__file__).resolve().parents[3]


def default_fw() -> Path:
    """The reference build where the kit has the reference solutions (the instructor's
    edition), else the student's own build (the student edition); a GPU build before an
    emulator one."""
    flavors = ("solution", "starter") if (KIT / "solutions" / "fw").is_dir() else ("starter",)
    for flavor in flavors:
        for prefix in ("", "emu-"):
            program = KIT / "build" / f"{prefix}{flavor}" / "fw" / "fw"
            if program.is_file():
                return program
    where = "`make fw SOL=1` (the reference) or " if len(flavors) == 2 else ""
    raise SystemExit(f"error: no fw program is built under {KIT / 'build'}: run {where}`make fw` "
                     f"(your own code) first, or name one with --fw PATH")


def add_fw_options(parser: argparse.ArgumentParser, full_cost: str) -> None:
    """--fw PROGRAM, and --emu-full (fit_for_emulator's), whose cost under the emulator
    full_cost says (e.g. "hours at n = 2048")."""
    parser.add_argument("--fw", type=Path, default=None,
                        help="the fw program (default: the reference build, or your own in the student edition)")
    parser.add_argument("--emu-full", action="store_true",
                        help=f"under the CPU emulator, the sizes and runs asked for ({full_cost})")


def parse_fw_args(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """The command line, with --fw made the default program where it is not given."""
    args = parser.parse_args()
    args.fw = args.fw or default_fw()
    return args


def run_fw(fw: Path, *args, timeout: float | None = None) -> tuple[subprocess.CompletedProcess, dict | None]:
    """Runs fw with the arguments; its process (output as text) and the figures of its result
    file (LABKIT_RESULT), None where it wrote none."""
    with tempfile.TemporaryDirectory() as scratch:
        result = Path(scratch) / "result.json"
        proc = subprocess.run([str(fw), *map(str, args)], capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "LABKIT_RESULT": str(result)})
        try:
            figures = json.loads(result.read_text())
        except (OSError, ValueError):
            figures = None
    return proc, figures


def device_of(fw: Path) -> str:
    """The device the program runs on ("CPU emulation" for an emulator build), from a tiny run of
    a given version (paper_versions.cu's), which works whatever TODOs fw.c has left."""
    _, figures = run_fw(fw, "--random", 2, "--version", "parallel", timeout=60)
    return "?" if figures is None else str(figures.get("device", "?"))


def fit_for_emulator(args, device: str, largest: dict[str, int]) -> None:
    """Under the CPU emulator, lowers each option of `args` named in `largest` to at most that
    value (the sizes a GPU takes in seconds take a CPU hours), and says so up front with how to
    run the command as written (--emu-full). On a GPU, or with --emu-full, changes nothing."""
    if "emulation" not in device or args.emu_full:
        return
    lowered = {name: (getattr(args, name), most) for name, most in largest.items() if getattr(args, name) > most}
    for name, (_, most) in lowered.items():
        setattr(args, name, most)
    if lowered:
        asked = ", ".join(f"--{name} {was}" for name, (was, _) in lowered.items())
        now = ", ".join(f"--{name} {most}" for name, (_, most) in lowered.items())
        print(f"note: CPU emulation: {asked} would take hours here; running {now} (about a minute). The figures "
              f"say nothing about a GPU; on a GPU the command runs as written, and --emu-full runs it here as "
              f"written.", flush=True)
