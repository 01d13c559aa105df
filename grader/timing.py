"""Timing policy and the reference's figures: what a timed case is measured against, and each
case's time limit, both from the reference solution run on this machine in the same grading
(lab.toml [timing], [margins]; limits.GRADING_TIME_LIMITS). grade.py's Grader asks it for the
limits and the reference's figures before the cases, and hands it each correct timed result.
Whether a program's own figures can be trusted at all (figure_doubts, wall_doubt,
judged_on_wall) is the first section below."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math

from grader import KIT_VERSION
from grader.build import build_lock
from grader.intake import Source
from grader.case_run import CaseRunner, metric
from grader.labs import Case, Lab
from grader.limits import GRADING_TIME_LIMITS
from grader.paths import BUILD_DIR, LABS_DIR, SOLUTIONS_DIR
from grader.report import Report
from grader.run import RunOutcome
from grader.run_plan import RunPlan, case_plans, reference_plans, timing_plan
from grader.shared_files import write_atomically
from grader.verdict import SLOW, CaseResult, runtime_error


# ---- the program's own figures held against what the grader saw ------------------------------
#
# The harness times the student's GPU work (CUDA events: kernel_ms; host clock: total_ms) and
# writes the figures to $LABKIT_RESULT. The student's code runs in the same process, so it can
# overwrite that file or the figures; no secret can prevent that. What the grader can do is
# check the figures against evidence the student's code cannot touch:
#
# - the process's wall time, measured by the grader: total_ms cannot be longer than the process
#   lived, and kernel_ms cannot be longer than total_ms (which includes it);
# - missing, negative or non-numeric figures on a case that exited normally;
# - kernel_host_ms, when a harness reports it (the same span as kernel_ms on the host clock, ending
#   with cudaDeviceSynchronize()): much longer than kernel_ms means the GPU was still busy with
#   work the events did not see, e.g. kernels left running on another stream;
# - on a GPU, with the reference solution timed in the same run: a reported time within the
#   threshold while the whole process took far longer than the reference's
#   (slow_factor x its wall time + WALL_GRACE_S).
#
# A flagged case's time is not trusted: it is judged on its wall time against the reference's
# instead, and the report lists it for a TA to look at. Not caught: a forgery consistent with all
# of the above (small made-up figures on a lab whose kernels are a small part of the run), or CPU
# code doing the GPU's work inside the timed functions.

WALL_GRACE_S = 1.0  # start-up, input and output differ a little between two runs
SLACK_MS = 2.0  # clock granularity and the time between the harness's clock and exit


def _time(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


def figure_doubts(figures: dict, outcome: RunOutcome) -> list[str]:
    """What in the program's own figures cannot be true, given what the grader observed."""
    doubts = []
    times = {}
    for name in ("kernel_ms", "total_ms"):
        if name not in figures:
            doubts.append(f"no {name} in the program's result file")
            continue
        times[name] = _time(figures[name])
        if times[name] is None:
            doubts.append(f"{name} = {figures[name]!r} is not a time")
    kernel, total = times.get("kernel_ms"), times.get("total_ms")
    wall_ms = outcome.wall_s * 1000
    if total is not None and total > wall_ms * 1.02 + SLACK_MS:
        doubts.append(f"total_ms {total:.3f} is longer than the process lived "
                      f"({wall_ms:.1f} ms, timed by the grader)")
    if kernel is not None and total is not None and kernel > total * 1.02 + SLACK_MS:
        doubts.append(f"kernel_ms {kernel:.3f} is longer than total_ms {total:.3f}, which includes it")
    kernel_host = _time(figures.get("kernel_host_ms"))
    if kernel is not None and kernel_host is not None and kernel_host > 2 * kernel + SLACK_MS:
        doubts.append(f"the host waited {kernel_host:.3f} ms for kernels the GPU timed at {kernel:.3f} ms: "
                      f"work left running on another stream?")
    return doubts


def wall_doubt(metric: str, value: float, limit: float, wall_s: float, reference_wall_s: float,
               slow_factor: float) -> str | None:
    """A reported time within the limit that the process's own wall time contradicts."""
    wall_limit = slow_factor * reference_wall_s + WALL_GRACE_S
    if value <= limit and wall_s > wall_limit:
        return (f"reported {metric} {value:.3f} is within the limit, but the process took {wall_s:.2f} s "
                f"against the reference's {reference_wall_s:.2f} s (more than {slow_factor:g} x + "
                f"{WALL_GRACE_S:g} s)")
    return None


def judged_on_wall(wall_s: float, reference_wall_s: float | None, slow_factor: float) -> tuple[bool, str]:
    """(slow, what was compared) for a case whose own figures are not trusted."""
    if reference_wall_s is None:
        return False, "no reference wall time to judge it on"
    wall_limit = slow_factor * reference_wall_s + WALL_GRACE_S
    return wall_s > wall_limit, (f"judged on wall time instead: {wall_s:.2f} s vs limit {wall_limit:.2f} s "
                                 f"({slow_factor:g} x reference {reference_wall_s:.2f} s + {WALL_GRACE_S:g} s)")


class ReferenceTiming:
    """The reference solution's times and figures for one grading's cases, run through the
    grading's own runner (REFERENCE plans: the same sandbox, limits and plans as the student's)."""

    def __init__(self, lab: Lab, cases: list[Case], source: Source, runner: CaseRunner, *, emu: bool,
                 asan: bool, checks: bool, gpus: int):
        self.lab, self.cases, self.source, self.runner = lab, cases, source, runner
        self.emu, self.asan, self.checks, self.gpus = emu, asan, checks, gpus
        self.walls: dict[str, float] = {}  # case -> the reference's wall time, measured with its figure

    @property
    def of_itself(self) -> bool:
        """Whether the graded source is the reference solution itself: no threshold against itself."""
        return self.source == self.runner.reference.source

    def mark_slow(self, result: CaseResult, why: str) -> None:
        """Correct but over a timing threshold: the lab's partial credit."""
        result.verdict = SLOW
        result.reason = f"correct but slow: {why}"
        result.points = result.max_points * self.lab.timing.slow_credit

    def apply_margins(self, result: CaseResult) -> bool:
        """lab.toml's [margins]: a figure the program reports must not pass its cap (a version's
        time over a baseline version's, both timed in the same run). True if SLOW."""
        for figure, most in self.lab.margins.items():
            value = result.figures.get(figure)
            if isinstance(value, (int, float)) and value > most:
                self.mark_slow(result, f"{figure} is {value:.3f}, over the {most:g} that lab.toml's [margins] allows")
                return True
            if isinstance(value, (int, float)):
                result.timing_note = f"{figure} {value:.3f} within the margin {most:g}"
        return False

    def apply(self, result: CaseResult, outcome: RunOutcome, reference_value: float | None,
              unbacked: str | None = None) -> None:
        """The case's timing points. unbacked: why the GPU run's own record does not back the
        program's figure (grader/evidence/timing.py): then the figure earns nothing."""
        timing = self.lab.timing
        if unbacked:
            result.timing_flagged = True
            self.mark_slow(result, f"timing not backed by the GPU record: {unbacked}")
            result.timing_note = f"timing flagged: {unbacked}"
            return
        if not self.emu and self.apply_margins(result):
            return
        skipped = ("timing threshold skipped: CPU emulation (EMU=1)" if self.emu else
                   "the reference solution: no threshold against itself" if self.of_itself
                   else "" if timing.slow_factor <= 0 else None)
        if skipped is not None:
            result.timing_note = "; ".join(filter(None, (result.timing_note, skipped)))
            return
        value = metric(result.figures, outcome, timing.metric)
        reference_wall = self.walls.get(result.case)
        if value is None or result.timing_flagged:
            # The program's own figure is missing or not to be trusted: the grader's clock decides.
            slow, how = judged_on_wall(outcome.wall_s, reference_wall, timing.slow_factor)
            result.timing_flagged = True
            result.timing_note = (result.timing_note or f"timing flagged: no {timing.metric} reported") + "; " + how
            if slow:
                self.mark_slow(result, how)
            return
        if reference_value is None:
            result.timing_note = "the reference solution gave no timing; timing not checked"
            return
        limit = timing.slow_factor * reference_value
        result.timing_note = (f"{timing.metric} {value:.3f} vs limit {limit:.3f} "
                              f"({timing.slow_factor:g} x reference {reference_value:.3f})")
        doubt = reference_wall and wall_doubt(timing.metric, value, limit, outcome.wall_s,
                                                            reference_wall, timing.slow_factor)
        if doubt:
            result.timing_flagged = True
            result.timing_note = f"timing flagged: {doubt}"
            value = limit + 1  # the grader's clock says slow
        if value > limit:
            self.mark_slow(result, result.timing_note)

    def time_limits(self, report: Report) -> dict[str, float]:
        """Each case's time limit from the reference solution's time on this machine, in this
        flavor (limits.GRADING_TIME_LIMITS).
        The reference's times are measured once and kept in build/reference-walls/."""
        if self.of_itself or not (SOLUTIONS_DIR / self.lab.id).is_dir():
            return {}
        key = hashlib.sha256(json.dumps([KIT_VERSION, self.emu, self.asan, self.checks,
                                         [dataclasses.astuple(c)[:6] for c in self.cases]]).encode())
        for path in sorted((SOLUTIONS_DIR / self.lab.id).glob("*.c")) + sorted((LABS_DIR / self.lab.id).glob("*.c*")):
            key.update(path.read_bytes())
        cache = BUILD_DIR / "reference-walls" / f"{self.lab.id}-{key.hexdigest()[:16]}.json"
        # One grading measures, under a lock; gradings side by side (a batch) wait and read it.
        with build_lock(f"reference-walls-{cache.stem}"):
            try:
                walls = json.loads(cache.read_text())
            except (OSError, ValueError):
                walls = self._measure_walls()
                if walls:
                    cache.parent.mkdir(parents=True, exist_ok=True)
                    write_atomically(cache, json.dumps(walls) + "\n")
        limits = {c.name: GRADING_TIME_LIMITS.limit(c.time_limit_s, walls[c.name]) for c in self.cases if c.name in walls}
        if limits:
            report.notes.append(f"time limits: {GRADING_TIME_LIMITS.describe()}")
        return limits

    def _measure_walls(self) -> dict[str, float]:
        """The reference solution's wall time on each case, run as the student's will be."""
        if not self.runner.reference.graded().ok:
            return {}
        walls = {}
        for case in self.cases:
            ready = self.runner.prepare(case)
            slowest = 0.0
            for plan in reference_plans(self.lab, case, emu=self.emu, checks=self.checks, gpus=self.gpus):
                outcome = self.runner.run(plan, ready).outcome
                if runtime_error(outcome, case.time_limit_s) is not None:
                    break
                slowest = max(slowest, outcome.wall_s)
            else:
                walls[case.name] = slowest
        return walls

    def reference_metrics(self, report: Report) -> dict[str, float]:
        """The reference solution's figure for each timed case, measured in this same run."""
        timed = [c for c in self.cases if c.timed]
        if not timed or self.lab.timing.slow_factor <= 0:
            return {}
        if self.emu:
            report.notes.append("timing thresholds are skipped under CPU emulation (EMU=1)")
            return {}
        if self.of_itself:
            return {}
        if not (SOLUTIONS_DIR / self.lab.id).is_dir():
            report.notes.append(f"no reference solution in this copy of the kit (solutions/{self.lab.id} is "
                                f"missing, as in the student edition): timing thresholds not checked")
            return {}
        build = self.runner.reference.graded()
        if not build.ok:
            report.notes.append(f"the reference solution did not build ({build.reason}); timing not checked")
            return {}
        metrics = {}
        for case in timed:
            first = case_plans(self.lab, case, emu=False, checks=self.checks, gpus=self.gpus)[0]
            value = self.measure(case, self.runner.prepare(case), timing_plan(first))
            if value is not None:
                metrics[case.name] = value
        return metrics

    def measure(self, case: Case, ready, plan: RunPlan) -> float | None:
        """The reference solution's figure on one timed case (a REFERENCE plan, run_plan.timing_plan),
        its wall time kept beside it; None where it gave none or its run failed."""
        run = self.runner.run(plan, ready)
        value = metric(run.figures, run.outcome, self.lab.timing.metric)
        if value is None or runtime_error(run.outcome, case.time_limit_s) is not None:
            return None
        self.walls[case.name] = run.outcome.wall_s
        return value
