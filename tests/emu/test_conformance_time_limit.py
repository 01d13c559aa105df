"""labs/emu/conformance/time_limit.py: with the CPU clock, a program that waits has not used up
its limit however long it waits (until the wall-clock backstop), and one that computes has; the
runners' one way to run a build or a program (run_limited) stops its whole process group at
its limit or at the conformance run's end."""

import importlib.util
import os
import subprocess
import sys
import time

CONFORMANCE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "labs", "emu", "conformance")
sys.path.insert(0, CONFORMANCE)
from time_limit import WALL_BACKSTOP, cpu_seconds, describe, over_limit  # noqa: E402


def test_a_waiting_program_is_over_a_wall_limit_only():
    waiting = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert over_limit(waiting.pid, elapsed=2.0, limit=1.0, clock="wall")
        assert not over_limit(waiting.pid, elapsed=2.0, limit=1.0, clock="cpu")
        assert over_limit(waiting.pid, elapsed=WALL_BACKSTOP * 1.0 + 1, limit=1.0, clock="cpu")
    finally:
        waiting.kill()
        waiting.wait()


def test_a_computing_program_is_over_a_cpu_limit_once_it_has_had_that_much_cpu():
    spinning = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        while (cpu_seconds(spinning.pid) or 0) < 0.3:
            time.sleep(0.05)
        assert over_limit(spinning.pid, elapsed=0.1, limit=0.2, clock="cpu")
    finally:
        spinning.kill()
        spinning.wait()
    assert cpu_seconds(spinning.pid) is None  # gone: /proc has nothing to say
    assert describe(60, "cpu") == "60 s of CPU" and describe(60, "wall") == "60 s"


def test_run_limited_keeps_the_output_and_stops_a_run_at_its_limit_or_at_the_end():
    from time_limit import run_limited

    done = run_limited([sys.executable, "-c", "print('PASS'); raise SystemExit(3)"], ".", limit=30)
    assert (done.output.strip(), done.returncode, done.stopped) == ("PASS", 3, "")
    # The group goes: a child the program started (make's compiler) must not outlive the limit.
    family = "import subprocess, sys, time; child = subprocess.Popen([sys.executable, '-c', 'import time; " \
             "time.sleep(60)']); print(child.pid, flush=True); time.sleep(60)"
    over = run_limited([sys.executable, "-c", family], ".", limit=1.0)
    assert over.stopped == "limit" and over.returncode < 0
    child = int(over.output.split()[0])
    for _ in range(100):  # SIGKILL closes its files (the pipe) a moment before it has ended
        if not _alive(child):
            break
        time.sleep(0.05)
    assert not _alive(child)
    cut = run_limited([sys.executable, "-c", "import time; time.sleep(60)"], ".", limit=30, end=time.monotonic() + 0.5)
    assert cut.stopped == "end"


def _alive(pid):
    """Whether pid is a process that has not ended (a zombie no one reaped has ended)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_run_py_counts_a_run_the_end_cut_short_as_not_run_and_one_past_its_limit_as_a_timeout():
    # By its path: "run" alone could name another module of a test session.
    spec = importlib.util.spec_from_file_location("conformance_run", os.path.join(CONFORMANCE, "run.py"))
    conformance_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conformance_run)

    sleeper = {"args": ["-c", "import time; time.sleep(60)"]}
    status, *_ = conformance_run.run_program(sleeper, sys.executable, ".", 30, end=time.monotonic() + 0.5)
    assert status == "not_run"
    status, _, _, output = conformance_run.run_program(sleeper, sys.executable, ".", 0.5)
    assert status == "timeout" and "no exit after 0.5 s" in output
    status, *_ = conformance_run.run_program({"args": ["-c", "print('Test failed')"]}, sys.executable, ".", 30)
    assert status == "failed"
