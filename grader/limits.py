"""The limits a testcase runs under, and the kernel mechanisms that enforce them.

    wall time        the grader's clock; the whole process group (and sandbox) is killed
    CPU time         RLIMIT_CPU: SIGXCPU, then SIGKILL a second later
    file size        RLIMIT_FSIZE: a write past it fails and raises SIGXFSZ
    processes        a pids cgroup (pids.max) where the grader may make one; a watchdog that
                     counts them always; RLIMIT_NPROC when the grader is not root (root ignores
                     it), as a backstop with room for the account's other gradings (nproc_cap)
    memory           a memory cgroup where the grader may make one; otherwise not limited
    disk             the watchdog adds up the case's work folder and kills past the cap
    data (builds)    RLIMIT_DATA: each compiler process's heap, where no memory cgroup can be made

A lab may set its own in lab.toml (defaults in LabLimits):

    [limits]
    output_mb = 2048      # the biggest file a case may write (default: 2 x expected + 64 MB)
    processes = 256       # processes and threads at once (default: 256, or 2 per core + 64)
    memory_mb = 16384     # host memory, where a memory cgroup can be made
"""

from __future__ import annotations

import os
import resource
import signal
import time
from dataclasses import dataclass
from pathlib import Path


MB = 1 << 20
CGROUP_ROOT = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class LabLimits:
    output_mb: float | None = None  # None: from the expected output's size
    processes: int | None = None  # None: 256, more on a machine whose cores the emulator fills with threads
    memory_mb: float | None = None  # None: half the machine's memory


@dataclass(frozen=True)
class Limits:
    """What one run may use. None: not limited."""
    wall_s: float
    cpu_s: int | None = None
    file_bytes: int | None = None
    processes: int | None = None
    memory_bytes: int | None = None
    disk_bytes: int | None = None  # all files under the work folder together
    work_dir: Path | None = None
    data_bytes: int | None = None  # RLIMIT_DATA, each process's heap (builds: a compiler in a loop)

    @staticmethod
    def for_case(lab_limits: LabLimits, *, time_limit_s: float, expected_bytes: int,
                 work_dir: Path | None) -> "Limits":
        if lab_limits.output_mb is not None:
            file_bytes = int(lab_limits.output_mb * MB)
        else:
            file_bytes = 2 * expected_bytes + 64 * MB
        memory = lab_limits.memory_mb * MB if lab_limits.memory_mb else _half_the_memory()
        return Limits(
            wall_s=time_limit_s,
            # CPU time adds up over threads (the emulator runs a block per core): a backstop for
            # a process that outlives the wall clock, not the limit a student meets first.
            cpu_s=int(time_limit_s * max(1, os.cpu_count() or 1)) + 10,
            file_bytes=file_bytes,
            processes=lab_limits.processes or max(256, 2 * (os.cpu_count() or 1) + 64),
            memory_bytes=int(memory),
            disk_bytes=4 * file_bytes,
            work_dir=work_dir,
        )


@dataclass(frozen=True)
class TimeLimitRule:
    """A case's time limit from the reference solution's time on this machine: `factor` times
    it, at least `floor_s`, at most the case's own limit (a program that loops forever then
    costs seconds, not the minute a GPU-sized case allows)."""
    factor: float
    floor_s: float

    def limit(self, case_limit_s: float, reference_wall_s: float) -> float:
        return min(case_limit_s, max(self.floor_s, self.factor * reference_wall_s))

    def describe(self) -> str:
        return f"{self.factor:g} x the reference solution's time here, at least {self.floor_s:g} s, at most the case's own"


GRADING_TIME_LIMITS = TimeLimitRule(factor=50, floor_s=30.0)
# Mutants are the reference with one change: tighter, so a looping mutant costs seconds.
MUTANT_TIME_LIMITS = TimeLimitRule(factor=10, floor_s=5.0)


def _half_the_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError):
        return 8 << 30


# ---- rlimits (set in the child between fork and exec) --------------------------------------

def user_task_count(uid: int) -> int:
    """Processes and threads the user runs now, machine-wide (what RLIMIT_NPROC counts)."""
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == uid:
                count += len(os.listdir(f"/proc/{entry.name}/task"))
        except OSError:
            continue
    return count


# RLIMIT_NPROC counts every task of the user, machine-wide: where the grader is not root, all the
# gradings of one account share it (a batch's workers side by side, another TA's terminal). A cap of
# this run's tasks over the count at its start would fail the builds and runs of the gradings beside
# it as soon as they grow (fourteen gradings at once as one user on a 32-core GPU node made an
# honest submission's build CE). So the kernel's cap leaves this much room for the others, and the
# watchdog (run.py), which counts this program's own tasks, holds it to its cap.
OTHERS_TASKS = 4096


def nproc_cap(processes: int) -> int:
    """RLIMIT_NPROC for a run allowed `processes` tasks, where the grader is not root: the user's
    tasks now, this run's, room for the account's other gradings, never past the hard limit the
    account has (which a user cannot raise)."""
    cap = user_task_count(os.geteuid()) + processes + OTHERS_TASKS
    hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    return cap if hard == resource.RLIM_INFINITY else min(cap, hard)


def rlimits_for(limits: Limits) -> list[tuple[int, int, int]]:
    """(resource, soft, hard) for each rlimit that applies."""
    out = []
    if limits.cpu_s:
        out.append((resource.RLIMIT_CPU, limits.cpu_s, limits.cpu_s + 1))
    if limits.file_bytes:
        out.append((resource.RLIMIT_FSIZE, limits.file_bytes, limits.file_bytes))
    if limits.data_bytes:
        out.append((resource.RLIMIT_DATA, limits.data_bytes, limits.data_bytes))
    if limits.processes and os.geteuid() != 0:
        cap = nproc_cap(limits.processes)
        out.append((resource.RLIMIT_NPROC, cap, cap))
    out.append((resource.RLIMIT_CORE, 0, 0))  # a crash must not leave GBs of core behind
    return out


# ---- cgroups ---------------------------------------------------------------------------------

def _own_cgroup(controller: str) -> Path | None:
    """This process's cgroup folder for a controller (v1 hierarchy, else the v2 one)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    unified = None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return CGROUP_ROOT / controller / path.lstrip("/")
        if controllers == "":
            unified = CGROUP_ROOT / path.lstrip("/")
    if unified is not None and (CGROUP_ROOT / "cgroup.controllers").exists():
        try:
            if controller in (unified / "cgroup.subtree_control").read_text().split():
                return unified
        except OSError:
            return None
    return None


class CaseCgroup:
    """A pids (and, where possible, memory) cgroup made for one run, removed after it."""

    _serial = 0

    def __init__(self, limits: Limits):
        CaseCgroup._serial += 1
        name = f"labkit-{os.getpid()}-{CaseCgroup._serial}-{time.monotonic_ns() % 10**9}"
        self.folders: list[Path] = []
        self.pids: Path | None = None
        self.memory: Path | None = None
        if limits.processes:
            self.pids = self._make("pids", name, "pids.max", str(limits.processes))
        if limits.memory_bytes:
            self.memory = (self._make("memory", name, "memory.max", str(limits.memory_bytes))
                           or self._make("memory", name, "memory.limit_in_bytes", str(limits.memory_bytes)))

    def _make(self, controller: str, name: str, knob: str, value: str) -> Path | None:
        parent = _own_cgroup(controller)
        if parent is None or not (parent / "cgroup.procs").exists():
            return None
        folder = parent / name
        try:
            folder.mkdir(exist_ok=True)
            (folder / knob).write_text(value)
        except OSError:
            try:
                folder.rmdir()
            except OSError:
                pass
            return None
        self.folders.append(folder)
        return folder

    def procs_files(self) -> list[str]:
        return [str(folder / "cgroup.procs") for folder in self.folders]

    def hit_limit(self, what: str) -> bool:
        """Whether the kernel refused a fork (pids) or reclaimed under the cap (memory)."""
        folder = self.pids if what == "processes" else self.memory
        if folder is None:
            return False
        for events, key in (("pids.events", "max"), ("memory.events", "oom_kill"),
                            ("memory.oom_control", "oom_kill")):
            try:
                for line in (folder / events).read_text().splitlines():
                    parts = line.split()
                    if len(parts) == 2 and parts[0] == key and int(parts[1]) > 0:
                        return True
            except (OSError, ValueError):
                continue
        return False

    def kill_all(self) -> None:
        for _ in range(50):
            alive = False
            for procs in self.procs_files():
                try:
                    pids = [int(p) for p in Path(procs).read_text().split()]
                except (OSError, ValueError):
                    continue
                for pid in pids:
                    alive = True
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            if not alive:
                return
            time.sleep(0.02)

    def remove(self) -> None:
        self.kill_all()
        for folder in reversed(self.folders):
            for _ in range(50):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)  # the last tasks are still being torn down


def cgroups_available() -> dict[str, bool]:
    """Which cgroup limits this grader can set ({'processes': .., 'memory': ..})."""
    probe = CaseCgroup(Limits(wall_s=1, processes=64, memory_bytes=1 << 30))
    found = {"processes": probe.pids is not None, "memory": probe.memory is not None}
    probe.remove()
    return found


# ---- counting processes without a cgroup -------------------------------------------------------

def stat_fields(pid: str) -> tuple[int, int, int] | None:
    """(ppid, session id, thread count) of a live process, from /proc/<pid>/stat (None for a
    zombie: it is dead already, only not yet reaped)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2:].split()
    if fields[:1] == [b"Z"]:
        return None
    try:
        return int(fields[1]), int(fields[3]), int(fields[17])
    except (IndexError, ValueError):
        return None


def family(leader: int) -> tuple[list[int], int]:
    """The pids of the leader's session and of every descendant of those, and their threads.

    A process that left the session (setsid) after its parent died is not found: with the
    sandbox on, the PID namespace still ends it; with it off, that is listed as not covered.
    """
    parents: dict[int, int] = {}
    threads: dict[int, int] = {}
    seeds = {leader}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        fields = stat_fields(name)
        if fields is None:
            continue
        pid = int(name)
        parents[pid], threads[pid] = fields[0], fields[2]
        if fields[1] == leader:
            seeds.add(pid)
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    members: set[int] = set()
    stack = list(seeds)
    while stack:
        pid = stack.pop()
        if pid not in members:
            members.add(pid)
            stack.extend(children.get(pid, []))
    alive = [pid for pid in members if pid in parents]
    return alive, sum(threads[pid] for pid in alive)
