"""CaseGrader's order of runs on a GPU node, with a runner that runs nothing: which plans a case
makes is what run_plan.plans_for (the grading's budget) says it may make."""

from grader import run_plan as plans
from grader.case_grade import CaseGrader
from grader.case_run import PlanRun
from grader.intake import Source
from grader.labs import LARGE, load_lab
from grader.paths import SOLUTIONS_DIR
from grader.run import RunOutcome
from grader.verdict import AC


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
