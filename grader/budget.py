"""The time one grading may take, computed once, from the runs it may make (run_plan.plans_for):
each plan's limit (the case's, times the plan's time_factor), the reference solution's runs that
set the limits and the timing, the sanitizer's runs, and the builds. The batch kills a grading
past it (batch/local.py), the Slurm job asks for it (batch/slurm.py), and the LMS bundles give
their autograders it (lms/kit.py): one formula, so a new kind of run is counted everywhere.

    python3 -m grader budget <lab> [--emu] [--cases public|all] [--gpus N]   prints it, in seconds
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.build import BUILD_TIME_LIMIT_S
from grader.labs import Case, Lab
from grader.run_plan import plans_for, reference_plans, sanitize_plans
from grader.sanitize import pick_cases, tools

# Beyond the runs' limits: making the cases, reading outputs, writing the reports.
OVERHEAD_S = 60
# The builds a grading may make: the graded one; the reference's; on a GPU node the emulated one
# and its AddressSanitizer flavour. Each stops at BUILD_TIME_LIMIT_S, but on a course's machine a
# build takes a minute or two: the budget counts a quarter of the limit for each.
BUILD_SHARE = 0.25


@dataclass(frozen=True)
class Budget:
    builds_s: float
    runs_s: float
    reference_s: float
    sanitize_s: float

    @property
    def total_s(self) -> int:
        return int(self.builds_s + self.runs_s + self.reference_s + self.sanitize_s + OVERHEAD_S)

    def describe(self) -> str:
        return (f"{self.total_s} s: builds {self.builds_s:.0f} s, the cases' runs {self.runs_s:.0f} s, the reference's "
                f"{self.reference_s:.0f} s, the sanitizer's {self.sanitize_s:.0f} s, {OVERHEAD_S} s besides")


def grading_budget(lab: Lab, cases: list[Case], *, emu: bool, gpus: int, checks: bool = True) -> Budget:
    """The most one grading of `cases` may take on this kind of node (emu, gpus)."""
    runs = sum(plan.time_factor * case.time_limit_s
               for case in cases for plan in plans_for(lab, case, emu=emu, checks=checks, gpus=gpus))
    reference = sum(plan.time_factor * case.time_limit_s
                    for case in cases for plan in reference_plans(lab, case, emu=emu, checks=checks, gpus=gpus))
    reference += sum(case.time_limit_s for case in cases if case.timed and not emu)
    sanitize = 0.0
    if checks and not emu:
        sanitize = sum(plan.time_factor * case.time_limit_s
                       for case in pick_cases(lab, cases) for plan in sanitize_plans(lab, tools(lab)))
    builds = (2 if emu else 4) * BUILD_SHARE * BUILD_TIME_LIMIT_S
    return Budget(builds, runs, reference, sanitize)
