"""The bundle makers (lms/gradescope.py, prairielearn.py, classroom.py) for every lab: what each
bundle holds, what it must not hold, and that nothing in lms/ names a lab by hand."""

import json
import re
import stat
import zipfile

import pytest

from grader.labs import lab_ids, load_lab
from lms import classroom, gradescope, prairielearn
from lms.kit import KIT_ROOT, BundleError, LabInfo

LABS = lab_ids()
SECRET = "s3cret-for-the-bundle-tests-0123456789"
STUDENT_MUST_NOT_HAVE = ("solutions/", "handouts/answers/", "tests/", "grader/tests/")


def quiet(*_):
    pass


def kit_names(names, prefix):
    return [n[len(prefix):] for n in names if n.startswith(prefix)]


def test_nothing_in_lms_names_a_lab():
    for path in sorted((KIT_ROOT / "lms").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            text = path.read_text()
            for lab in LABS:
                assert not re.search(rf"(?<![\w/-]){re.escape(lab)}(?![\w-])", text), f"{path} names lab {lab}"


@pytest.mark.parametrize("lab", LABS)
def test_gradescope_zip(lab, tmp_path):
    out = gradescope.make(lab, out_dir=tmp_path, log=quiet)
    assert out == tmp_path / f"{lab}-autograder.zip"
    with zipfile.ZipFile(out) as zf:
        names = zf.namelist()
        modes = {i.filename: i.external_attr >> 16 for i in zf.infolist()}
        info = LabInfo.from_json(zf.read("lms-lab.json").decode())
        setup = zf.read("setup.sh").decode()
    for script in ("setup.sh", "run_autograder"):
        assert script in names and modes[script] & stat.S_IXUSR
    kit = kit_names(names, "kit/")
    assert "lms/runner.py" in kit and "grader/cli.py" in kit and f"labs/{lab}/lab.toml" in kit
    assert not [n for n in kit if n.startswith(STUDENT_MUST_NOT_HAVE)]
    # Its own lab's cases and handout, no other lab's.
    assert f"testcases/{lab}/cases.toml" in kit and f"handouts/{lab}.md" in kit and f"starter/{lab}" in str(kit)
    for other in set(LABS) - {lab}:
        assert not [n for n in kit if n.split("/")[:2] in (["testcases", other], ["labs", other], ["starter", other])
                    or n == f"handouts/{other}.md"], other
    assert "secret" not in names and not info.hidden_cases
    public = [c for c in load_lab(lab).cases if c.group == "public"]
    assert [(c.name, c.points) for c in info.cases] == [(c.name, c.points) for c in public]
    assert info.lab == lab and info.budget_s > sum(c.time_limit_s for c in public)
    for package in ("g++", "make", "python3", "libboost-context-dev", "bubblewrap"):
        assert package in setup.split()
    assert "libgtest-dev" not in setup and "pandoc" not in setup


def test_gradescope_zip_with_a_secret_grades_hidden_cases(tmp_path):
    secret_file = tmp_path / "course.secret"
    secret_file.write_text(SECRET + "\n")
    lab = next(l for l in LABS if "[[hidden]]" in (KIT_ROOT / "testcases" / l / "cases.toml").read_text())
    out = gradescope.make(lab, secret_file=secret_file, out_dir=tmp_path / "out", log=quiet)
    with zipfile.ZipFile(out) as zf:
        assert zf.read("secret").decode().strip() == SECRET
        info = LabInfo.from_json(zf.read("lms-lab.json").decode())
        assert not any(SECRET.encode() in zf.read(n) for n in zf.namelist() if n != "secret")
    assert info.hidden_cases and any(c.hidden for c in info.cases)


def test_a_bad_secret_is_refused_with_what_to_do(tmp_path):
    short = tmp_path / "short"
    short.write_text("abc")
    with pytest.raises(BundleError, match="at least 16"):
        gradescope.make(LABS[0], secret_file=short, out_dir=tmp_path, log=quiet)
    with pytest.raises(BundleError, match="cannot read the secret file"):
        gradescope.make(LABS[0], secret_file=tmp_path / "missing", out_dir=tmp_path, log=quiet)


@pytest.mark.parametrize("lab", LABS)
def test_prairielearn_bundle(lab, tmp_path):
    folder = prairielearn.make(lab, out_dir=tmp_path, image="course/labkit", log=quiet)
    question = folder / "questions" / f"labkit-{lab}"
    info_json = json.loads((question / "info.json").read_text())
    assert info_json["gradingMethod"] == "External" and info_json["type"] == "v3"
    options = info_json["externalGradingOptions"]
    assert options["enabled"] is True and options["image"] == "course/labkit"
    assert options["entrypoint"] == prairielearn.ENTRYPOINT and options["timeout"] > 0
    programs = load_lab(lab).programs
    html = (question / "question.html").read_text()
    assert f'file-names="{",".join(p + ".c" for p in programs)}"' in html
    assert "<pl-external-grader-results>" in html
    run = question / "tests" / "run"
    assert run.stat().st_mode & stat.S_IXUSR and "/grade/results/results.json" in run.read_text()
    kit = question / "tests" / "kit"
    assert (kit / "lms" / "runner.py").is_file() and not (kit / "solutions").exists()
    dockerfile = (folder / "image" / "Dockerfile").read_text()
    assert "libboost-context-dev" in dockerfile and prairielearn.ENTRYPOINT in dockerfile
    assert (tmp_path / f"{lab}-prairielearn.zip").is_file()
    uuid_again = json.loads((prairielearn.make(lab, out_dir=tmp_path / "again", log=quiet)
                             / "questions" / f"labkit-{lab}" / "info.json").read_text())["uuid"]
    assert uuid_again == info_json["uuid"]


def workflow_steps(text):
    """The steps of the workflow as dicts (its scalars are JSON-quoted or plain words)."""
    steps, current = [], None
    for line in text.splitlines():
        m = re.match(r"^      - (\w[\w-]*): (.*)$", line)
        if m:
            current = {m[1]: m[2]}
            steps.append(current)
            continue
        m = re.match(r"^ {8,10}([\w-]+): ?(.*)$", line)
        if m and current is not None:
            value = m[2]
            current[m[1]] = json.loads(value) if value.startswith('"') and not value.startswith('"${{') else value
    for step in steps:
        step["name"] = json.loads(step["name"]) if step["name"].startswith('"') else step["name"]
    return steps


@pytest.mark.parametrize("lab", LABS)
def test_classroom_workflow(lab, tmp_path):
    folder = classroom.make(lab, out_dir=tmp_path, log=quiet)
    text = (folder / classroom.WORKFLOW).read_text()
    assert "name: Autograding Tests" in text and "  run-autograding-tests:" in text
    assert (folder / "starter" / lab).is_dir() and not (folder / "solutions").exists()
    steps = workflow_steps(text)
    graders = [s for s in steps if s.get("uses") == classroom.COMMAND_GRADER]
    public = [c for c in load_lab(lab).cases if c.group == "public"]
    assert [s["test-name"] for s in graders] == [c.name for c in public]
    assert [float(s["max-score"]) for s in graders] == [c.points for c in public]
    reporter = next(s for s in steps if s.get("uses") == classroom.REPORTER)
    assert reporter["runners"] == ",".join(s["id"] for s in graders)
    for s in graders:
        assert f"{s['id'].upper()}_RESULTS: \"${{{{steps.{s['id']}.outputs.result}}}}\"" in text
        assert re.fullmatch(r"[a-z][a-z0-9-]*", s["id"])
