"""A failure of the grader is never a verdict on the student: each kind of grader-side failure,
faked, on each path (check, batch, each LMS bundle). The case is IE (not graded), the report
says what to fix, the command exits non-zero, and once the fault is gone the same command grades.

Faults, as a machine would have them: a library the kit links missing (MAKEFLAGS overrides
make's EXTRA_EMU_LDLIBS for the harness's link check, never for the student's build), the compiler
missing (EMU_CXX), a sandbox asked for that cannot run, a case file that does not match its
SHA-256."""

import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from grader import exit_status
from grader.grade import Grader
from grader.intake import Source
from grader.labs import ConfigError, load_lab
from grader.paths import KIT_ROOT, SOLUTIONS_DIR
from grader.testing import EMU_READY, seed_kit_build
from grader.verdict import IE

pytestmark = pytest.mark.skipif(not EMU_READY, reason="the CPU emulator (labs/emu) is not in this tree")

MISSING_LIBRARY = {"MAKEFLAGS": "EXTRA_EMU_LDLIBS=-lnot_installed_labkit"}
MISSING_COMPILER = {"MAKEFLAGS": "EMU_CXX=/nonexistent/g++"}
NO_SANDBOX = {"LABKIT_SANDBOX": "landlock", "LABKIT_LANDLOCK": "off"}


def grader_cli(*args, env=None, cwd=KIT_ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=600)


@pytest.mark.parametrize("fault, says", [(MISSING_LIBRARY, "cannot find -lnot_installed_labkit"),
                                         (MISSING_COMPILER, "/nonexistent/g++")])
def test_check_a_missing_library_or_tool_is_the_graders_and_exits_non_zero(fault, says, tmp_path):
    proc = grader_cli("check", "increment", "--submission", str(SOLUTIONS_DIR / "increment"), "--emu",
                      "--no-checks", "--json", str(tmp_path / "r.json"), "--junit", str(tmp_path / "r.xml"),
                      env=fault)
    assert proc.returncode == exit_status.NOT_ALL_GRADED, proc.stdout + proc.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert {c["verdict"] for c in report["cases"]} == {IE} and report["score"] == 0
    assert all(says in c["reason"] and "install" in c["reason"] for c in report["cases"])
    assert "NOT GRADED" in proc.stdout and "<error " in (tmp_path / "r.xml").read_text()
    again = grader_cli("check", "increment", "--submission", str(SOLUTIONS_DIR / "increment"), "--emu",
                       "--no-checks")
    assert again.returncode == exit_status.GRADED and "score: 100 / 100" in again.stdout


def test_check_a_sandbox_that_cannot_run_refuses_with_what_to_ask_for():
    proc = grader_cli("check", "increment", "--submission", str(SOLUTIONS_DIR / "increment"), "--emu",
                      env=NO_SANDBOX)
    assert proc.returncode == exit_status.CANNOT_START
    assert "Landlock is not available" in proc.stderr


def test_check_a_case_file_that_does_not_match_its_manifest_is_not_graded(monkeypatch):
    lab = load_lab("increment")
    import grader.case_run as case_run

    def bad_case(lab, case, **kw):
        raise ConfigError(f"case {case.name}: generated input does not match the SHA-256 in the manifest")
    monkeypatch.setattr(case_run, "prepare", bad_case)
    grader = Grader(lab, Source("sub-x", SOLUTIONS_DIR, submission=True), emu=True, log=lambda *_: None, checks=False)
    report = grader.grade()
    assert {r.verdict for r in report.results} == {IE} and report.score == 0
    assert all("grader error, not yours" in r.reason and "SHA-256" in r.reason for r in report.results)


def test_batch_grades_no_one_while_the_kit_cannot_build_and_everyone_when_run_again(tmp_path):
    """A batch meets the missing library when it builds what every submission shares: it stops
    before grading anyone (no student's record says anything), says what to install, exits 2; the
    same command once the library is there grades them all."""
    folder, out = tmp_path / "subs", tmp_path / "grades"
    for student in ("ada", "bo"):
        shutil.copytree(SOLUTIONS_DIR / "increment", folder / student / "increment")
    argv = ["batch", "increment", str(folder), "--emu", "--jobs", "2", "--no-checks", "--out", str(out)]
    proc = grader_cli(*argv, env=MISSING_LIBRARY)
    assert proc.returncode == exit_status.CANNOT_START, proc.stdout + proc.stderr
    assert "nothing was graded" in proc.stderr and "cannot find -lnot_installed_labkit" in proc.stderr
    assert not list((out / "results").glob("*.json")) if (out / "results").exists() else True
    again = grader_cli(*argv)
    assert again.returncode == exit_status.GRADED, again.stdout + again.stderr
    records = [json.loads(p.read_text()) for p in (out / "results").glob("*.json")]
    assert len(records) == 2 and all(r["status"] == "graded" and r["score"] == r["max_score"] for r in records)


@pytest.mark.parametrize("bundle", ["gradescope", "prairielearn"])
def test_each_lms_bundle_says_the_grader_failed_and_gives_no_points(bundle, tmp_path):
    from lms import gradescope, prairielearn
    solution = (SOLUTIONS_DIR / "increment" / "increment.c").read_text()
    if bundle == "gradescope":
        made = gradescope.make("increment", out_dir=tmp_path / "zip", log=lambda *_: None)
        root = tmp_path / "autograder"
        with zipfile.ZipFile(made) as zf:
            zf.extractall(root / "source")
        (root / "submission").mkdir()
        (root / "submission" / "increment.c").write_text(solution)
        seed_kit_build(root / "source" / "kit")
        script, env = root / "source" / "run_autograder", {"LABKIT_AUTOGRADER_ROOT": str(root)}
    else:
        question = prairielearn.make("increment", out_dir=tmp_path / "pl", log=lambda *_: None)
        root = tmp_path / "grade"
        shutil.copytree(question / "questions" / "labkit-increment" / "tests", root / "tests")
        (root / "student").mkdir()
        (root / "student" / "increment.c").write_text(solution)
        seed_kit_build(root / "tests" / "kit")
        script, env = root / "tests" / "run", {"LABKIT_GRADE_ROOT": str(root)}
    proc = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=600,
                          env={**os.environ, **env, **MISSING_LIBRARY})
    results = json.loads((root / "results" / "results.json").read_text())
    text = json.dumps(results)
    assert results["score"] == 0 and "The autograder failed, not your code" in text, proc.stdout
    assert "cannot find -lnot_installed_labkit" in text
    if bundle == "prairielearn":
        assert results["gradable"] is False  # not counted as one of the student's tries
