"""Runs one program under limits (grader/limits.py), keeping only the first part of what it prints.

The program runs in its own session and process group; a watchdog thread of the grader checks it
every tick: past the wall-clock limit, past the process cap, or past the disk cap of its work
folder, everything it started is killed (the group, its cgroup, its sandbox's PID namespace,
and without a sandbox any process still in its session). The grader keeps at most
OUTPUT_KEEP_BYTES of stdout and of stderr, reading and dropping the rest, so a flood costs it
neither memory nor a stall.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from grader.limits import CaseCgroup, Limits, family, rlimits_for
from grader.program_files import scan_folder

OUTPUT_KEEP_BYTES = 64 * 1024  # of stdout and of stderr; the rest is read and dropped
MAX_WORK_ENTRIES = 10000  # files and folders a run may leave in its work folder


@dataclass
class RunOutcome:
    exit_code: int | None  # None when killed by a signal
    signal: int | None
    wall_s: float
    timed_out: bool
    stdout: str
    stderr: str
    stdout_cut: bool  # it printed more than OUTPUT_KEEP_BYTES; the rest was dropped
    stderr_cut: bool
    limit_hit: str = ""  # "processes", "memory" or "disk": killed (or refused) at that limit
    cpu_s: float = 0.0  # user + system CPU time of the program and the children it waited for
    sandbox_error: str = ""  # the sandbox itself did not start (the program never ran)
    limits: Limits | None = None
    stdout_bytes: int = 0  # all it printed, kept or not
    stderr_bytes: int = 0


class _Drain:
    """Reads a pipe to its end so the program never blocks on it; keeps the first bytes."""

    def __init__(self, stream):
        self.stream, self.kept, self.total = stream, bytearray(), 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while chunk := self.stream.read1(65536):
            room = OUTPUT_KEEP_BYTES - len(self.kept)
            if room > 0:
                self.kept += chunk[:room]
            self.total += len(chunk)
        self.stream.close()

    @property
    def cut(self) -> bool:
        return self.total > len(self.kept)

    def text(self) -> str:
        """What was kept; when the rest was dropped, up to its last whole line, so that a report
        (AddressSanitizer's, a race) is never read cut off mid-line."""
        kept = bytes(self.kept)
        if self.cut and b"\n" in kept:
            kept = kept[:kept.rindex(b"\n") + 1]
        return kept.decode("utf-8", "replace")


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_group(pid: int) -> None:
    """SIGKILL to a process group (a run's, a batch worker's); one already gone is no error."""
    _signal_group(pid, signal.SIGKILL)


def _system_tasks() -> int:
    """Processes and threads on the whole machine, from one small file (/proc/loadavg: 'R/T')."""
    try:
        with open("/proc/loadavg") as f:
            return int(f.read().split()[3].split("/")[1])
    except (OSError, IndexError, ValueError):
        return 1 << 30  # unknown: every tick does the full count


def _kill_family(leader: int) -> None:
    """Every process still in the program's session or below it (a daemon it left behind)."""
    for _ in range(5):
        kill_group(leader)  # one atomic kill for all that stayed in the group
        pids, _ = family(leader)
        pids = [p for p in pids if p != os.getpid()]
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.02)


def _kill_pipe_holders(inodes: set[int]) -> None:
    """Every process that still holds the program's stdout or stderr open: one that left its
    session and outlived its parent is found this way when nothing else finds it."""
    wanted = {f"pipe:[{inode}]" for inode in inodes}
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            fds = os.listdir(f"/proc/{name}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{name}/fd/{fd}") in wanted:
                    os.kill(int(name), signal.SIGKILL)
                    break
            except OSError:
                continue


def _child_setup(rlimits, procs_files):
    """Runs in the child between fork and exec: only system calls, no locks."""
    def setup():
        for which, soft, hard in rlimits:
            resource.setrlimit(which, (soft, hard))
        pid = str(os.getpid()).encode()
        for procs in procs_files:
            fd = os.open(procs, os.O_WRONLY)
            os.write(fd, pid)
            os.close(fd)
    return setup


class _Watchdog:
    def __init__(self, proc: subprocess.Popen, limits: Limits | None, cgroup: CaseCgroup | None):
        self.proc, self.limits, self.cgroup = proc, limits, cgroup
        self.limit_hit = ""
        self.next_disk_check = 0.0
        self.tasks_at_start = _system_tasks()

    def over_a_limit(self) -> str:
        limits = self.limits
        if limits is None:
            return ""
        if limits.processes:
            if self.cgroup is not None and self.cgroup.pids is not None:
                if self.cgroup.hit_limit("processes"):
                    return "processes"
            elif _system_tasks() - self.tasks_at_start > limits.processes:
                # Only when the machine as a whole has grown by more than the cap is it worth
                # counting this program's own: a scan of /proc, done with the program's group
                # stopped so that a fork bomb cannot outgrow the scan.
                _signal_group(self.proc.pid, signal.SIGSTOP)
                _, tasks = family(self.proc.pid)
                if tasks > limits.processes:
                    return "processes"
                _signal_group(self.proc.pid, signal.SIGCONT)
                self.tasks_at_start = _system_tasks() - tasks  # others grew, not this program
        now = time.monotonic()
        if now >= self.next_disk_check:
            self.next_disk_check = now + 0.1
            return self.over_the_disk_cap()
        return ""

    def over_the_disk_cap(self) -> str:
        """'disk' when the work folder holds more than its cap. Polled while the program runs, and
        once more after every process of it has ended: what it left there is measured whatever it
        did to the folder's modes, and a write faster than the poll does not outrun that last look."""
        limits = self.limits
        if limits is None or not limits.disk_bytes or not limits.work_dir:
            return ""
        used, entries = scan_folder(limits.work_dir, MAX_WORK_ENTRIES)
        return "disk" if used > limits.disk_bytes or entries > MAX_WORK_ENTRIES else ""


CONFINE_EXEC = "labkit-confine"  # the "exec" of confine.py's status record (bubblewrap's has none)


def _status_records(data: bytes) -> list[dict]:
    """The sandbox's status records (bubblewrap's --json-status-fd, confine.py's status_fd): JSON
    objects one after the other; reading stops at the first that is not one."""
    rest, records = data.decode("utf-8", "replace").strip(), []
    while rest:
        try:
            record, end = json.JSONDecoder().raw_decode(rest)
        except ValueError:
            break
        if isinstance(record, dict):
            records.append(record)
        rest = rest[end:].lstrip()
    return records


def run_program(argv: list[str], *, time_limit_s: float, cwd: Path | None = None,
                env: dict[str, str] | None = None, limits: Limits | None = None,
                wrap: Callable[[list[str], int], list[str]] | None = None,
                own_pid_namespace: bool = True, cleanup: Callable[[], None] | None = None) -> RunOutcome:
    """Runs argv in its own session under limits; wrap(argv, status_fd) puts it in a sandbox
    (own_pid_namespace: one whose processes all die with it, as bubblewrap's; cleanup: what
    ends the rest, as the sandbox user's kill_all)."""
    cgroup = CaseCgroup(limits) if limits else None
    rlimits = rlimits_for(limits) if limits else []
    status_r = status_w = None
    if wrap is not None:
        status_r, status_w = os.pipe()
        argv = wrap(argv, status_w)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                                pass_fds=(status_w,) if status_w is not None else (),
                                preexec_fn=_child_setup(rlimits, cgroup.procs_files() if cgroup else []))
    finally:
        if status_w is not None:
            os.close(status_w)
    pipe_inodes = {os.fstat(proc.stdout.fileno()).st_ino, os.fstat(proc.stderr.fileno()).st_ino}
    out, err = _Drain(proc.stdout), _Drain(proc.stderr)
    watchdog = _Watchdog(proc, limits, cgroup)
    tick = 0.1 if cgroup is not None and cgroup.pids is not None else 0.25
    timed_out = False
    rusage = None
    while True:
        pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            break
        elapsed = time.monotonic() - start
        if elapsed > time_limit_s:
            timed_out = True
        else:
            watchdog.limit_hit = watchdog.over_a_limit()
        if timed_out or watchdog.limit_hit:
            kill_group(proc.pid)
            if cgroup is not None:
                cgroup.kill_all()
            _, status, rusage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            break
        time.sleep(min(tick, max(0.005, elapsed / 10)))  # short runs are seen to end at once
    wall_s = time.monotonic() - start
    # Children it left behind die with it: its group, its cgroup, its sandbox, its session.
    kill_group(proc.pid)
    if cgroup is not None:
        if not watchdog.limit_hit and cgroup.hit_limit("memory"):
            watchdog.limit_hit = "memory"
        if not watchdog.limit_hit and cgroup.hit_limit("processes"):
            watchdog.limit_hit = "processes"
        cgroup.remove()
    if not (wrap is not None and own_pid_namespace) and (cgroup is None or cgroup.pids is None):
        _kill_family(proc.pid)  # in bubblewrap, its PID namespace has ended them all already
    if cleanup is not None:
        cleanup()
    if not watchdog.limit_hit:
        watchdog.limit_hit = watchdog.over_the_disk_cap()
    for drain in (out, err):
        drain.thread.join(timeout=0.1)
    if out.thread.is_alive() or err.thread.is_alive():
        _kill_pipe_holders(pipe_inodes)
    out.thread.join(timeout=5)
    err.thread.join(timeout=5)
    code = proc.returncode
    exit_code, sig = (code, None) if code >= 0 else (None, -code)
    sandbox_error = ""
    if status_r is not None:
        with os.fdopen(status_r, "rb") as f:
            statuses = _status_records(f.read(65536))
        started = any("child-pid" in status for status in statuses)
        if not started and not timed_out and not watchdog.limit_hit:
            lines = err.text().strip().splitlines() or [f"bwrap exit status {code}"]
            # Why is the last line: bwrap's fatal error, or the exception that ends the sandbox's
            # own launcher's (labkit-confine's) traceback.
            sandbox_error = lines[-1]
        elif exit_code is not None and 128 < exit_code <= 128 + 64 and \
                not any(status.get("exec") == CONFINE_EXEC for status in statuses):
            # bwrap passes a child's death by signal N on as exit status 128 + N.
            exit_code, sig = None, exit_code - 128
    cpu_s = (rusage.ru_utime + rusage.ru_stime) if rusage else 0.0
    return RunOutcome(
        exit_code=exit_code,
        signal=sig,
        wall_s=wall_s,
        timed_out=timed_out,
        stdout=out.text(),
        stderr=err.text(),
        stdout_cut=out.cut,
        stderr_cut=err.cut,
        limit_hit=watchdog.limit_hit,
        cpu_s=cpu_s,
        sandbox_error=sandbox_error,
        limits=limits,
        stdout_bytes=out.total,
        stderr_bytes=err.total,
    )

