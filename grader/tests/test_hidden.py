"""Hidden testcases: drawn from the instructor's secret, made by the lab's own generator, kept
where no sandboxed program can see them."""

import dataclasses

import pytest

from grader.grade import Grader
from grader.intake import Source
from grader.hidden import HIDDEN_GROUP, Secret, hidden_cases, load_secret, prepare_hidden
from grader.labs import ConfigError, load_lab
from grader.paths import BUILD_DIR, SOLUTIONS_DIR
from grader.testing import EMU_READY

SECRET = Secret(b"an instructor secret, 32 chars..", "test")


def test_same_secret_same_cases_new_secret_new_cases():
    lab = load_lab("increment")
    first, again = hidden_cases(lab, SECRET), hidden_cases(lab, SECRET)
    other = hidden_cases(lab, Secret(b"another instructor secret.......", "test"))
    assert [c.params for c in first] == [c.params for c in again]
    assert [c.params for c in first] != [c.params for c in other]
    assert [c.name for c in first] == ["hidden-1", "hidden-2", "hidden-3"]
    for case in first:
        assert case.group == HIDDEN_GROUP
        assert 1 <= case.params["n"] <= 1_000_000 and case.params["block"] in (32, 64, 96, 128, 192, 256, 512, 1000, 1024)
        assert 1 <= case.params["reps"] <= 5


def test_expected_output_made_by_gen_py_outside_the_kit_tree_students_see():
    lab = load_lab("increment")
    case = hidden_cases(lab, SECRET)[0]
    ready = prepare_hidden(lab, case, SECRET)
    assert ready.expected_path.is_relative_to(BUILD_DIR / "hidden" / "increment")
    assert ready.expected_path.stat().st_size == 4 * case.params["n"]
    assert SECRET.fingerprint in str(ready.expected_path) and b"instructor" not in str(ready.expected_path).encode()


def test_secret_sources_and_checks(tmp_path):
    path = tmp_path / "secret"
    path.write_text("0123456789abcdef0123\n")
    assert load_secret(path, {}).value == b"0123456789abcdef0123"
    assert load_secret(None, {"LABKIT_SECRET_FILE": str(path)}).source == f"file {path}"
    assert load_secret(None, {"LABKIT_SECRET": "0123456789abcdef"}).source == "LABKIT_SECRET"
    assert load_secret(None, {}) is None
    with pytest.raises(ConfigError, match="at least 16"):
        load_secret(None, {"LABKIT_SECRET": "short"})
    with pytest.raises(ConfigError, match="cannot read the secret file"):
        load_secret(tmp_path / "missing", {})


def test_bad_recipe_is_reported(monkeypatch):
    lab = dataclasses.replace(load_lab("increment"), hidden_recipes=(
        {"name": "h", "program": "increment", "args": [], "params": {"n": {"range": [5, 1]}}},))
    with pytest.raises(ConfigError, match="range must be two whole numbers, low <= high"):
        hidden_cases(lab, SECRET)


@pytest.mark.skipif(not EMU_READY, reason="the CPU emulator (labs/emu) is not in this tree")
def test_reference_passes_the_hidden_cases_under_emulation():
    grader = Grader(load_lab("increment"), Source("solution", SOLUTIONS_DIR), emu=True, secret=SECRET,
                    log=lambda *_: None)
    grader.cases = [c for c in grader.cases if c.group == HIDDEN_GROUP]
    report = grader.grade()
    assert [r.verdict for r in report.results] == ["AC"] * 3
    assert "3 hidden cases" in report.notes  # what a student may see
    assert any("made from the secret in test (fingerprint" in n for n in report.staff_notes)  # the TA's
    assert not any("fingerprint" in n or "secret in" in n for n in report.notes)


def test_the_secrets_file_is_hidden_from_the_runs_however_the_grader_got_the_secret(tmp_path, monkeypatch):
    """A batch hands each Grader the secret it read, not the file: the file is hidden all the same."""
    monkeypatch.delenv("LABKIT_SECRET_FILE", raising=False)
    secret_file = tmp_path / "secret"
    secret_file.write_text("a secret of more than sixteen characters\n")
    grader = Grader(load_lab("increment"), Source("solution", SOLUTIONS_DIR), emu=True, sandbox="off",
                    secret=load_secret(secret_file), log=lambda *_: None)
    assert secret_file.resolve() in grader.runner.hide
