import shutil
from pathlib import Path

import pytest

from grader.cases import ReadyCase
from grader.labs import Case, Compare, Lab, Timing

FAKES = Path(__file__).parent / "fakes"


def every_lab_or(*ci_labs: str) -> list[str]:
    """The labs a check that costs minutes a lab runs on: ci_labs in make test (CI's time), every
    lab where LABKIT_EVERY_LAB=1 (bash tests/every_lab.sh)."""
    from grader.labs import lab_ids
    from grader.testing import whole_run
    labs = lab_ids()
    return labs if whole_run() else [lab for lab in labs if lab in ci_labs]


def fake_case(name="c1", *, mode="right", n=8, time_limit_s=10.0, timed=False, points=10.0):
    return Case(name=name, group="public", program="fake", args=(mode, "{output}", str(n)),
                points=points, time_limit_s=time_limit_s, timed=timed)


def fake_lab(cases=(), *, slow_factor=1.5) -> Lab:
    return Lab(id="fake", title="fake", programs=("fake",), compare=Compare("f32"),
               timing=Timing(metric="kernel_ms", slow_factor=slow_factor, slow_credit=0.5),
               cases=tuple(cases), bench=(), build={})


def ready(case: Case, expected: Path) -> ReadyCase:
    return ReadyCase(case, None, expected)


needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None and not Path("/usr/local/cuda/bin/nvcc").exists(),
                                reason="nvcc is not installed: the compile-error test needs the CUDA compiler")


def fake_grader(program: Path, expected: Path, tmp_path: Path, *, emu: bool, timed: bool = True):
    """A Grader of the fake lab (one case) that runs `program` as its build, on a case whose expected
    output is `expected`, in tmp_path/work: what its runner would otherwise build and make. The
    sandbox is off: the fake is a Python script, and the sandbox shows it no Python."""
    from grader.build import BuildResult
    from grader.intake import Source
    from grader.grade import Grader
    grader = Grader(fake_lab([fake_case(timed=timed)]), Source("sub-x", tmp_path, submission=True), emu=emu,
                    log=lambda *_: None, sandbox="off")
    grader.builds.set_graded(BuildResult(True, {"fake": program}, "", ""))
    grader.runner.prepare = lambda case: ready(case, expected)
    grader.folder.parent = tmp_path / "work"
    return grader


def reference_timing(grader):
    """The ReferenceTiming a grading by `grader` of its cases makes (grade.py's _report)."""
    from grader.timing import ReferenceTiming
    return ReferenceTiming(grader.lab, grader.cases, grader.source, grader.runner, emu=grader.emu, asan=grader.asan,
                           checks=grader.checks, gpus=grader.gpus)
