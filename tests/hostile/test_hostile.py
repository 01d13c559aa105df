"""The hostile corpus (corpus.py) under the CPU emulator, graded in one batch with the sandbox
on, with it forced off, and off on a machine where no cgroup can be made (the watchdog alone
counts processes); and a hostile tarball at intake."""

import io
import tarfile

import pytest

import grader.limits
from grader.labs import load_lab
from grader.sandbox import sandbox_for
from grader.intake import SubmissionError, intake
from grader.testing import EMU_READY

from corpus import grade_corpus

needs_emu = pytest.mark.skipif(not EMU_READY, reason="the CPU emulator (labs/emu) is not in this tree")


@needs_emu
def test_corpus_with_the_sandbox_on():
    if not sandbox_for("auto").active:
        pytest.skip(f"bubblewrap cannot run here: {sandbox_for('auto').why_off}")
    assert grade_corpus(emu=True, sandbox="require") == []


@needs_emu
def test_corpus_with_the_sandbox_forced_off():
    assert grade_corpus(emu=True, sandbox="off") == []


@needs_emu
def test_corpus_with_the_sandbox_off_and_no_cgroups(monkeypatch):
    monkeypatch.setattr(grader.limits, "_own_cgroup", lambda controller: None)
    assert grade_corpus(emu=True, sandbox="off", names=["thread_bomb", "daemon", "huge_file", "host_loop", "chmod_workdir"]) == []


def _tarball(tmp_path, members):
    path = tmp_path / "hostile-submission.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _file(name, data=b"int x;\n"):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _link(name, target, kind=tarfile.SYMTYPE):
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info, None


@pytest.mark.parametrize("members, reason", [
    ([_file("increment/increment.c"), _file("increment/../../escape.c")], "points outside the submission folder"),
    ([_link("increment/increment.c", "../../solutions/increment/increment.c")], "is a link (to '../../solutions"),
    ([_file("increment/increment.c"), _link("increment/notes.c", "/etc/shadow", tarfile.LNKTYPE)], "is a link"),
])
def test_hostile_tarball_is_refused_at_intake_and_writes_nothing(members, reason, tmp_path):
    dest = tmp_path / "unpacked" / "src"
    with pytest.raises(SubmissionError, match=reason.replace("(", r"\(").replace(".", r"\.")):
        intake(_tarball(tmp_path, members), load_lab("increment"), dest)
    assert not dest.exists()
    assert not (tmp_path / "escape.c").exists() and not (tmp_path.parent / "escape.c").exists()
