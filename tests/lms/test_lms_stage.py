"""Where the runner finds a student's files in what the LMS hands it (lms/runner.py)."""

import os

import pytest

from lms.kit import CaseInfo, LabInfo
from lms.runner import GraderFailure, StudentError, stage_submission

INFO = LabInfo("lab", "A lab", ["prog", "other"], [CaseInfo("one", 1)], False, 100)


def files(root, **named):
    for rel, text in named.items():
        path = root / rel.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_files_are_found_anywhere_the_shallowest_first(tmp_path):
    sub = files(tmp_path / "sub", **{"old__deep__er__prog.c": "deep", "starter__lab__prog.c": "mine",
                                     "starter__lab__other.c": "o", "notes.txt": "x"})
    staged = stage_submission(sub, INFO, tmp_path / "stage")
    assert sorted(p.name for p in (staged / "lab").iterdir()) == ["other.c", "prog.c"]
    assert (staged / "lab" / "prog.c").read_text() == "mine"


def test_one_tarball_is_handed_to_the_grader_as_it_is(tmp_path):
    sub = files(tmp_path / "sub", **{"lab-submission.tar.gz": "tar"})
    assert stage_submission(sub, INFO, tmp_path / "stage") == sub / "lab-submission.tar.gz"


def test_missing_files_say_what_to_upload(tmp_path):
    sub = files(tmp_path / "sub", **{"prog.c": "p", "a.tar.gz": "1", "b.tar.gz": "2"})
    with pytest.raises(StudentError, match=r"has no other\.c; found 2 tarballs .* upload only one\. Lab lab needs "
                                           r"prog\.c, other\.c"):
        stage_submission(sub, INFO, tmp_path / "stage")


def test_a_link_is_never_followed(tmp_path):
    outside = files(tmp_path / "outside", **{"prog.c": "secret", "other.c": "secret"})
    sub = tmp_path / "sub"
    sub.mkdir()
    os.symlink(outside / "prog.c", sub / "prog.c")
    os.symlink(outside, sub / "dir")
    files(sub, **{"other.c": "o"})
    with pytest.raises(StudentError, match="has no prog.c"):
        stage_submission(sub, INFO, tmp_path / "stage")


def test_no_submission_folder_is_the_lms_fault(tmp_path):
    with pytest.raises(GraderFailure, match="does not exist"):
        stage_submission(tmp_path / "none", INFO, tmp_path / "stage")
