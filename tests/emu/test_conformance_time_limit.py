"""labs/emu/conformance/time_limit.py: with the CPU clock, a program that waits has not used up
its limit however long it waits (until the wall-clock backstop), and one that computes has."""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "labs", "emu", "conformance"))
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
