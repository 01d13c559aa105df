"""CaseGrader's order of runs on a GPU node, with a runner that runs nothing: which plans a case
makes is what run_plan.plans_for (the grading's budget) says it may make."""

from types import SimpleNamespace

from grader import run_plan as plans
from grader.case_grade import CaseGrader
from grader.case_run import PlanRun
from grader.intake import Source
from grader.labs import LARGE, load_lab
from grader.paths import SOLUTIONS_DIR
from grader.report import Report
from grader.run import RunOutcome
from grader.timing import ReferenceTiming
from grader.verdict import AC, SLOW, WA


class RecordingRunner:
    """Every plan answers AC at once; the plans asked for are kept in order."""

    def __init__(self):
        self.ran = []

    def prepare(self, case):
        return case

    def run(self, plan, ready):
        self.ran.append(plan)
        outcome = RunOutcome(exit_code=0, signal=None, wall_s=0.1, timed_out=False, stdout="", stderr="",
                             stdout_cut=False, stderr_cut=False)
        return PlanRun(plan, AC, "correct", outcome, {"kernel_ms": 1.0})


class NoEvidenceAgainst:
    def judge(self, case, ready, gpu_run, run):
        return ""

    def timing_unbacked(self, case, gpu_run):
        return None


class NoTiming:
    def apply(self, result, outcome, reference_value, unbacked=None):
        pass


def graded_plans(lab, case):
    runner = RecordingRunner()
    grader = CaseGrader(lab, Source("solution", SOLUTIONS_DIR), runner, NoEvidenceAgainst(), emu=False, checks=True,
                        gpus=1)
    result = grader.grade(case, {}, NoTiming())
    assert result.verdict == AC, result.reason
    return runner.ran


def test_a_timed_gpu_sized_case_is_never_emulated_on_a_gpu_node():
    # Its GPU record backs the timing; the emulator would take hours on it (matmul's naive-n2048
    # waited past five minutes for such a run, on an H100 and an H200).
    lab = load_lab("matmul")
    case = next(c for c in lab.cases if c.group == LARGE and c.timed)
    ran = graded_plans(lab, case)
    assert ran[0].gpu_record
    assert all(not plan.emulated for plan in ran), ran
    budgeted = plans.plans_for(lab, case, emu=False, checks=True, gpus=1)
    assert len(ran) <= len(budgeted)


def test_a_public_case_has_its_work_judged_on_an_emulated_run():
    lab = load_lab("matmul")
    case = next(c for c in lab.cases if c.name == "tiled-n17")
    purposes = [plan.purpose for plan in graded_plans(lab, case)]
    assert plans.WORK in purposes


# ---- a SLOW case on a GPU is timed again beside the reference ---------------------------------

class TimedRunner(RecordingRunner):
    """The student's GRADE runs and the reference's runs give kernel_ms from two queues; a GRADE
    run whose queue entry is None prints the wrong answer."""

    def __init__(self, student_ms, reference_ms):
        super().__init__()
        self.student_ms, self.reference_ms = list(student_ms), list(reference_ms)
        self.reference = SimpleNamespace(source=Source("solution", SOLUTIONS_DIR),
                                         graded=lambda: SimpleNamespace(ok=True))

    def run(self, plan, ready):
        run = super().run(plan, ready)
        queue = {plans.GRADE: self.student_ms, plans.REFERENCE: self.reference_ms}.get(plan.purpose)
        if queue is None:
            return run
        ms = queue.pop(0)
        if ms is None:
            return PlanRun(plan, WA, "entry 0: expected 2, got 1", run.outcome, {})
        return PlanRun(plan, AC, "correct", run.outcome, {"kernel_ms": ms, "total_ms": ms + 1})


class SecondRecordDiffers(NoEvidenceAgainst):
    def __init__(self):
        self.judged = 0

    def judge(self, case, ready, gpu_run, run):
        self.judged += 1
        return "" if self.judged == 1 else "the GPU run launched no kernel"


def graded_timed(student_ms, reference_ms, evidence=None):
    lab = load_lab("increment")  # case "large": timed, slow_factor 1.5, its work judged on the GPU node
    case = next(c for c in lab.cases if c.timed)
    runner = TimedRunner(student_ms, reference_ms)
    student = Source("student", SOLUTIONS_DIR / lab.id, submission=True)
    timing = ReferenceTiming(lab, [case], student, runner, emu=False, asan=False, checks=True, gpus=1)
    reference = timing.reference_metrics(Report(lab.id, "student", False, []))
    grader = CaseGrader(lab, student, runner, evidence or NoEvidenceAgainst(), emu=False, checks=True, gpus=1)
    return grader.grade(case, reference, timing), runner


def test_a_slow_case_fast_beside_a_fresh_reference_keeps_its_points():
    result, runner = graded_timed(student_ms=[2.0, 1.2], reference_ms=[1.0, 1.0])
    assert (result.verdict, result.points, result.reason) == (AC, result.max_points, "correct")
    assert "kernel_ms 1.200 vs limit 1.500" in result.timing_note and "timed again" in result.timing_note
    assert "kernel_ms 2.000" in result.timing_note  # the first pair is said too
    assert not runner.student_ms and not runner.reference_ms


def test_slow_twice_stays_slow_with_both_figures():
    result, _ = graded_timed(student_ms=[2.0, 2.1], reference_ms=[1.0, 1.0])
    assert result.verdict == SLOW and result.points < result.max_points
    assert "kernel_ms 2.100" in result.reason and "kernel_ms 2.000" in result.reason


def test_a_second_run_that_is_wrong_or_not_the_work_earns_nothing():
    wrong, _ = graded_timed(student_ms=[2.0, None], reference_ms=[1.0, 1.0])
    assert wrong.verdict == SLOW and "timed again" not in wrong.reason
    other, _ = graded_timed(student_ms=[2.0, 1.0], reference_ms=[1.0, 1.0], evidence=SecondRecordDiffers())
    assert other.verdict == SLOW and "timed again" not in other.reason


def test_the_budget_counts_the_second_timing():
    lab = load_lab("increment")
    case = next(c for c in lab.cases if c.timed)
    on_gpu = plans.plans_for(lab, case, emu=False, checks=True, gpus=1)
    assert [p.purpose for p in on_gpu[-2:]] == [plans.REFERENCE, plans.GRADE]
    under_emulator = plans.plans_for(lab, case, emu=True, checks=True, gpus=0)
    assert plans.REFERENCE not in [p.purpose for p in under_emulator]  # nothing is SLOW there
