"""On a GPU, by default (--no-sanitize skips it): NVIDIA's compute-sanitizer on a few small cases, its findings in the verdict reason.

memcheck always (out-of-bounds and misaligned accesses, leaks of device memory are not
reported), racecheck and synccheck too for a lab that says it uses shared memory, and the
emulator's checks where compute-sanitizer's cannot serve:

    [sanitize]
    cases = ["ragged"]         # the cases to check (default: the first public case)
    racecheck = true           # shared-memory races (labs that use __shared__); synccheck too
    synccheck = true           # barriers misused (with racecheck off)
    emulator_checks = true     # the cases again under the emulator: ASan, EMU_RACECHECK=1

The emulator's detector (labs/emu) is deterministic and counts a store of the value already
there as the read it is; racecheck counts it as a hazard, so a lab whose seed code does that
(apsp's phase 1, as the NTHU report writes it) gets its shared memory checked this way instead;
and AddressSanitizer checks every access the emulated kernels make.
Under the CPU emulator grading checks with ASan and the race detector itself (grader/grade.py).
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from grader.labs import PUBLIC, Case, Lab

SLOWDOWN = 20  # a sanitized run takes this many times the case's time limit, at most


def sanitizer() -> str | None:
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for root in filter(None, (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda")):
        for path in (Path(root) / "bin/compute-sanitizer", Path(root) / "compute-sanitizer/compute-sanitizer"):
            if path.exists():
                return str(path)
    return None


def tools(lab: Lab) -> list[str]:
    racecheck = lab.sanitize.racecheck
    synccheck = racecheck if lab.sanitize.synccheck is None else lab.sanitize.synccheck
    return ["memcheck"] + (["racecheck"] if racecheck else []) + (["synccheck"] if synccheck else [])


def pick_cases(lab: Lab, cases: list[Case]) -> list[Case]:
    """The [sanitize] cases among those being graded; with none named (or none graded), the first
    public case."""
    named = [case for case in cases if case.name in lab.sanitize.cases]
    if named:
        return named
    public = [c for c in cases if c.group == PUBLIC]
    return public[:1] or cases[:1]


def command(tool: str, argv: list[str]) -> list[str]:
    return [sanitizer() or "compute-sanitizer", "--tool", tool, "--print-limit", "20", *argv]


# memcheck and synccheck: "ERROR SUMMARY: 3 errors"; racecheck: "RACECHECK SUMMARY: 20 hazards
# displayed (80 errors, 0 warnings)".
_SUMMARY = re.compile(r"ERROR SUMMARY: (\d+) error|RACECHECK SUMMARY: .*?\((\d+) error")
_PREFIX = re.compile(r"^=+\s?")


@dataclass(frozen=True)
class Finding:
    """What one checker said of one run. `text` goes into the report; `fault` says whether it
    costs the case its points. Decided where the checker's output is read, never from `text`,
    which may quote what the program printed."""
    text: str
    fault: bool


def _count(summary: re.Match) -> int:
    return int(summary.group(1) or summary.group(2))


def findings(tool: str, *outputs: str) -> Finding:
    """'memcheck: 3 errors; first: Invalid __global__ write of size 4 bytes at ...' (a fault),
    'memcheck: no errors', or 'memcheck: could not check (why)' (the tool's failing, not the
    student's), from the run's outputs (stdout, stderr). compute-sanitizer prints its summary
    last, after the program's own output in the same stream: each stream's last summary counts,
    and the one with the most errors, so a summary the program printed itself hides nothing."""
    last = [(matches[-1], output) for output in outputs if (matches := list(_SUMMARY.finditer(output)))]
    summary, text = max(last, key=lambda pair: _count(pair[0]), default=(None, "\n".join(outputs)))
    if summary is None and "terminated before first instrumented API call" in text:
        return Finding(f"{tool}: could not check (the program made no CUDA call: set lab.toml's [sanitize] case)", False)
    if summary is None:
        last = [line for line in text.splitlines() if line.strip()][-1:] or ["no output"]
        return Finding(f"{tool}: could not check (compute-sanitizer gave no summary: {last[0].strip()[:160]})", False)
    count = _count(summary)
    if count == 0:
        return Finding(f"{tool}: no errors", False)
    lines = [_PREFIX.sub("", line).strip() for line in text.splitlines() if line.startswith("=====")]
    first, where = "", ""
    for i, line in enumerate(lines):
        if line and not line.startswith(("COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "Program hit",
                                         "Saved host")):
            first = line
            for follow in lines[i + 1:i + 6]:
                if follow.startswith("at "):
                    where = " " + re.sub(r"\s+", " ", follow)
                    break
            break
    return Finding(f"{tool}: {count} error{'s' if count != 1 else ''}; first: {first}{where}", True)
