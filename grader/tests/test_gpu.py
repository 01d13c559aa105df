"""GPU-only checks of the increment lab (the foundation's 'done when'); skipped, by name,
where there is no GPU. On a GPU machine: python3 -m pytest -rs grader/tests/test_gpu.py"""

import runpy

import pytest

from grader.gpu import has_gpu
from grader.grade import Grader
from grader.intake import Source
from grader.labs import load_lab
from grader.paths import KIT_ROOT, SOLUTIONS_DIR, STARTER_DIR
from grader.verdict import AC, RE, WA

pytestmark = pytest.mark.skipif(not has_gpu(), reason="GPU test: no CUDA GPU on this machine")


def grade(source: Source):
    return Grader(load_lab("increment"), source, emu=False, groups=("public",), log=lambda *_: None).grade()


def test_solution_scores_full_marks():
    report = grade(Source("solution", SOLUTIONS_DIR))
    assert [r.verdict for r in report.results] == [AC] * len(report.results)
    assert report.score == report.max_score


def test_untouched_starter_scores_zero_pointing_at_the_todos():
    report = grade(Source("starter", STARTER_DIR))
    assert report.score == 0
    assert all(r.verdict == RE and r.reason.startswith("TODO not done:") for r in report.results)


def test_off_by_one_guard_is_wa_naming_the_last_index(tmp_path):
    plant = runpy.run_path(str(KIT_ROOT / "labs/increment/scripts/plant_off_by_one.py"))
    (tmp_path / "increment.c").write_text(plant["planted_source"]())
    report = grade(Source("sub-off-by-one", tmp_path, submission=True))
    small = next(r for r in report.results if r.case == "small")
    assert small.verdict == WA
    assert small.reason.startswith("entry 1023: expected ")
