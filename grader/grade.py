"""Grades one build of one lab: build, run every testcase with limits, compare, time, score."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from grader.build import build_lab
from grader.cases import ReadyCase, argv_for, prepare
from grader.compare import compare_output
from grader.labs import Case, Lab
from grader.paths import BUILD_DIR, SOLUTIONS_DIR
from grader.run import RunOutcome, run_program
from grader.verdict import AC, CE, SLOW, WA, CaseResult, EXIT_WRONG, runtime_error


@dataclass(frozen=True)
class Source:
    """The student files being graded: starter, solution, or a submission's folder."""
    name: str  # "starter", "solution", "sub-<name>"
    root: Path


@dataclass
class Report:
    lab: str
    source: str
    emu: bool
    results: list[CaseResult]
    notes: list[str] = field(default_factory=list)
    build_log: str = ""

    @property
    def score(self) -> float:
        return sum(r.points for r in self.results)

    @property
    def max_score(self) -> float:
        return sum(r.max_points for r in self.results)


def build_dir_for(source: Source, emu: bool, asan: bool) -> Path:
    return BUILD_DIR / f"{'emu-' if emu else ''}{source.name}{'-asan' if asan else ''}"


def _read_figures(path: Path) -> dict:
    """The program's result file; a missing or malformed one gives no figures."""
    try:
        figures = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return figures if isinstance(figures, dict) else {}


def run_case(program: Path, ready: ReadyCase, work: Path) -> tuple[RunOutcome, Path, dict]:
    """Runs one case; returns the outcome, the output file's path and the program's figures."""
    work.mkdir(parents=True, exist_ok=True)
    output = work / f"{ready.case.name}.out"
    result_file = work / f"{ready.case.name}.result.json"
    for stale in (output, result_file):
        stale.unlink(missing_ok=True)
    env = {**os.environ, "LABKIT_RESULT": str(result_file)}
    outcome = run_program(argv_for(program, ready, output), time_limit_s=ready.case.time_limit_s,
                          cwd=work, env=env)
    return outcome, output, _read_figures(result_file)


def _metric(figures: dict, outcome: RunOutcome, metric: str) -> float | None:
    if metric == "wall_ms":
        return outcome.wall_s * 1000
    value = figures.get(metric)
    return float(value) if isinstance(value, (int, float)) else None


def judge(lab: Lab, ready: ReadyCase, outcome: RunOutcome, output: Path) -> tuple[str, str]:
    """Correctness alone: (AC or WA or a run failure, reason)."""
    failure = runtime_error(outcome, ready.case.time_limit_s)
    if failure:
        return failure
    wrong = compare_output(ready.expected_path, output, ready.case.compare or lab.compare)
    if wrong:
        return WA, wrong
    if outcome.exit_code == EXIT_WRONG:
        # The harness's own check failed although the output matched: trust neither.
        return WA, "the program's own check reported a wrong result: " + outcome.stdout.strip()[-200:]
    return AC, "correct"


class Grader:
    def __init__(self, lab: Lab, source: Source, *, emu: bool, asan: bool = False,
                 groups: tuple[str, ...] = ("public",), keep_outputs: bool = False, log=print):
        self.lab, self.source, self.emu, self.asan = lab, source, emu, asan
        self.cases = [c for c in lab.cases if c.group in groups]
        self.keep_outputs = keep_outputs
        self.log = log
        self.work = BUILD_DIR / "grading" / build_dir_for(source, emu, asan).name / lab.id

    def grade(self) -> Report:
        build_dir = build_dir_for(self.source, self.emu, self.asan)
        self.log(f"building {self.lab.id} from {self.source.root} ...")
        build = build_lab(self.lab, src_root=self.source.root, build_dir=build_dir, emu=self.emu,
                          asan=self.asan)
        report = Report(self.lab.id, self.source.name, self.emu, [], build_log=build.log)
        if not build.ok:
            report.results = [CaseResult(c.name, CE, build.reason, 0.0, c.points) for c in self.cases]
            return report
        reference = self._reference_metrics(report)
        for case in self.cases:
            result = self._grade_case(case, build.programs[case.program], reference, report)
            self.log(f"  {case.name}: {result.verdict} ({result.reason})")
            report.results.append(result)
        return report

    def _grade_case(self, case: Case, program: Path, reference: dict, report: Report) -> CaseResult:
        ready = prepare(self.lab, case)
        outcome, output, figures = run_case(program, ready, self.work)
        verdict, reason = judge(self.lab, ready, outcome, output)
        if not self.keep_outputs:
            output.unlink(missing_ok=True)
        result = CaseResult(case.name, verdict, reason, case.points if verdict == AC else 0.0,
                            case.points, outcome.wall_s, figures)
        if verdict == AC and case.timed:
            self._apply_timing(result, outcome, reference.get(case.name))
        return result

    def _apply_timing(self, result: CaseResult, outcome: RunOutcome, reference_value: float | None) -> None:
        timing = self.lab.timing
        if self.emu:
            result.timing_note = "timing threshold skipped: CPU emulation (EMU=1)"
            return
        if timing.slow_factor <= 0:
            return
        if self.source.name == "solution":
            result.timing_note = "the reference solution: no threshold against itself"
            return
        value = _metric(result.figures, outcome, timing.metric)
        if value is None:
            result.timing_note = f"no {timing.metric} figure reported; timing not checked"
            return
        if reference_value is None:
            result.timing_note = "the reference solution gave no timing; timing not checked"
            return
        limit = timing.slow_factor * reference_value
        result.timing_note = (f"{timing.metric} {value:.3f} vs limit {limit:.3f} "
                              f"({timing.slow_factor:g} x reference {reference_value:.3f})")
        if value > limit:
            result.verdict = SLOW
            result.reason = f"correct but slow: {result.timing_note}"
            result.points = result.max_points * timing.slow_credit

    def _reference_metrics(self, report: Report) -> dict[str, float]:
        """The reference solution's figure for each timed case, measured in this same run."""
        timed = [c for c in self.cases if c.timed]
        if not timed or self.lab.timing.slow_factor <= 0:
            return {}
        if self.emu:
            report.notes.append("timing thresholds are skipped under CPU emulation (EMU=1)")
            return {}
        solution = Source("solution", SOLUTIONS_DIR)
        if self.source.name == solution.name:
            return {}  # the reference is not timed against itself
        if not (solution.root / self.lab.id).is_dir():
            report.notes.append(f"no reference solution in this copy of the kit (solutions/{self.lab.id} is "
                                f"missing, as in the student edition): timing thresholds not checked")
            return {}
        build = build_lab(self.lab, src_root=solution.root, build_dir=build_dir_for(solution, False, False),
                          emu=False)
        if not build.ok:
            report.notes.append(f"the reference solution did not build ({build.reason}); timing not checked")
            return {}
        metrics = {}
        for case in timed:
            ready = prepare(self.lab, case)
            outcome, output, figures = run_case(build.programs[case.program], ready,
                                                self.work.with_name(self.lab.id + "-reference"))
            output.unlink(missing_ok=True)
            value = _metric(figures, outcome, self.lab.timing.metric)
            if value is not None and runtime_error(outcome, case.time_limit_s) is None:
                metrics[case.name] = value
        return metrics
