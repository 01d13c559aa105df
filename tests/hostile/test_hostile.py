"""The hostile corpus (corpus.py) under the CPU emulator, graded in one batch in each sandbox
kind (bubblewrap; as root without namespaces, the sandbox user with file permissions alone, the
floor of an LMS container; Landlock, as on a cluster node without user namespaces), with it
forced off, and off on a machine where no cgroup can be made (the watchdog alone counts
processes); the submissions that kill every process they can, in a PID namespace of their own;
and a hostile tarball at intake."""

import io
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import grader.limits
import grader.sandbox
from grader.labs import load_lab
from grader.sandbox import sandbox_for
from grader.intake import SubmissionError, intake
from grader.testing import EMU_READY, whole_run

from corpus import EXPECTED, grade_corpus

needs_emu = pytest.mark.skipif(not EMU_READY, reason="the CPU emulator (labs/emu) is not in this tree")


@needs_emu
def test_corpus_with_the_sandbox_on():
    if not sandbox_for("auto").active:
        pytest.skip(f"bubblewrap cannot run here: {sandbox_for('auto').why_off}")
    assert grade_corpus(emu=True, sandbox="require") == []


# What each sandbox kind confines its own way (grader/SECURITY.md): the files a build or run may
# open or write, the network, the processes killed after a run. The rest of the corpus (refused
# at the symbol check, compiler bombs, crashes, the grader's own checks on the output) meets the
# same code in every kind, and runs whole above with bubblewrap; the whole corpus in every kind
# with LABKIT_EVERY_LAB=1 (tests/every_lab.sh), about two minutes more.
CONFINED_BY_EACH_KIND = ["steal_expected", "steal_solution", "write_outside", "network", "read_secret",
                         "include_solution", "include_build", "incbin_expected", "walk_expected", "chmod_workdir",
                         "output_hardlink", "thread_bomb", "host_loop"]


@needs_emu
@pytest.mark.parametrize("kind, landlock", [("user", "off"), ("landlock", "on")])
def test_corpus_without_namespaces(kind, landlock, monkeypatch):
    monkeypatch.setenv("LABKIT_LANDLOCK", landlock)  # the user kind with permissions alone: its floor
    grader.sandbox._probe.cache_clear()
    try:
        sandbox = grader.sandbox._probe(kind)
        if not sandbox.active:
            pytest.skip(f"the {kind} sandbox cannot run here: {sandbox.why_off}")
        assert grade_corpus(emu=True, sandbox=kind, names=None if whole_run() else CONFINED_BY_EACH_KIND) == []
    finally:
        grader.sandbox._probe.cache_clear()


def _pid_namespace_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "true"], capture_output=True).returncode == 0


@needs_emu
@pytest.mark.parametrize("kind", ["bubblewrap", "user", "landlock"])
def test_corpus_that_kills_every_process_in_a_pid_namespace(kind):
    if not grader.sandbox._probe(kind).active:
        pytest.skip(f"the {kind} sandbox cannot run here: {grader.sandbox._probe(kind).why_off}")
    if not _pid_namespace_works():
        pytest.skip("unshare --pid cannot run here: the submissions that kill are not run")
    corpus = Path(__file__).with_name("corpus.py")
    proc = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", sys.executable, str(corpus),
                           "--sandbox", kind, "forge_results", "walk_expected"],
                          capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.returncode == 0 and "2 passed, 0 failed" in proc.stdout, proc.stdout + proc.stderr


# With the sandbox forced off: each hole SECURITY.md names (the entries with a verdict of their
# own there) and what the limits alone must stop. The whole corpus off, a few minutes more:
#     python3 tests/hostile/corpus.py --sandbox off
LIMITS_ALONE = ["thread_bomb", "daemon", "huge_file", "host_loop", "chmod_workdir"]  # cgroups or none
HOLES = [name for name, expect in EXPECTED.items() if expect.verdict_off and not expect.kills]


@needs_emu
def test_corpus_with_the_sandbox_forced_off():
    # stdout_flood: the grader's cap on output; read_secret: the secret kept out of the environment
    assert grade_corpus(emu=True, sandbox="off", names=HOLES + LIMITS_ALONE + ["stdout_flood", "read_secret"]) == []


@needs_emu
def test_corpus_with_the_sandbox_off_and_no_cgroups(monkeypatch):
    monkeypatch.setattr(grader.limits, "_own_cgroup", lambda controller: None)
    assert grade_corpus(emu=True, sandbox="off", names=LIMITS_ALONE) == []


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
