"""Builds one lab through the Makefile, into a folder the grader chooses."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from grader.labs import Lab
from grader.paths import KIT_ROOT

BUILD_TIME_LIMIT_S = 600
_ERROR_LINE = re.compile(r"(error|Error|ERROR)\b")


@dataclass
class BuildResult:
    ok: bool
    programs: dict[str, Path]
    log: str
    reason: str  # the compiler's first error line, when not ok


def first_error(log: str) -> str:
    """The line a student should read first: the compiler's first error, else the last line."""
    lines = [line.strip() for line in log.splitlines() if line.strip() and not line.startswith("make")]
    for line in lines:
        if _ERROR_LINE.search(line):
            return line
    return lines[-1] if lines else "the build failed without a message"


def build_lab(lab: Lab, *, src_root: Path, build_dir: Path, emu: bool, asan: bool = False) -> BuildResult:
    cmd = ["make", "--no-print-directory", "-C", str(KIT_ROOT), lab.id,
           f"SRC_ROOT={src_root}", f"BUILD={build_dir}"]
    cmd.append("EMU=1" if emu else "EMU=0")  # EMU=0: the GPU build, even where make finds no GPU
    if asan:
        cmd.append("ASAN=1")
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace", timeout=BUILD_TIME_LIMIT_S)
    except subprocess.TimeoutExpired:
        return BuildResult(False, {}, "", f"the build took longer than {BUILD_TIME_LIMIT_S} s")
    programs = {name: build_dir / lab.id / name for name in lab.programs}
    if proc.returncode != 0:
        return BuildResult(False, programs, proc.stdout, first_error(proc.stdout))
    return BuildResult(True, programs, proc.stdout, "")
