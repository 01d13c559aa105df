"""Labs 1 and 2 walked through in the student edition under the emulator, as a student types
them (tests/kit/student_walkthrough.py; run it with no lab for every lab's handout)."""

import shutil

import pytest

from grader.gpu import has_gpu
from grader.paths import SOLUTIONS_DIR

import student_walkthrough


@pytest.mark.skipif(shutil.which("pandoc") is None, reason="pandoc is not installed (make deps): the handouts cannot be read")
@pytest.mark.skipif(has_gpu(), reason="the walk is the student's without a GPU (./build/starter/... is the emulator's)")
@pytest.mark.skipif(not (SOLUTIONS_DIR / "increment").is_dir(), reason="needs the reference solutions (the instructor edition)")
def test_labs_1_and_2_walk_through_as_their_handouts_say(capsys):
    status = student_walkthrough.main(["increment", "matmul"])
    out = capsys.readouterr().out
    assert status == 0, out[-6000:]
    assert "BAD" not in out
