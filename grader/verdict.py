"""Turns one run of one testcase into a verdict with a reason a student can act on."""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass, field

from grader.run import RunOutcome

AC, WA, TLE, RE, CE, SLOW = "AC", "WA", "TLE", "RE", "CE", "SLOW"

# The harness's exit codes (labs/common/exit_codes.h).
EXIT_OK, EXIT_WRONG, EXIT_USAGE, EXIT_CUDA, EXIT_TODO, EXIT_NO_GPU = range(6)


@dataclass
class CaseResult:
    case: str
    verdict: str
    reason: str
    points: float
    max_points: float
    wall_s: float = 0.0
    figures: dict = field(default_factory=dict)  # the program's result file
    timing_note: str = ""  # what the timing check did, or why it was skipped


def _line(text: str, pattern: str) -> str | None:
    for line in text.splitlines():
        if re.search(pattern, line):
            return line.strip()
    return None


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def runtime_error(outcome: RunOutcome, time_limit_s: float) -> tuple[str, str] | None:
    """(verdict, reason) when the run itself failed; None when it ran to a normal end."""
    if outcome.timed_out:
        return TLE, f"ran past the time limit of {time_limit_s:g} s and was killed"
    if outcome.signal is not None:
        try:
            name = signal.Signals(outcome.signal).name
        except ValueError:
            name = f"signal {outcome.signal}"
        description = signal.strsignal(outcome.signal) or ""
        detail = _line(outcome.stderr, r"ERROR: AddressSanitizer|runtime error|Assertion") or ""
        return RE, f"killed by {name} ({description})" + (f": {detail}" if detail else "")
    code = outcome.exit_code
    if code in (EXIT_OK, EXIT_WRONG):
        return None
    if code == EXIT_TODO:
        return RE, _line(outcome.stderr, r"^TODO not done") or "stopped at a TODO"
    if code == EXIT_CUDA:
        return RE, _line(outcome.stderr, r"^CUDA error") or "a CUDA call failed"
    if code == EXIT_NO_GPU:
        return RE, "no CUDA GPU on this machine: grade with --emu, or on a GPU node"
    if code == EXIT_USAGE:
        return RE, _line(outcome.stderr, r"error:") or _last_line(outcome.stderr) or "bad arguments or input"
    return RE, f"exited with status {code}" + (f": {_last_line(outcome.stderr)}" if outcome.stderr.strip() else "")
