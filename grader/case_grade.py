"""One case graded: its runs (run_plan.case_plans, through the grading's CaseRunner) until one
goes wrong, the verdict and a reason a student can act on, on a GPU node the lab's work judged
on an emulated run and the GPU run's own evidence held against it (evidence/), then its timing
points (timing.py). grade.py's Grader makes one CaseGrader and hands it each case in turn."""

from __future__ import annotations

from dataclasses import dataclass, field

from grader import run_plan as plans
from grader import work as work_rules
from grader.case_run import CaseRunner, PlanRun
from grader.cases import ReadyCase
from grader.evidence.grading import GpuEvidence
from grader.intake import Source
from grader.labs import Case, ConfigError, Lab
from grader.text import one_line
from grader.timing import ReferenceTiming, figure_doubts
from grader.verdict import AC, CE, IE, SLOW, TLE, WA, CaseResult


@dataclass
class CaseGrader:
    """Grades the cases of one source, one at a time (grade), through the grading's runner and
    GPU evidence. work_unchecked: why lab.toml's [work] could not be judged on this GPU node."""
    lab: Lab
    source: Source
    runner: CaseRunner
    evidence: GpuEvidence
    emu: bool = field(kw_only=True)
    checks: bool = field(kw_only=True)
    gpus: int = field(kw_only=True)
    work_unchecked: str = field(default="", init=False)

    def grade(self, case: Case, reference: dict, timing: ReferenceTiming) -> CaseResult:
        """The case's result: its plans in order until one goes wrong, the work and evidence on a GPU
        node, then its timing points against the reference's figure (reference: case -> figure)."""
        try:
            ready = self.runner.prepare(case)
        except ConfigError as e:  # a case file the kit cannot make or trust: not the student's
            return CaseResult(case.name, IE, one_line(f"grader error, not yours: {e}"), 0.0, case.points)
        first, passed, where, compared = None, [], [], None
        for plan in plans.case_plans(self.lab, case, emu=self.emu, checks=self.checks, gpus=self.gpus):
            run = self._graded_run(plan, ready)
            verdict, reason = run.verdict, run.reason
            first = first or run
            if plan.where:  # which devices it ran on is said even when correct
                where.append(plan.where)
            if verdict != AC:
                if verdict == WA and self._right_on_one_device(ready, passed, plan):
                    reason += "; right on 1 device: is what the devices exchange, or the rows each one owns, wrong?"
                label = plan.label if run.outcome is not None else ""
                reason = one_line(self.source.shorten(f"{reason} ({label})" if label else reason))
                break
            passed.append(plan)
        else:
            where = list(dict.fromkeys(where))
            reason = one_line(f"{first.reason} ({', '.join(where)})" if where else first.reason)
            # A GPU run has no profile: the lab's work is judged on an emulated run, but never on a
            # GPU-sized case (hours under the emulator), whose record serves its timing alone.
            if first.plan.gpu_record and plans.judges_work_on_gpu(self.lab, case):
                work, why, compared = self._work_on_gpu_node(case, ready, first)
                if work != AC:
                    verdict, reason = work, why
        outcome, figures = first.outcome, first.figures
        wall = outcome.wall_s if outcome is not None else 0.0
        points = case.points if verdict == AC else case.points * self.lab.work.credit if verdict == work_rules.WORK else 0.0
        result = CaseResult(case.name, verdict, reason, points, case.points, wall, figures)
        doubts = figure_doubts(figures, outcome) if verdict == AC else []
        if doubts:
            result.timing_flagged = True
            result.timing_note = "timing flagged: " + "; ".join(doubts)
        if verdict == AC and case.timed:
            unbacked = self.evidence.timing_unbacked(case, first) if first.plan.gpu_record else None
            timing.apply(result, outcome, reference.get(case.name), unbacked=unbacked)
            if result.verdict == SLOW and not result.timing_flagged:
                self._time_again(case, ready, first, compared, result, reason, timing)
        return result

    def _time_again(self, case: Case, ready: ReadyCase, first: PlanRun, compared: PlanRun | None,
                    result: CaseResult, correct: str, timing: ReferenceTiming) -> None:
        """A SLOW case on a GPU, timed once more right after the reference's figure is taken again
        (run_plan.retime_plans): another process on the GPU while either was timed (a node shared,
        a batch's gradings side by side) must not cost the points. The second pair decides only
        where that run is right, its figures hold against what the grader saw and its GPU record
        backs them and (where the work is judged) matches the emulated run, as the first's did;
        the reason gives both pairs. correct: the case's reason before its timing."""
        reference_plan, again_plan = plans.retime_plans(first.plan)
        reference_value = timing.measure(case, ready, reference_plan)
        if reference_value is None:
            return
        run = self.runner.run(again_plan, ready)
        if run.verdict != AC or figure_doubts(run.figures, run.outcome):
            return
        if compared is not None and self.evidence.judge(case, ready, run, compared):
            return
        unbacked = self.evidence.timing_unbacked(case, run) if run.plan.gpu_record else None
        again = CaseResult(case.name, AC, correct, case.points, case.points, run.outcome.wall_s, run.figures)
        timing.apply(again, run.outcome, reference_value, unbacked=unbacked)
        if again.timing_flagged:
            return
        both = f"{again.timing_note}, timed again beside the reference; the first time {result.timing_note}"
        if again.verdict == SLOW:
            result.reason = one_line(f"correct but slow: {both}")
        else:
            result.verdict, result.reason, result.points = AC, correct, case.points
            result.wall_s, result.figures = again.wall_s, again.figures
        result.timing_note = both

    def _graded_run(self, plan: plans.RunPlan, ready: ReadyCase) -> PlanRun:
        """A GRADE run; one that profiled and ran past its limit is told apart from a hang by its
        retries (run_plan.profile_retries): a program that never ends is TLE after two limits."""
        run = self.runner.run(plan, ready)
        if not plan.profile or run.verdict != TLE:
            return run
        plain, slower = plans.profile_retries(plan)
        run = self.runner.run(plain, ready)
        return run if run.verdict != AC else self.runner.run(slower, ready)

    def _right_on_one_device(self, ready: ReadyCase, passed: list[plans.RunPlan], failed: plans.RunPlan) -> bool:
        """Whether a multi-device program that went wrong on several devices is right on one: then
        the mistake is in what the devices share. A GPU node's own single GPU may have answered it
        already (the first run); under the emulator one more run on 1 device does."""
        if any(plan.devices == 1 and not plan.emulated_devices for plan in passed):  # a GPU node's one GPU
            return failed.devices is not None and failed.devices >= 2
        diagnose = plans.one_device_plan(failed)
        return diagnose is not None and self.runner.run(diagnose, ready).verdict == AC

    def _work_on_gpu_node(self, case: Case, ready: ReadyCase, gpu_run: PlanRun) -> tuple[str, str, PlanRun | None]:
        """On a GPU node: lab.toml's [work] judged on an emulated run of the case (run_plan.work_plan),
        and the GPU run's own evidence held against it (GpuEvidence.judge): the grade of record rests on
        what the GPU run did, never on the program not knowing it is emulated. (AC, '', the emulated
        run the record was held against) when met."""
        work_plan = plans.work_plan(self.lab, case, gpu_run.plan)
        run = self.runner.run(work_plan, ready)
        if run.verdict == IE:
            # The node lacks what the emulator needs: the grader's failing, not the student's.
            # The case keeps its verdict; the report says the work was not checked.
            self.work_unchecked = run.reason
            return AC, "", None
        if run.verdict == CE:
            return CE, run.reason, None
        if run.verdict == work_rules.WORK:
            return run.verdict, one_line(self.source.shorten(f"{run.reason} (the emulated run that checks the lab's work)")), None
        if run.verdict != AC:
            # Right on the GPU, wrong under the emulator: the emulator's checks say why, as for [sanitize].
            return run.verdict, one_line(self.source.shorten(f"under the emulator, which checks the lab's work: {run.reason}")), None
        compared = plans.evidence_plan(work_plan, gpu_run.plan)
        if compared is not None:
            run = self.runner.run(compared, ready)
        why = self.evidence.judge(case, ready, gpu_run, run)
        if why:
            return work_rules.WORK, one_line(self.source.shorten(f"not the lab's work on the GPU: {why}")), None
        return AC, "", run
