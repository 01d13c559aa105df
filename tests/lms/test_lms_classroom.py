"""GitHub Classroom's workflow, run as GitHub Actions would run it: the template repository made
by `make github-classroom`, a student's finished starter/, then each step's command in order
(run: steps with bash -eo pipefail, the command-grader's setup-command and command with sh),
in the repository's top folder. The apt step (sudo, network) is checked, not run. About 15 s."""

import json
import shutil
import subprocess

import pytest

from grader import deps
from grader.testing import seed_kit_build, whole_run
from lms import classroom
from lms.kit import KIT_ROOT
from test_lms_bundles import workflow_steps

LAB = "increment"


def run_step(command, repo, shell, timeout_s):
    argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command] if shell == "bash" else ["sh", "-c", command]
    return subprocess.run(argv, cwd=repo, capture_output=True, text=True, timeout=timeout_s)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    repo = classroom.make(LAB, out_dir=tmp_path_factory.mktemp("classroom"), log=lambda *_: None)
    for source in (KIT_ROOT / "solutions" / LAB).glob("*.c"):  # the student's finished work
        shutil.copyfile(source, repo / "starter" / LAB / source.name)
    if not whole_run():  # the workflow builds the emulator from nothing: a minute (tests/every_lab.sh)
        seed_kit_build(repo)
    return repo


def test_the_workflow_commands_grade_the_repository(repo):
    steps = workflow_steps((repo / classroom.WORKFLOW).read_text())
    deps_step = next(s for s in steps if s.get("id") == "deps")
    for package in [p for p in deps.DEBIAN if p not in ("libgtest-dev", "pandoc", "graphviz")] + ["python3"]:
        assert package in deps_step["run"].split()
    passed = []
    for step in steps:
        if step.get("id") == "deps" or step.get("uses", "").startswith("actions/checkout"):
            continue
        if "run" in step:
            proc = run_step(step["run"], repo, "bash", 600)
            assert proc.returncode == 0 or step.get("continue-on-error") == "true", proc.stdout + proc.stderr
        elif step.get("uses") == classroom.COMMAND_GRADER:
            setup = run_step(step["setup-command"], repo, "sh", 60) if step["setup-command"] else None
            assert setup is None or setup.returncode == 0
            proc = run_step(step["command"], repo, "sh", 60 * int(step["timeout"]))
            assert proc.returncode == 0, f"{step['test-name']}: {proc.stdout}{proc.stderr}"
            assert proc.stdout.startswith(f"{step['test-name']}: AC")
            passed.append(step["test-name"])
    assert len(passed) == len([s for s in steps if s.get("uses") == classroom.COMMAND_GRADER]) > 0


def test_a_case_without_full_points_fails_its_step(tmp_path, capsys):
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"cases": [
        {"case": "a", "verdict": "WA", "reason": "first wrong element at [7]", "points": 0.0, "max_points": 10.0},
        {"case": "b", "verdict": "AC", "reason": "correct", "points": 5.0, "max_points": 5.0}]}))
    assert classroom.verdict(report, "a") == 1 and "WA: first wrong element at [7]" in capsys.readouterr().out
    assert classroom.verdict(report, "b") == 0
    assert classroom.verdict(report, "c") == 1 and "has no case 'c'" in capsys.readouterr().out
    assert classroom.verdict(tmp_path / "none.json", "a") == 1 and "no readable report" in capsys.readouterr().out
