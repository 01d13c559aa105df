"""The sandbox and the limits, with a small C program that misbehaves on request
(fakes/hostile.c), run through grade.run_case with the sandbox on and forced off."""

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

import grader.limits
import grader.sandbox
from grader.case_run import judge, run_case
from grader.sandbox import SandboxError, clean_env, sandbox_for
from grader.verdict import AC, RE, TLE, WA

from support import FAKES, fake_lab, ready

SANDBOX = sandbox_for("auto")
MODES = [pytest.param("on", marks=pytest.mark.skipif(not SANDBOX.active, reason=f"no sandbox: {SANDBOX.why_off}")),
         "off"]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    path = tmp_path_factory.mktemp("bin") / "hostile"
    subprocess.run(["gcc", "-O1", "-o", str(path), str(FAKES / "hostile.c")], check=True)
    return path


def run(hostile, expected_file, tmp_path, mode, *args, sandbox="off", time_limit_s=5.0, hide=()):
    from support import fake_case
    case = fake_case(mode=mode, time_limit_s=time_limit_s)
    case = type(case)(**{**case.__dict__, "args": (mode, "{output}", *map(str, args))})
    r = ready(case, expected_file)
    outcome, output, _ = run_case(hostile, r, tmp_path / "work", sandbox=SANDBOX if sandbox == "on" else None,
                                  hide=hide)
    return judge(fake_lab([case]), r, outcome, output), outcome


@pytest.mark.parametrize("sandbox", MODES)
def test_right_answer(sandbox, hostile, expected_file, tmp_path):
    (verdict, _), _ = run(hostile, expected_file, tmp_path, "right", sandbox=sandbox)
    assert verdict == AC


@pytest.mark.parametrize("sandbox", MODES)
def test_expected_output_is_out_of_sight(sandbox, hostile, expected_file, tmp_path):
    (verdict, reason), _ = run(hostile, expected_file, tmp_path, "steal", expected_file, sandbox=sandbox)
    if sandbox == "on":
        assert verdict == RE and "No such file" in reason
    else:
        assert verdict == AC  # the hole the sandbox closes: the report says it was off


@pytest.mark.parametrize("sandbox", MODES)
def test_writes_outside_the_work_folder(sandbox, hostile, expected_file, tmp_path):
    target = tmp_path / "outside.txt"
    (verdict, _), _ = run(hostile, expected_file, tmp_path, "escape", target, sandbox=sandbox)
    assert verdict == AC
    assert target.exists() == (sandbox == "off")


@pytest.mark.parametrize("sandbox", MODES)
def test_network(sandbox, hostile, expected_file, tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.5)
    (verdict, _), outcome = run(hostile, expected_file, tmp_path, "connect", listener.getsockname()[1], sandbox=sandbox)
    try:
        conn, _ = listener.accept()
        heard = conn.recv(16)
    except OSError:
        heard = b""
    listener.close()
    assert verdict == AC
    assert heard == (b"" if sandbox == "on" else b"stolen")


@pytest.mark.parametrize("sandbox", MODES)
@pytest.mark.parametrize("cgroups", [True, False])
def test_fork_bomb_is_stopped(sandbox, cgroups, hostile, expected_file, tmp_path, monkeypatch):
    if not cgroups:
        monkeypatch.setattr(grader.limits, "_own_cgroup", lambda controller: None)
    (verdict, reason), outcome = run(hostile, expected_file, tmp_path, "forkbomb", sandbox=sandbox, time_limit_s=20)
    assert (verdict, outcome.limit_hit) == (RE, "processes")
    assert "processes and threads at once" in reason
    assert outcome.wall_s < 15


@pytest.mark.parametrize("sandbox", MODES)
@pytest.mark.parametrize("cgroups", [True, False])
def test_nothing_is_left_running(sandbox, cgroups, hostile, expected_file, tmp_path, monkeypatch):
    if not cgroups:
        monkeypatch.setattr(grader.limits, "_own_cgroup", lambda controller: None)
    marker = f"labkit-test-daemon-{os.getpid()}-{sandbox}-{cgroups}"
    (verdict, _), outcome = run(hostile, expected_file, tmp_path, "daemon", marker, sandbox=sandbox)
    assert verdict == AC
    assert outcome.wall_s < 3  # nothing held the grader's pipes open
    alive = [p for p in os.listdir("/proc") if p.isdigit() and _cmdline_has(p, marker)]
    assert alive == []


def _cmdline_has(pid, marker):
    try:
        return marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


@pytest.mark.parametrize("sandbox", MODES)
def test_huge_file_stops_at_the_file_size_limit(sandbox, hostile, expected_file, tmp_path):
    (verdict, reason), _ = run(hostile, expected_file, tmp_path, "bigfile", sandbox=sandbox)
    assert verdict == RE and "SIGXFSZ" in reason and "64 MB" in reason


@pytest.mark.parametrize("sandbox", MODES)
@pytest.mark.parametrize("mode, verdict, reason", [
    ("segv", RE, "killed by SIGSEGV"), ("abort", RE, "killed by SIGABRT"),
    ("nothing", WA, "wrote no output file"), ("spin", TLE, "time limit of 1 s"),
])
def test_crashes_and_hangs(sandbox, mode, verdict, reason, hostile, expected_file, tmp_path):
    (got, why), _ = run(hostile, expected_file, tmp_path, mode, sandbox=sandbox, time_limit_s=1)
    assert got == verdict and reason in why


@pytest.mark.parametrize("sandbox", MODES)
def test_flood_is_cut_and_said(sandbox, hostile, expected_file, tmp_path):
    (verdict, reason), outcome = run(hostile, expected_file, tmp_path, "flood", sandbox=sandbox)
    assert verdict == AC
    assert "printed 41.0 MB to stdout; the grader kept the first 64 KiB of it" in reason
    assert len(outcome.stdout) <= 64 * 1024


@pytest.mark.parametrize("sandbox", MODES)
def test_the_secret_never_reaches_the_program(sandbox, hostile, expected_file, tmp_path, monkeypatch):
    monkeypatch.setenv("LABKIT_SECRET", "s3cret-s3cret-s3cret")
    (verdict, reason), _ = run(hostile, expected_file, tmp_path, "env", "LABKIT_SECRET", sandbox=sandbox)
    assert (verdict, reason) == (RE, "exited with status 7: LABKIT_SECRET=(not set)")


@pytest.mark.skipif(not SANDBOX.active, reason="no sandbox here")
def test_a_secret_file_under_a_visible_folder_is_hidden(hostile, expected_file, tmp_path):
    # /usr is in view; a secret kept there (or wherever the sandbox shows) is masked.
    (verdict, reason), _ = run(hostile, expected_file, tmp_path, "steal", "/etc/passwd", sandbox="on",
                               hide=(Path("/etc/passwd"),))
    assert verdict == WA  # it read an empty file, not the real one


def test_clean_env_keeps_only_what_a_program_needs():
    env = clean_env({"PATH": "/bin", "LABKIT_SECRET": "x", "LABKIT_SECRET_FILE": "/s", "CUDA_VISIBLE_DEVICES": "1",
                     "AWS_SECRET_ACCESS_KEY": "k", "HOME": "/root", "EMU_SCHEDULE": "random:3"},
                    LABKIT_RESULT="/w/r.json")
    assert env == {"PATH": "/bin", "CUDA_VISIBLE_DEVICES": "1", "EMU_SCHEDULE": "random:3", "HOME": "/tmp",
                   "ASAN_OPTIONS": "detect_leaks=0:detect_stack_use_after_return=0:exitcode=23", "LABKIT_RESULT": "/w/r.json"}


def test_clean_env_keeps_asan_options_given():
    assert clean_env({"ASAN_OPTIONS": "detect_leaks=1"})["ASAN_OPTIONS"] == "detect_leaks=1"


def test_where_no_kind_works_a_submission_is_refused_and_off_must_be_asked_for(monkeypatch):
    monkeypatch.setenv("LABKIT_BWRAP", "none")
    monkeypatch.setenv("LABKIT_LANDLOCK", "off")
    monkeypatch.setattr(grader.sandbox.os, "geteuid", lambda: 1000)  # no sandbox user either
    grader.sandbox._probe.cache_clear()
    try:
        own_code = sandbox_for("auto")
        assert not own_code.active and "bubblewrap is not installed" in own_code.why_off
        assert "Landlock is not available" in own_code.why_off and "root" in own_code.why_off
        with pytest.raises(SandboxError, match="refusing to grade a submission.*--sandbox off"):
            sandbox_for("auto", submission=True)
        with pytest.raises(SandboxError, match="refusing"):
            sandbox_for("require")
        with pytest.raises(SandboxError, match="the sandbox landlock was asked for but Landlock is not available"):
            sandbox_for("landlock")
        monkeypatch.setenv("LABKIT_SANDBOX", "off")
        assert "turned off by name" in sandbox_for(None, submission=True).why_off
    finally:
        grader.sandbox._probe.cache_clear()
