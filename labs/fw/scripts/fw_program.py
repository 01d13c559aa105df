"""Which fw program the lab's scripts run when they are not told (--fw PATH)."""

from __future__ import annotations

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
