"""run_autograder (Gradescope) and tests/run (PrairieLearn) run directly on this machine, with a
fake /autograder or /grade (LABKIT_AUTOGRADER_ROOT, LABKIT_GRADE_ROOT): the reference solution,
a buggy and a hostile submission (which forges results; lms/scripts/verify_bundles.sh
also has one hang), a missing file, and a grader that breaks. Each results.json
is checked against its LMS's format (lms/spec.py). About 45 s: three gradings under the emulator."""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from lms import gradescope, prairielearn, spec
from grader.testing import seed_kit_build, whole_run
from lms.kit import KIT_ROOT

sys.path.insert(0, str(Path(__file__).parent / "submissions"))
import make_variants  # noqa: E402

LAB = "increment"


SECRET = "lms-runner-test-secret-0123456789abcdef"


@pytest.fixture(scope="module")
def gradescope_zip(tmp_path_factory):
    """The lab's zip with a secret: its hidden cases are graded too."""
    folder = tmp_path_factory.mktemp("gs")
    (folder / "course.secret").write_text(SECRET + "\n")
    return gradescope.make(LAB, secret_file=folder / "course.secret", out_dir=folder, log=lambda *_: None)


@pytest.fixture(scope="module")
def prairielearn_question(tmp_path_factory):
    folder = prairielearn.make(LAB, out_dir=tmp_path_factory.mktemp("pl"), log=lambda *_: None)
    return folder / "questions" / f"labkit-{LAB}"


def autograder_root(tmp_path, zip_path, submission_files):
    """/autograder as Gradescope lays it out: source/ (the zip), submission/, results/."""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(root / "source")
        for info in zf.infolist():  # zipfile drops the modes
            (root / "source" / info.filename).chmod((info.external_attr >> 16) & 0o777 or 0o644)
    (root / "submission").mkdir()
    for name, text in submission_files.items():
        (root / "submission" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "submission" / name).write_text(text)
    return root


def run_gradescope(root, *, env=None, pid_namespace=False):
    argv = ["bash", str(root / "source" / "run_autograder")]
    if pid_namespace:  # a submission that kills every process it can reaches none outside the test
        argv = ["unshare", "--pid", "--fork", "--mount-proc", *argv]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=root, timeout=600,
                          env={**os.environ, "LABKIT_AUTOGRADER_ROOT": str(root), **(env or {})})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert spec.gradescope_problems(results) == [], results
    return results, proc.stdout


def test_gradescope_grades_the_reference_solution_nested_in_a_folder(tmp_path, gradescope_zip):
    solution = (KIT_ROOT / "solutions" / LAB / f"{LAB}.c").read_text()
    root = autograder_root(tmp_path, gradescope_zip, {f"my-work/starter/{LAB}/{LAB}.c": solution})
    if not whole_run():  # the bundle's first grading builds its emulator from nothing: a minute (tests/every_lab.sh)
        seed_kit_build(root / "source" / "kit")
    results, log = run_gradescope(root)
    assert results["score"] == sum(t["max_score"] for t in results["tests"]) > 0
    assert all(t["status"] == "passed" for t in results["tests"])
    hidden = [t for t in results["tests"] if t["name"].startswith("hidden-")]
    assert hidden and all(t["visibility"] == "after_due_date" for t in hidden)
    assert all(t["visibility"] == "visible" for t in results["tests"] if t not in hidden)
    assert "Timing is not graded here" in results["output"]
    assert "their verdicts show after the due date" in results["output"]
    assert "sandbox" in log and "fingerprint" in log  # the grader's own notes: the staff's log only
    student_text = json.dumps(results)
    assert "secret" not in student_text.replace("hidden", "") and SECRET not in student_text
    assert "fingerprint" not in student_text and str(root) not in student_text


def test_gradescope_hostile_submission_cannot_forge_its_results(tmp_path, gradescope_zip):
    root = autograder_root(tmp_path, gradescope_zip, {f"{LAB}.c": make_variants.variant(LAB, "hostile")[f"{LAB}.c"]})
    seed_kit_build(root / "source" / "kit")
    results, _ = run_gradescope(root)
    names = [t["name"] for t in results["tests"]]
    assert "forged" not in names and results["score"] <= sum(t["max_score"] for t in results["tests"])
    assert results["score"] == sum(t["max_score"] for t in results["tests"])  # it does the work too


HOSTILE = KIT_ROOT / "tests" / "hostile"


def _kind_or_skip(kind):
    import grader.sandbox
    sandbox = grader.sandbox._probe(kind)
    if not sandbox.active:
        pytest.skip(f"the {kind} sandbox cannot run here: {sandbox.why_off}")
    if subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "true"], capture_output=True).returncode:
        pytest.skip("unshare --pid cannot run here")


# The LMS containers' kind in every run; every kind with LABKIT_TEST_ALL_KINDS=1
# (bash lms/scripts/attacks_every_kind.sh).
BUNDLE_KINDS = ["bubblewrap", "user", "landlock"] if os.environ.get("LABKIT_TEST_ALL_KINDS") else ["user"]


@pytest.mark.parametrize("kind", BUNDLE_KINDS)
def test_gradescope_gives_the_two_attacks_no_points_in_every_sandbox_kind(kind, tmp_path, gradescope_zip):
    """Issue 24's two submissions: the expected output found on disk; the results forged and the
    grader killed. Each kind, as the grader picks it where bubblewrap cannot run; one bundle
    root for both, as Gradescope reuses its image."""
    _kind_or_skip(kind)
    root = autograder_root(tmp_path, gradescope_zip, {})
    seed_kit_build(root / "source" / "kit")
    for attack in ("walk_expected", "forge_results"):
        (root / "submission" / f"{LAB}.c").write_text((HOSTILE / attack / f"{LAB}.c").read_text())
        results, log = run_gradescope(root, env={"LABKIT_SANDBOX": kind}, pid_namespace=True)
        assert results["score"] == 0 and results["tests"], (attack, results)
        assert all(t["status"] == "failed" and t["output"].startswith("WA") for t in results["tests"]), results
        assert "forged" not in json.dumps(results) and "sandbox on" in log, attack


def test_prairielearn_survives_the_forger_as_the_sandbox_user(tmp_path, prairielearn_question):
    _kind_or_skip("user")
    root = tmp_path / "grade"
    shutil.copytree(prairielearn_question / "tests", root / "tests")
    (root / "student").mkdir()
    (root / "student" / f"{LAB}.c").write_text((HOSTILE / "forge_results" / f"{LAB}.c").read_text())
    seed_kit_build(root / "tests" / "kit")
    proc = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "bash", str(root / "tests" / "run")],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "LABKIT_GRADE_ROOT": str(root), "LABKIT_SANDBOX": "user"})
    results = json.loads((root / "results" / "results.json").read_text())
    assert spec.prairielearn_problems(results) == [] and results["gradable"] is True, proc.stdout
    assert results["score"] == 0 and "forged" not in json.dumps(results)


def test_gradescope_refuses_to_grade_where_no_sandbox_can_run(tmp_path, gradescope_zip):
    solution = (KIT_ROOT / "solutions" / LAB / f"{LAB}.c").read_text()
    root = autograder_root(tmp_path, gradescope_zip, {f"{LAB}.c": solution})
    seed_kit_build(root / "source" / "kit")
    results, _ = run_gradescope(root, env={"LABKIT_SANDBOX": "landlock", "LABKIT_LANDLOCK": "off"})
    assert results["score"] == 0 and "The autograder failed, not your code" in results["output"]
    assert "Landlock is not available" in results["output"]


def test_gradescope_a_grader_killed_mid_grading_gives_no_points(tmp_path, gradescope_zip):
    """The runner dies after a program wrote full marks where Gradescope reads them: the seal is
    missing, so run_autograder replaces the file with one that gives nothing."""
    root = autograder_root(tmp_path, gradescope_zip, {f"{LAB}.c": "int x;\n"})
    runner = root / "source" / "kit" / "lms" / "runner.py"
    runner.write_text(runner.read_text().replace(
        "    data = grade(args.format,",
        "    args.results.write_text('{\"score\": 100.0, \"tests\": []}')\n    os._exit(9)\n    data = grade(args.format,"))
    results, log = run_gradescope(root)
    assert results["score"] == 0 and "the grader stopped before it wrote its results" in results["output"]
    assert "lms.seal" in log


def test_gradescope_missing_file_says_what_to_upload(tmp_path, gradescope_zip):
    root = autograder_root(tmp_path, gradescope_zip, {"notes.txt": "I forgot my code"})
    results, _ = run_gradescope(root)
    assert results["score"] == 0 and f"has no {LAB}.c" in results["output"]
    assert f"make submit LAB={LAB}" in results["output"]


def test_gradescope_a_broken_grader_still_gives_results(tmp_path, gradescope_zip):
    root = autograder_root(tmp_path, gradescope_zip, {f"{LAB}.c": "int x;\n"})
    (root / "source" / "kit" / "grader" / "__main__.py").write_text("raise SystemExit(7)\n")
    results, _ = run_gradescope(root)
    assert results["score"] == 0 and "The autograder failed, not your code" in results["output"]
    assert "exit status 7" in results["output"]
    # Not even Python: run_autograder's own fallback.
    (root / "source" / "labkit-python").write_text("/bin/false\n")
    results, log = run_gradescope(root)
    assert results["score"] == 0 and "before writing a result" in results["output"]
    assert "no valid results.json" in log


def test_prairielearn_grades_a_buggy_submission(tmp_path, prairielearn_question):
    root = tmp_path / "grade"
    shutil.copytree(prairielearn_question / "tests", root / "tests")
    make_variants.write(LAB, "buggy", root / "student")
    seed_kit_build(root / "tests" / "kit")
    proc = subprocess.run(["bash", str(root / "tests" / "run")], capture_output=True, text=True,
                          env={**os.environ, "LABKIT_GRADE_ROOT": str(root)}, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert spec.prairielearn_problems(results) == [], results
    assert results["gradable"] is True and 0 < results["score"] < 1
    failed = [t for t in results["tests"] if t["points"] < t["max_points"]]
    assert failed and all(t["message"].startswith("WA") for t in failed)


def test_prairielearn_missing_file_is_not_gradable(tmp_path, prairielearn_question):
    root = tmp_path / "grade"
    shutil.copytree(prairielearn_question / "tests", root / "tests")
    (root / "student").mkdir()
    proc = subprocess.run(["bash", str(root / "tests" / "run")], capture_output=True, text=True,
                          env={**os.environ, "LABKIT_GRADE_ROOT": str(root)}, timeout=120)
    results = json.loads((root / "results" / "results.json").read_text())
    assert spec.prairielearn_problems(results) == [] and results["gradable"] is False
    assert f"has no {LAB}.c" in results["message"], proc.stdout
