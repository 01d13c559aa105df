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
    timing_flagged: bool = False  # its own figures disagree with what the grader saw (honest_timing.py)


def _line(text: str, pattern: str) -> str | None:
    for line in text.splitlines():
        if re.search(pattern, line):
            return line.strip()
    return None


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _mb(n: int | None) -> str:
    return f"{n / (1 << 20):.0f} MB" if n else "?"


def _limit_reason(outcome: RunOutcome) -> str | None:
    """Why a run was stopped at one of its limits (grader/limits.py), in words."""
    limits = outcome.limits
    if outcome.limit_hit == "processes":
        cap = limits.processes if limits else "?"
        return (f"tried to run more than {cap} processes and threads at once and was killed: "
                f"fork() or thread creation in a loop that never ends?")
    if outcome.limit_hit == "memory":
        return f"used more than its {_mb(limits and limits.memory_bytes)} of host memory and was killed"
    if outcome.limit_hit == "disk":
        return (f"wrote more than {_mb(limits and limits.disk_bytes)} (or too many files) into its "
                f"work folder and was killed")
    if outcome.signal == signal.SIGXFSZ:
        return (f"wrote a file bigger than the limit of {_mb(limits and limits.file_bytes)} and was "
                f"stopped (SIGXFSZ): is the output size right?")
    if outcome.signal == signal.SIGXCPU:
        return f"used more than {limits.cpu_s if limits else '?'} s of CPU time and was killed (SIGXCPU)"
    return None


def output_cut_note(outcome: RunOutcome) -> str:
    """'printed 26.2 MB to stdout; the grader kept the first 64 KiB', or ''."""
    parts = [f"printed {total / 1e6:.1f} MB to {name}" for name, cut, total in
             (("stdout", outcome.stdout_cut, outcome.stdout_bytes),
              ("stderr", outcome.stderr_cut, outcome.stderr_bytes)) if cut]
    if not parts:
        return ""
    return "; ".join(parts) + f"; the grader kept the first 64 KiB of {'each' if len(parts) > 1 else 'it'}"


def runtime_error(outcome: RunOutcome, time_limit_s: float) -> tuple[str, str] | None:
    """(verdict, reason) when the run itself failed; None when it ran to a normal end."""
    if outcome.sandbox_error:
        return RE, f"grader error, not yours: the sandbox did not start ({outcome.sandbox_error})"
    limit = _limit_reason(outcome)
    if limit:
        return RE, limit
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
