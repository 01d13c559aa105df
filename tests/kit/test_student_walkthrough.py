"""Lab 1 walked through in the student edition under the emulator, as a student types it
(tests/kit/student_walkthrough.py; with no lab, as tests/every_lab.sh runs it, every lab's
handout: lab 2's alone is a minute and a half more)."""

import shutil

import pytest

from grader.gpu import has_gpu
from grader.paths import SOLUTIONS_DIR

import student_walkthrough


@pytest.mark.skipif(shutil.which("pandoc") is None, reason="pandoc is not installed (make deps): the handouts cannot be read")
@pytest.mark.skipif(has_gpu(), reason="the walk is the student's without a GPU (./build/starter/... is the emulator's)")
@pytest.mark.skipif(not (SOLUTIONS_DIR / "increment").is_dir(), reason="needs the reference solutions (the instructor edition)")
def test_lab_1_walks_through_as_its_handout_says(capsys):
    status = student_walkthrough.main(["increment"])
    out = capsys.readouterr().out
    assert status == 0, out[-6000:]
    assert "BAD" not in out
