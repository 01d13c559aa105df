"""The sandbox kinds without namespaces (grader/confine.py, grader/sandbox_user.py), each doing
what a hostile program tries, with a small C program (fakes/hostile.c) and plain shell commands;
and the seal on an LMS's results (lms/seal.py)."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import grader.sandbox
from grader import confine, sandbox_user
from grader.sandbox import Mount, sandbox_for
from lms import seal

KINDS = {kind: grader.sandbox._probe(kind) for kind in ("user", "landlock")}


def kind_param(kind):
    return pytest.param(kind, marks=pytest.mark.skipif(not KINDS[kind].active, reason=KINDS[kind].why_off))


BOTH = [kind_param("user"), kind_param("landlock")]


def confined(kind: str, script: str, work: Path, view=()) -> subprocess.CompletedProcess:
    sandbox = KINDS[kind]
    argv = sandbox.wrap(["/bin/sh", "-c", script], work=work, view=list(view))
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=30, start_new_session=True)
    finally:
        sandbox.cleanup()


@pytest.fixture
def work(tmp_path):
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("kind", BOTH)
def test_only_the_view_is_read_and_only_the_work_folder_written(kind, work, tmp_path):
    secret = tmp_path / "answers.expected"
    secret.write_text("42\n")
    shown = tmp_path / "input.in"
    shown.write_text("7\n")
    proc = confined(kind, f'cat {shown}; cat {secret} && echo READ-IT; '
                          f'echo out > out.txt && echo WROTE-WORK; echo x > {tmp_path}/escaped && echo ESCAPED',
                    work, view=[Mount(shown)])
    assert "7" in proc.stdout and "WROTE-WORK" in proc.stdout, proc.stderr
    assert "READ-IT" not in proc.stdout and "42" not in proc.stdout
    assert "ESCAPED" not in proc.stdout and not (tmp_path / "escaped").exists()


@pytest.mark.parametrize("kind", BOTH)
def test_the_device_nodes_the_sandbox_names_are_written_what_it_shows_is_not(kind, work, tmp_path):
    """/dev/null is written (the sandbox lists it as a device, not by its folder's name); a shown
    file stays read-only."""
    shown = tmp_path / "input.in"
    shown.write_text("7\n")
    proc = confined(kind, f"echo x > /dev/null && echo NULL-WRITTEN; echo x >> {shown} && echo SHOWN-WRITTEN",
                    work, view=[Mount(shown)])
    assert "NULL-WRITTEN" in proc.stdout, proc.stderr
    assert "SHOWN-WRITTEN" not in proc.stdout and shown.read_text() == "7\n"


@pytest.mark.parametrize("kind", BOTH)
def test_a_folder_holding_a_hidden_file_is_listed_but_the_file_not_read(kind, work, tmp_path):
    """make lists labs/*/lab.toml in a build; a lab folder holding an instructor-only file
    (NOTES.md) must still be listed, while the file stays unread (Landlock allows READ_DIR on it)."""
    lab = tmp_path / "lab"
    lab.mkdir()
    (lab / "lab.toml").write_text("id = 1\n")
    (lab / "NOTES.md").write_text("the answers\n")
    sandbox = KINDS[kind]
    argv = sandbox.wrap(["/bin/sh", "-c", f"ls {lab}; cat {lab}/lab.toml; cat {lab}/NOTES.md"], work=work,
                        view=[Mount(lab)], hide=[lab / "NOTES.md"])
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=30, start_new_session=True)
    finally:
        sandbox.cleanup()
    assert "lab.toml" in proc.stdout and "id = 1" in proc.stdout, proc.stderr
    assert "the answers" not in proc.stdout


@pytest.mark.parametrize("kind", BOTH)
def test_no_network_and_no_signal_to_the_grader(kind, work):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    script = (f"python3 -c \"import socket; s = socket.socket(); s.settimeout(2); s.connect(('127.0.0.1', {port})); "
              f"print('CONNECTED')\" 2>/dev/null; kill -0 {os.getpid()} && echo SIGNALLED; kill -0 $$ && echo SELF")
    proc = confined(kind, script, work)
    listener.close()
    assert "CONNECTED" not in proc.stdout and "SIGNALLED" not in proc.stdout
    assert "SELF" in proc.stdout, proc.stderr


def test_the_user_kind_runs_as_a_user_that_owns_nothing_of_the_graders(work):
    if not KINDS["user"].active:
        pytest.skip(KINDS["user"].why_off)
    proc = confined("user", "id -u; id -G; cat /proc/1/environ >/dev/null 2>&1 && echo ENVIRON", work)
    uid = KINDS["user"].user.uid
    assert proc.stdout.split()[:2] == [str(uid), str(uid)], proc.stdout + proc.stderr  # no other group
    assert "ENVIRON" not in proc.stdout


def test_the_user_kind_ends_every_process_and_file_it_leaves(work):
    if not KINDS["user"].active:
        pytest.skip(KINDS["user"].why_off)
    uid = KINDS["user"].user.uid
    marker = f"/tmp/labkit-left-by-{uid}"
    confined("user", f"setsid sleep 300 >/dev/null 2>&1 < /dev/null & touch {marker}", work)
    assert sandbox_user.processes_of(uid) == [] and not os.path.exists(marker)


def test_the_seccomp_filter_is_well_formed_for_each_machine():
    for machine in confine.SYSCALLS:
        program = confine.seccomp_filter(machine, own_pid=1234)
        assert len(program) % 8 == 0 and len(program) // 8 < 200
        codes = [int.from_bytes(program[i:i + 2], "little") for i in range(0, len(program), 8)]
        assert codes[-1] == confine.BPF_RET_K  # falls through to allow, never off the end


def test_a_launcher_that_cannot_confine_says_so_and_runs_nothing(work):
    spec = json.dumps({"landlock": True, "read": [], "write": []})
    env = {**os.environ, "LABKIT_TEST": "1"}
    if not confine.landlock_abi():
        proc = subprocess.run(["python3", "-I", "-S", str(grader.sandbox.CONFINE), spec, "--", "true"],
                              capture_output=True, text=True, env=env)
        assert proc.returncode == 125 and proc.stderr.startswith("labkit-confine:")
    proc = subprocess.run(["python3", "-I", "-S", str(grader.sandbox.CONFINE), spec, "--", "no-such-program-here"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 125 and "not on the PATH" in proc.stderr


def test_each_report_names_the_protection():
    assert sandbox_for("off").describe() == "limits only"
    for kind, sandbox in KINDS.items():
        if sandbox.active:
            assert "seccomp" in sandbox.describe() and (kind != "user" or "sandbox user" in sandbox.describe())


# ---- the seal on an LMS's results.json ---------------------------------------------------------

def test_the_seal_keeps_only_the_runners_own_results(tmp_path):
    results, sealed = tmp_path / "results.json", tmp_path / "seal"
    results.write_text('{"score": 10}')
    assert seal.problem(results, sealed) == "the grader stopped before it wrote its results (it was killed, or it crashed)"
    seal.write(results, sealed)
    assert seal.problem(results, sealed) == ""
    results.write_text('{"score": 100}')  # a program that outlived the grader
    assert seal.problem(results, sealed) == "the results file was changed after the grader wrote it"
    assert seal.main(["--format", "gradescope", "--results", str(results), "--seal", str(sealed)]) == 0
    replaced = json.loads(results.read_text())
    assert replaced["score"] == 0 and "changed after the grader wrote it" in replaced["output"]


@pytest.mark.parametrize("kind", BOTH)
def test_a_submission_builds_in_each_kind_with_the_emulators_fiber_fallback(kind, tmp_path):
    """A GPU node without Boost.Context links the emulator's ucontext runtime (build/emu/*-ucontext):
    the build's view must hold whichever runtime emu.mk picks (found on an H100 node, where every
    emulated build in these kinds failed to link)."""
    from grader.paths import KIT_ROOT, SOLUTIONS_DIR
    proc = subprocess.run([sys.executable, "-m", "grader", "check", "increment", "--submission",
                           str(SOLUTIONS_DIR / "increment"), "--emu", "--no-checks", "--sandbox", kind],
                          capture_output=True, text=True, cwd=KIT_ROOT, timeout=600,
                          env={**os.environ, "EMU_FIBER": "ucontext"})
    assert "score: 100 / 100" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]
