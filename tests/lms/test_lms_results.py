"""The grader's JSON report in Gradescope's and PrairieLearn's formats (lms/results.py), each
checked against its published fields (lms/spec.py)."""

import json
import subprocess
import sys

import pytest

from lms import results, spec
from lms.kit import CaseInfo, LabInfo, TIMING_NOTE

INFO = LabInfo("lab", "A lab", ["prog"], [CaseInfo("one", 10), CaseInfo("two", 20), CaseInfo("hidden-1", 5, True)],
               True, 300)
SECRET_PATH = "/autograder/source/secret"


def report(*cases, notes=()):
    return {"lab": "lab", "score": 0, "max_score": 35, "notes": list(notes),
            "cases": [{"case": n, "verdict": v, "reason": r, "points": p, "max_points": m} for n, v, r, p, m in cases]}


GOOD = report(("one", "AC", "correct", 10.0, 10.0), ("two", "WA", "first wrong element at [3]: 4 vs 5", 0.0, 20.0),
              ("hidden-1", "AC", "correct", 5.0, 5.0),
              notes=[f"3 hidden cases made from the secret in file {SECRET_PATH} (fingerprint 0123456789ab)"])


def test_gradescope_fields_follow_the_spec():
    out = results.to_gradescope(GOOD, INFO, execution_s=12.4, secrets=(SECRET_PATH,))
    assert spec.gradescope_problems(out) == []
    assert out["score"] == 15.0 and out["execution_time"] == 12
    assert [t["name"] for t in out["tests"]] == ["one", "two", "hidden-1"]
    one, two, hidden = out["tests"]
    assert (one["score"], one["max_score"], one["status"], one["visibility"]) == (10.0, 10.0, "passed", "visible")
    assert two["status"] == "failed" and two["output"].startswith("WA (wrong answer): first wrong element at [3]")
    assert hidden["visibility"] == "after_due_date"
    assert TIMING_NOTE in out["output"] and "1 hidden cases: their verdicts show after the due date" in out["output"]
    assert out["stdout_visibility"] == "hidden"


def test_prairielearn_fields_follow_the_spec():
    out = results.to_prairielearn(GOOD, INFO)
    assert spec.prairielearn_problems(out) == []
    assert out["gradable"] is True and out["score"] == pytest.approx(15 / 35)
    by_name = {t["name"]: t for t in out["tests"]}
    assert by_name["two"]["points"] == 0.0 and by_name["two"]["max_points"] == 20.0
    assert "first wrong element" in by_name["two"]["message"]
    assert by_name["hidden-1"]["message"] == "AC (accepted)" and by_name["hidden-1"]["output"] == ""
    assert "timing is graded on the course's GPU cluster" in out["message"]


def test_a_forged_or_short_report_gives_no_case_more_than_its_points():
    forged = report(("one", "AC", "correct", 1e9, 1e9), ("two", "AC", "correct", -5, 20), ("bonus", "AC", "", 100, 100))
    out = results.to_gradescope(forged, INFO)
    assert spec.gradescope_problems(out) == []
    scores = {t["name"]: t["score"] for t in out["tests"]}
    assert scores == {"one": 10.0, "two": 0.0, "hidden-1": 0.0}
    assert "bonus" not in scores and out["score"] == 10.0
    assert "not graded" in out["tests"][2]["output"]
    for garbage in ({}, {"cases": "x"}, {"cases": [1, None, {"case": 3}]}):
        assert spec.gradescope_problems(results.to_gradescope(garbage, INFO)) == []
        assert spec.prairielearn_problems(results.to_prairielearn(garbage, INFO)) == []


def test_nothing_a_student_sees_names_the_secret():
    leaky = report(("one", "RE", f"could not read {SECRET_PATH} (fingerprint 0123456789ab)", 0, 10))
    for out in (results.to_gradescope(leaky, INFO, secrets=(SECRET_PATH,)),
                results.to_prairielearn(leaky, INFO, secrets=(SECRET_PATH,))):
        text = json.dumps(out)
        assert SECRET_PATH not in text and "0123456789ab" not in text and "fingerprint" not in text


def test_a_compile_error_is_said_once_for_the_whole_submission():
    ce = report(*[(c.name, "CE", "prog.c:3: error: expected ';'", 0, c.points) for c in INFO.cases])
    out = results.to_gradescope(ce, INFO)
    assert "did not compile" in out["output"] and "prog.c:3" in out["output"]


def test_failures_are_valid_results_with_a_reason():
    gs = results.gradescope_failure(INFO, "Not graded: your submission has no prog.c")
    assert spec.gradescope_problems(gs) == [] and gs["score"] == 0.0 and "prog.c" in gs["output"]
    assert [t["score"] for t in gs["tests"]] == [0.0, 0.0, 0.0]
    assert spec.gradescope_problems(results.gradescope_failure(None, "broken")) == []
    pl = results.prairielearn_failure("Not graded: your submission has no prog.c")
    assert spec.prairielearn_problems(pl) == [] and pl["gradable"] is False


@pytest.mark.parametrize("bad, problem", [
    ({"score": 1, "tests": [{"name": "a", "score": 2, "max_score": 1}]}, "outside 0..max_score"),
    ({"score": 1, "visibility": "sometimes", "tests": []}, "visibility"),
    ({"score": 0, "tests": [{"name": "a", "status": "failed", "output": ""}]}, "no reason"),
    ({"score": 1, "tests": [{"name": "a", "score": 2}]}, "not the sum"),
    ({"tests": [], "grade": 1}, "unknown top-level key"),
])
def test_the_gradescope_check_finds_what_breaks_the_spec(bad, problem):
    assert any(problem in p for p in spec.gradescope_problems(bad))


@pytest.mark.parametrize("bad, problem", [
    ({"gradable": True, "score": 1.5, "tests": []}, "from 0 to 1"),
    ({"score": 0.5, "tests": []}, "gradable"),
    ({"gradable": False, "score": 0, "tests": []}, "no message"),
    ({"gradable": True, "score": 0.5, "tests": [{"name": "a", "points": 1}]}, "max_points"),
])
def test_the_prairielearn_check_finds_what_breaks_the_spec(bad, problem):
    assert any(problem in p for p in spec.prairielearn_problems(bad))


def test_the_spec_check_runs_from_the_command_line(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results.to_gradescope(GOOD, INFO)))
    ok = subprocess.run([sys.executable, "-m", "lms.spec", "gradescope", str(path)], capture_output=True, text=True)
    assert ok.returncode == 0 and "a valid gradescope results.json (3 tests)" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "lms.spec", "prairielearn", str(path)], capture_output=True, text=True)
    assert bad.returncode == 1 and "gradable" in bad.stdout
