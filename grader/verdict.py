"""Stage 5, verdict: one run of one testcase becomes a verdict with a reason a student can act on.

determine_verdict() is a pure function of what the run did and what the comparison found
(DOMjudge's determineVerdict); grader/tests/test_verdicts.py tests it case by case. Every reason
is one line of printable text (grader/text.py), whatever the program printed.

    AC correct      WA wrong answer     TLE over the time limit    RE runtime error
    CE compile error (or a forbidden library call)    SLOW correct but over a timing threshold
    WORK right output, not the lab's work (grader/work.py: computed on the host, no tiles in
       shared memory, one device doing all of it, ...); lab.toml [work] credit of the points
    IE grader error: the sandbox or the grader failed, not the student; never scored, and
       a batch lists it as not graded
"""

from __future__ import annotations

import re
import signal
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from grader.paths import KIT_ROOT, LABS_DIR
from grader.run import RunOutcome
from grader.text import one_line

AC, WA, TLE, RE, CE, SLOW, IE = "AC", "WA", "TLE", "RE", "CE", "SLOW", "IE"
EXIT_CODES_H = LABS_DIR / "common" / "exit_codes.h"


def read_exit_codes(path: Path = EXIT_CODES_H) -> dict[str, int]:
    """The lab programs' exit codes, from the one place that defines them: {"OK": 0, ...}."""
    return {name: int(value) for name, value in
            re.findall(r"\bLAB_EXIT_([A-Z_]+)\s*=\s*(\d+)", path.read_text())}


_EXIT = read_exit_codes()
EXIT_OK, EXIT_WRONG, EXIT_USAGE = _EXIT["OK"], _EXIT["WRONG"], _EXIT["USAGE"]
EXIT_CUDA, EXIT_TODO, EXIT_NO_GPU = _EXIT["CUDA"], _EXIT["TODO"], _EXIT["NO_GPU"]
EXIT_MEMCHECK = _EXIT["MEMCHECK"]
EXIT_RACE = _EXIT.get("RACE")  # the emulator's race detector (EMU_RACECHECK=1)


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
    timing_flagged: bool = False  # its own figures disagree with what the grader saw (timing.py: figure_doubts)


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


def _found(findings, source: str, kind: str) -> dict | None:
    """The first record of that source and kind in a run's findings (case_run.read_findings)."""
    return next((f for f in findings if f.get("source") == source and f.get("kind") == kind), None)


def _cuda_error_reason(findings) -> str:
    """The harness's failed call, with the emulator's explanation of it where it gave one: the
    error's name said once ("...; launch of k failed: a grid of 0 blocks ...")."""
    failed = _found(findings, "harness", "cuda_error")
    error = failed["text"] if failed else "a CUDA call failed"
    explained = _found(findings, "emulator", "cuda_error")
    if not explained:
        return error
    text = explained.get("text", "")
    if explained.get("error") and explained["error"] not in error:
        text += f" [{explained['error']}]"
    return f"{error}; {text}" if text and text not in error else error


def runtime_error(outcome: RunOutcome, time_limit_s: float, findings: tuple[dict, ...] | list[dict] = (),
                  own_files: Collection[Path] = ()) -> tuple[str, str] | None:
    """(verdict, reason) when the run itself failed; None when it ran to a normal end. Decided from
    the outcome (exit status, signal, limits) alone; the reason from the run's findings (what the
    harness and the emulator recorded as data: labs/common/findings.h, the emulator's
    reports/findings.h) and from the tools' own reports (AddressSanitizer's, whose frame in one of
    `own_files`, the student's files as built: Source.files, is named)."""
    if outcome.sandbox_error:
        return IE, f"grader error, not yours: the sandbox did not start ({outcome.sandbox_error})"
    code = outcome.exit_code
    if code == EXIT_MEMCHECK:
        return RE, memcheck_finding(outcome.stderr, own_files) or \
            f"exited with status {EXIT_MEMCHECK}, AddressSanitizer's: it found a bad memory access (its report was cut off)"
    if EXIT_RACE is not None and code == EXIT_RACE:
        race = _found(findings, "emulator", "race")
        return RE, race["text"] if race else "the emulator's race detector found a data race"
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
        fatal = _found(findings, "emulator", "fatal")
        # The C library's own report of an assert() or UBSan's, quoted as it stands (never decided on).
        detail = fatal["text"] if fatal else _line(outcome.stderr, r"runtime error|Assertion") or ""
        return RE, f"killed by {name} ({description})" + (f": {detail}" if detail else "")
    if code in (EXIT_OK, EXIT_WRONG):
        return None
    if code == EXIT_TODO:
        todo = _found(findings, "harness", "todo")
        return RE, todo["text"] if todo else "stopped at a TODO"
    if code == EXIT_CUDA:
        return RE, _cuda_error_reason(findings)
    if code == EXIT_NO_GPU:
        return RE, "no CUDA GPU on this machine: grade with --emu, or on a GPU node"
    if code == EXIT_USAGE:
        return RE, _line(outcome.stderr, r"error:") or _last_line(outcome.stderr) or "bad arguments or input"
    return RE, f"exited with status {code}" + (f": {_last_line(outcome.stderr)}" if outcome.stderr.strip() else "")


def _frame_file(where: str) -> Path:
    """A frame's "file:line" as the file it names: the build's #line gives the student's file
    relative to the kit's root (or absolute, outside it)."""
    return (KIT_ROOT / where.rsplit(":", 1)[0]).resolve()


def memcheck_finding(stderr: str, own_files: Collection[Path] = ()) -> str:
    """AddressSanitizer's finding in one line, with the first frame in one of `own_files` (the
    student's files as built; never the harness's, the emulator's or the C library's), or ''."""
    own = {Path(file).resolve() for file in own_files}
    first = _line(stderr, r"ERROR: AddressSanitizer")
    if not first:
        return ""
    kind = re.search(r"AddressSanitizer: ([\w-]+)", first)
    kind = kind.group(1) if kind else "error"
    # "#0 0x55d0 in add_kernel(float*, int) sub/lab/add.c:9" (a signature may
    # hold spaces; the file is the frame's last word, with its line and perhaps a column).
    frames = re.findall(r"^\s*#\d+ 0x[0-9a-f]+ in (.+) (\S+\.(?:c|cu|cpp|h|cuh):\d+)(?::\d+)?\s*$", stderr, re.M)
    first_own = next((f"{function.split('(')[0]} {where}" for function, where in frames
                      if _frame_file(where) in own), "")
    at = f" at {first_own}" if first_own else ""
    if kind == "SEGV":
        return f"killed by SIGSEGV (Segmentation fault): AddressSanitizer caught it{at}"
    action = _line(stderr, r"^(READ|WRITE) of size")
    what = f", {action.split(' at ')[0]}" if action else ""
    return f"out of bounds: AddressSanitizer: {kind}{what}{at}"


def determine_verdict(outcome: RunOutcome, failure: tuple[str, str] | None, mismatch: str | None) -> tuple[str, str]:
    """The verdict and its one-line reason for one run of one case: a pure function of the run's
    outcome, of how it failed (runtime_error(), found once by the caller, which compares only a
    run that did not fail) and of the comparison (mismatch: None when the output matched)."""
    if failure:
        verdict, reason = failure
    elif mismatch:
        verdict, reason = WA, mismatch
        own = _line(outcome.stdout, r"^WRONG\b") if outcome.exit_code == EXIT_WRONG else None
        if own:  # what the program prints when run by hand: its diagnosis, in its words
            said = own[len("WRONG"):].strip()  # ": 40 of ..." or " (naive): 289 of ..."
            reason += "; the program says" + (" " if said.startswith("(") else ": ") + said.lstrip(": ")[:300]
    elif outcome.exit_code == EXIT_WRONG:
        # The harness's own check failed although the output matched: trust neither.
        verdict, reason = WA, "the program's own check reported a wrong result: " + outcome.stdout.strip()[-200:]
    else:
        verdict, reason = AC, "correct"
    cut = output_cut_note(outcome)
    return verdict, one_line(f"{reason} ({cut})" if cut else reason)
