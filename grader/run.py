"""Runs one program with a wall-clock limit, keeping only the first part of what it prints."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

OUTPUT_KEEP_BYTES = 64 * 1024  # of stdout and of stderr; the rest is read and dropped


@dataclass
class RunOutcome:
    exit_code: int | None  # None when killed by a signal
    signal: int | None
    wall_s: float
    timed_out: bool
    stdout: str
    stderr: str
    stdout_cut: bool
    stderr_cut: bool


def _drain(stream, keep: bytearray, cut: list[bool]) -> None:
    """Reads a pipe to its end so the program never blocks on it; keeps the first bytes."""
    while chunk := stream.read(65536):
        room = OUTPUT_KEEP_BYTES - len(keep)
        if room > 0:
            keep += chunk[:room]
        if len(chunk) > room:
            cut[0] = True
    stream.close()


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_program(argv: list[str], *, time_limit_s: float, cwd: Path | None = None,
                env: dict[str, str] | None = None) -> RunOutcome:
    """Runs argv in its own process group; on the time limit the whole group is killed."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    kept = {"out": bytearray(), "err": bytearray()}
    cut = {"out": [False], "err": [False]}
    readers = [threading.Thread(target=_drain, args=(proc.stdout, kept["out"], cut["out"])),
               threading.Thread(target=_drain, args=(proc.stderr, kept["err"], cut["err"]))]
    for reader in readers:
        reader.start()
    timed_out = False
    try:
        proc.wait(timeout=time_limit_s)
    except subprocess.TimeoutExpired:
        timed_out = True
    # Children the program left behind (or the program itself, on a time-out) die with it.
    _kill_group(proc)
    proc.wait()
    wall_s = time.monotonic() - start
    for reader in readers:
        reader.join(timeout=5)
    code = proc.returncode
    return RunOutcome(
        exit_code=code if code >= 0 else None,
        signal=-code if code < 0 else None,
        wall_s=wall_s,
        timed_out=timed_out,
        stdout=kept["out"].decode("utf-8", "replace"),
        stderr=kept["err"].decode("utf-8", "replace"),
        stdout_cut=cut["out"][0],
        stderr_cut=cut["err"][0],
    )
