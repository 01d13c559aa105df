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
(a pivot block's phase as one source writes it) gets its shared memory checked this way instead;
and AddressSanitizer checks every access the emulated kernels make.
Under the CPU emulator grading checks with ASan and the race detector itself (grader/grade.py).
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from grader.build import EMULATED_BUILD_FAILED
from grader.case_run import CaseRunner
from grader.cases import ReadyCase
from grader.labs import PUBLIC, Case, Lab
from grader.report import Report
from grader.run_plan import RunPlan, sanitize_plans
from grader.text import one_line
from grader.verdict import AC, RE, WA


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


# compute-sanitizer's exit status when it found errors (--error-exitcode): whether a run is a
# fault is decided from it, never from the summary's words, which the program could print too.
FOUND_ERRORS_EXIT = 86


def command(tool: str, argv: list[str]) -> list[str]:
    return [sanitizer() or "compute-sanitizer", "--tool", tool, "--print-limit", "20",
            "--error-exitcode", str(FOUND_ERRORS_EXIT), *argv]


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


def findings(tool: str, *outputs: str, exit_code: int | None = None) -> Finding:
    """'memcheck: 3 errors; first: Invalid __global__ write of size 4 bytes at ...' (a fault),
    'memcheck: no errors', or 'memcheck: could not check (why)' (the tool's failing, not the
    student's), from the run's outputs (stdout, stderr) and compute-sanitizer's exit status. The
    fault is the exit status's (FOUND_ERRORS_EXIT) where it is given; the words only say what.
    compute-sanitizer prints its summary last, after the program's own output in the same stream:
    each stream's last summary counts, and the one with the most errors, so a summary the program
    printed itself hides nothing."""
    last = [(matches[-1], output) for output in outputs if (matches := list(_SUMMARY.finditer(output)))]
    summary, text = max(last, key=lambda pair: _count(pair[0]), default=(None, "\n".join(outputs)))
    if summary is None and exit_code == FOUND_ERRORS_EXIT:
        return Finding(f"{tool}: errors found (compute-sanitizer's report was cut off: run it by hand)", True)
    if summary is None and "terminated before first instrumented API call" in text:
        return Finding(f"{tool}: could not check (the program made no CUDA call: set lab.toml's [sanitize] case)", False)
    if summary is None:
        last = [line for line in text.splitlines() if line.strip()][-1:] or ["no output"]
        return Finding(f"{tool}: could not check (compute-sanitizer gave no summary: {last[0].strip()[:160]})", False)
    count = _count(summary)
    found = count > 0 if exit_code is None else exit_code == FOUND_ERRORS_EXIT
    if not found:
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


class SanitizerStep:
    """On a GPU, after a grading's cases: the lab's [sanitize] cases under compute-sanitizer (and
    the emulator's checks where lab.toml asks), each a plan (run_plan.sanitize_plans) run through
    the grading's runner (the same sandbox, limits and emulated build); a finding turns that case
    from AC into RE."""

    def __init__(self, lab: Lab, cases: list[Case], runner: CaseRunner, log=print):
        self.lab, self.cases, self.runner, self.log = lab, cases, runner, log

    def run(self, report: Report) -> None:
        if self.runner.builds.emu:
            report.notes.append("--sanitize needs a GPU: under the CPU emulator use --asan")
            return
        if sanitizer() is None:
            report.notes.append("compute-sanitizer not found (it comes with the CUDA toolkit): memory and "
                                "race checks on the GPU skipped")
            return
        shorten = self.runner.builds.source.shorten
        for case in pick_cases(self.lab, self.cases):
            result = next(r for r in report.results if r.case == case.name)
            if result.verdict != AC:  # it has lost its points already: no need to spend minutes on why
                report.notes.append(f"sanitizer not run on case {case.name}: it is {result.verdict} already")
                continue
            ready = self.runner.prepare(case)
            found = [self._finding(plan, ready) for plan in sanitize_plans(self.lab, tools(self.lab))]
            for finding in found:
                if finding.fault and result.verdict == AC:
                    # The output was right, but the code reads or writes where it must not, or races.
                    result.verdict, result.points = RE, 0.0
                    result.reason = one_line(shorten(f"{finding.text} (the GPU's output happened to be right)"))
            texts = "; ".join(finding.text for finding in found)
            if result.verdict == AC:
                result.reason += "; sanitizer: " + texts
            report.notes.append(f"sanitizer on case {case.name}: " + texts)

    def _finding(self, plan: RunPlan, ready: ReadyCase) -> Finding:
        if plan.sanitizer:
            return self._tool_finding(plan, ready)
        return self._emulator_finding(plan, ready)

    def _tool_finding(self, plan: RunPlan, ready: ReadyCase) -> Finding:
        tool = plan.sanitizer
        self.log(f"  {ready.case.name}: compute-sanitizer --tool {tool} ...")
        run = self.runner.run(plan, ready, wrap_argv=lambda argv, folder: command(tool, argv))
        outcome = run.outcome
        if outcome is None:
            return Finding(f"compute-sanitizer {tool}: could not check ({run.reason})", False)
        if outcome.timed_out:
            return Finding(f"compute-sanitizer {tool}: could not check "
                           f"(did not finish within {ready.case.time_limit_s * plan.time_factor:g} s)", False)
        finding = findings(tool, outcome.stdout, outcome.stderr, exit_code=outcome.exit_code)
        return Finding(f"compute-sanitizer {finding.text}", finding.fault)

    def _emulator_finding(self, plan: RunPlan, ready: ReadyCase) -> Finding:
        """The case under the emulator's checks (lab.toml's emulator_checks): built with
        AddressSanitizer, run with the race detector on. It must run right there as on the GPU:
        the emulator is the kit's own, so no failure of it, a time-out included, is excused (code
        could otherwise loop or stop under CUDA_EMULATION to skip the checks)."""
        checker = "the emulator's checks"
        self.log(f"  {ready.case.name}: {checker} ...")
        build = self.runner.build_for(plan)
        if not build.ok:  # the grader's failure excuses nothing of the student's, and blames nothing
            return Finding(f"{checker}: {build.reason[:200]}" if build.grader_error else
                           f"{checker}: {EMULATED_BUILD_FAILED}: {build.reason[:200]}", not build.grader_error)
        run = self.runner.run(plan, ready)
        if run.verdict == AC:
            return Finding(f"{checker}: no errors", False)
        if run.verdict == WA:  # right on the GPU, wrong with the threads in the emulator's order
            return Finding(f"{checker}: wrong when the emulator runs the threads one after another "
                           f"({run.reason}): a __syncthreads() missing?", True)
        return Finding(f"{checker} (ASan, race detector): {run.reason}", True)
