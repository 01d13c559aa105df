"""Every lab end to end under the CPU emulator (EMU=1), through the grader: the reference
solution passes its public cases, the untouched starter fails them with reasons. A lab added
later is covered just by existing.

The emulator's checks (AddressSanitizer, the race detector, the random-order pass) make the
reference's grading five times as long; make test grades every lab's reference without them and
two labs' with them, tests/every_lab.sh every lab's with them."""

import pytest

from grader.grade import Grader
from grader.intake import Source
from grader.labs import lab_ids, load_lab
from grader.paths import SOLUTIONS_DIR, STARTER_DIR
from grader.testing import EMU_READY
from grader.verdict import AC, CE

from support import every_lab_or

pytestmark = pytest.mark.skipif(not EMU_READY, reason="the CPU emulator (labs/emu) is not in this tree")


def grade(lab_id: str, source: Source, *, checks: bool):
    return Grader(load_lab(lab_id), source, emu=True, groups=("public",), log=lambda *_: None,
                  checks=checks).grade()


def assert_solution_passes(lab_id: str, *, checks: bool):
    report = grade(lab_id, Source("solution", SOLUTIONS_DIR), checks=checks)
    failures = [(r.case, r.verdict, r.reason) for r in report.results if r.verdict != AC]
    assert not failures
    timed = {c.name for c in load_lab(lab_id).cases if c.timed}
    for result in report.results:
        if result.case in timed:
            assert result.timing_note == "timing threshold skipped: CPU emulation (EMU=1)"


@pytest.mark.parametrize("lab_id", lab_ids())
def test_solution_passes_public_cases(lab_id):
    assert_solution_passes(lab_id, checks=False)


# increment: the smallest; matmul: shared-memory tiles, where a missing barrier is a race.
@pytest.mark.parametrize("lab_id", every_lab_or("increment", "matmul"))
def test_solution_passes_public_cases_under_the_emulators_checks(lab_id):
    assert_solution_passes(lab_id, checks=True)


# increment and matmul in make test (the starters of the other labs take half a minute each
# under the checks on 2 cores); every lab in tests/every_lab.sh.
@pytest.mark.parametrize("lab_id", every_lab_or("increment", "matmul"))
def test_untouched_starter_fails_with_reasons(lab_id):
    # With the checks, as make check grades it: the reference's times this measures (the cases'
    # time limits, kept in build/reference-walls/) serve the handouts' `make check` too.
    report = grade(lab_id, Source("starter", STARTER_DIR), checks=True)
    assert report.score < report.max_score
    for result in report.results:
        assert result.verdict != CE, f"the starter must compile: {result.reason}"
        assert result.reason


def test_a_result_with_padding_is_the_kernels_work_where_the_padding_was_never_copied_back():
    """fw's pitched version copies back N entries of each row with cudaMemcpy2D, not the padding
    up to Na: the work check must not count the padding as computed on the host (it did)."""
    grader = Grader(load_lab("fw"), Source("solution", SOLUTIONS_DIR), emu=True, groups=("optional",),
                    log=lambda *_: None)
    grader.cases = [c for c in grader.cases if c.name == "pitch-undircycle-257"]
    (result,) = grader.grade().results
    assert result.verdict == AC, result.reason
