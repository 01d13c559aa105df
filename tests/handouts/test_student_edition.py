"""The handouts' commands in the student edition (no solutions/): the subset of
student_edition.py's QUICK list, in CI; `python3 tests/handouts/student_edition.py` runs every
command of every handout (a few minutes)."""

import shutil

import pytest

from grader.testing import EMU_READY
from student_edition import QUICK, run_all, unpack_student_edition

if shutil.which("pandoc") is None:
    pytest.skip("pandoc is not installed (make deps installs it): the handouts cannot be read",
                allow_module_level=True)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    if not EMU_READY:
        pytest.skip("the CPU emulator is not ready here: the student edition cannot build")
    root = unpack_student_edition(tmp_path_factory.mktemp("student-edition"))
    return run_all(root, quick=True, log=lambda *_: None)


def test_the_quick_subset_is_found_in_the_handouts(outcomes):
    assert {o.line for o in outcomes} == set(QUICK)


@pytest.mark.parametrize("line", QUICK)
def test_command_works_in_the_student_edition(outcomes, line):
    outcome = next(o for o in outcomes if o.line == line)
    assert outcome.status != "FAILED", f"{outcome.handout}: {line}: {outcome.detail}"
    assert outcome.status != "not run", f"{outcome.handout}: {line} is in QUICK but is never run"


def test_bench_in_the_student_edition_benchmarks_the_students_own_code(outcomes):
    """make bench there has no reference to build: it says so and runs the student's starter."""
    outcome = next(o for o in outcomes if o.line == "make bench LAB=increment")
    assert "note: solutions/increment is absent: benchmarking your own code (starter/increment)" in outcome.output
    assert "the reference solution did not build" not in outcome.output
