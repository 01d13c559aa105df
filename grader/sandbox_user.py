"""The sandbox user: how a grader running as root, where bubblewrap cannot run (Gradescope's and
PrairieLearn's containers, a cluster node without user namespaces), keeps a program from the
answers with file permissions alone.

Every build and run of a submission runs as an unprivileged user of the grader's choosing (uid
and gid LABKIT_SANDBOX_UID, default 64100, or the next one free: one per grading process, held
by a lock, so that graders side by side never share one), with no supplementary groups and no
new privileges (grader/confine.py drops to it). What that user can open:

- the system, the kit's labs/, starter/ and Makefile, the emulator's runtime in build/emu/: the
  same public files every student edition holds;
- its own work folder (owned by it, 0700), and in it a hard link to each file its command reads
  (the program, the case's input): the file is root's and read-only, and the folders above
  it stay closed, so no other path reaches it;
- a folder it must read (the submission's files, the harness's objects): given to its group.

What it cannot: close_kit() takes "others" off every other entry of the kit (solutions/,
testcases/, grader/, lms/, build/ but for the paths above...) and makes the kit's folder and
build/ traverse-only; a file the grader hides (the secret) loses "others" too. Signals: a user
cannot signal root's processes. After every build and run, kill_all() ends every process of
the user, so nothing it leaves behind touches the next case.
"""

from __future__ import annotations

import errno
import fcntl
import os
import pwd
import shutil
import signal
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from grader.limits import stat_fields
from grader.paths import BUILD_DIR, KIT_ROOT, LABS_DIR, STARTER_DIR
from grader.program_files import remove_tree

FIRST_UID = 64100
SLOTS = 512
# What every sandbox user may read in the kit: what any student edition holds anyway.
PUBLIC_TOP = ("labs", "starter", "Makefile", "build")
PUBLIC_BUILD = ("emu", "evidence")  # the emulator's runtime; the GPU record's tracer
# Traverse-only for every sandbox user: the folders that hold many sources' or runs' folders.
SHARED = (KIT_ROOT, BUILD_DIR, BUILD_DIR / "grading", BUILD_DIR / "unpacked")


class SandboxUserError(Exception):
    """No sandbox user could be had; the message says why and what to do."""


@dataclass(frozen=True)
class SandboxUser:
    uid: int
    gid: int
    lock_fd: int  # held open for the grading process's life: the uid is this process's


def _lock_dir() -> Path:
    """A folder only root can enter, for the uid locks; refuses one that someone else made."""
    folder = Path(tempfile.gettempdir()) / "labkit-sandbox-users"
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o077:
        raise SandboxUserError(f"{folder} is not a folder of root's with mode 0700: remove it and grade again")
    return folder


def _in_use(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True  # a real account: never borrow it
    except KeyError:
        return bool(processes_of(uid))


_held: SandboxUser | None = None


def acquire() -> SandboxUser:
    """This process's sandbox user (the same for its whole life)."""
    global _held
    if _held is not None:
        return _held
    if os.geteuid() != 0:
        raise SandboxUserError("a sandbox user needs the grader to run as root")
    first = int(os.environ.get("LABKIT_SANDBOX_UID") or FIRST_UID)
    folder = _lock_dir()
    for uid in range(first, first + SLOTS):
        if _in_use(uid):
            continue
        fd = os.open(folder / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        _held = SandboxUser(uid, uid, fd)
        return _held
    raise SandboxUserError(f"no free uid in {first}..{first + SLOTS - 1} for the sandbox user; set "
                           f"LABKIT_SANDBOX_UID to the first of {SLOTS} unused uids")


# ---- processes --------------------------------------------------------------------------------

def processes_of(uid: int) -> list[int]:
    """The user's live processes (a zombie is dead already, only not yet reaped by its parent)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid and stat_fields(name) is not None:
                    found.append(int(name))
            except OSError:
                continue
    return found


# Where any user may write without Landlock: what the sandbox user leaves there is removed.
SHARED_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm")


def kill_all(uid: int) -> None:
    """Every process of the user, however it left its session or parent; then every file it
    left in the folders anyone may write."""
    for _ in range(100):
        pids = processes_of(uid)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.01)
    for folder in SHARED_WRITABLE:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid == uid:
                    remove_tree(Path(entry.path)) if entry.is_dir(follow_symlinks=False) else os.unlink(entry.path)
            except OSError:
                continue


# ---- permissions ------------------------------------------------------------------------------

def _chmod(path: Path, *, clear: int = 0, add: int = 0) -> None:
    try:
        mode = stat.S_IMODE(os.lstat(path).st_mode)
    except FileNotFoundError:
        return
    if not os.path.islink(path) and (mode & ~clear | add) != mode:
        os.chmod(path, mode & ~clear | add)


def _close_children(folder: Path, keep: tuple[str, ...] = ()) -> None:
    """Every entry of folder but `keep` closed to others."""
    for entry in os.scandir(folder):
        if entry.name not in keep:
            _chmod(Path(entry.path), clear=0o007)


def close_kit(hidden: list[Path]) -> None:
    """What no sandbox user may open: everything of the kit but PUBLIC_TOP and PUBLIC_BUILD,
    and each hidden path (the secret, the lab's instructor-only files). The kit's folder, build/ and
    build/'s folders of many sources (SHARED) stay traverse-only: each user reaches its own
    folders in them through its group (grant_path). Cheap and idempotent: every build and run
    calls it, so a folder made since (a case cache, a report, another submission) is closed too."""
    BUILD_DIR.mkdir(exist_ok=True)
    for folder in SHARED:
        if folder.is_dir():
            _chmod(folder, clear=0o006, add=0o001)
    _close_children(KIT_ROOT, PUBLIC_TOP)
    _close_children(BUILD_DIR, PUBLIC_BUILD + tuple(f.name for f in SHARED if f.parent == BUILD_DIR))
    for folder in SHARED[2:]:
        if folder.is_dir():
            _close_children(folder)
    for path in hidden:  # build/ itself is SHARED: what it holds is closed above
        if Path(path) not in SHARED:
            _chmod(Path(path), clear=0o007)


def close_to_others(path: Path) -> None:
    """A folder of the grader's outside the kit (a class's submissions, its grades) closed to
    every other user, the sandbox users among them."""
    _chmod(Path(path), clear=0o007)


def grant_path(user: SandboxUser, path: Path) -> None:
    """The folders above path passable by the user: inside the kit, below the SHARED folders,
    through its group alone (nobody else passes); outside the kit (a temporary folder), by all."""
    for parent in reversed(path.parents):
        if parent in SHARED:
            continue
        if KIT_ROOT in parent.parents:
            if os.lstat(parent).st_gid != user.gid:
                os.lchown(parent, -1, user.gid)
            _chmod(parent, clear=0o007, add=0o010)
        else:
            _chmod(parent, add=0o001)


def is_public(path: Path) -> bool:
    public = [LABS_DIR, STARTER_DIR, KIT_ROOT / "Makefile",
              *(BUILD_DIR / name for name in PUBLIC_BUILD)]
    return any(path == p or p in path.parents for p in public)


def reclaim(folder: Path) -> None:
    """A folder a sandbox user wrote, back to root before root's own sandboxes write it (the
    same tree graded by bubblewrap after the user kind: bubblewrap's root has no capabilities)."""
    if os.geteuid() != 0 or not folder.exists() or os.lstat(folder).st_uid == 0:
        return
    for path in [folder, *folder.rglob("*")]:
        os.lchown(path, 0, 0)


def give_folder(user: SandboxUser, folder: Path) -> None:
    """A folder the user writes: its own, 0700."""
    grant_path(user, folder)
    for path in [folder, *folder.rglob("*")]:
        os.lchown(path, user.uid, user.gid)
    _chmod(folder, clear=0o077, add=0o700)


def show_folder(user: SandboxUser, folder: Path, besides: Path) -> None:
    """A folder the user reads (the submission's files): root's, its group may read it; what
    lies in `besides` (the user's own work folder, inside it) stays the user's."""
    grant_path(user, folder)
    for path in [folder, *folder.rglob("*")]:
        if path == besides or besides in path.parents:
            continue
        os.lchown(path, 0, user.gid)
        if not path.is_symlink():
            _chmod(path, clear=0o027, add=0o050 if path.is_dir() else 0o040)


def show_file(file: Path, work: Path) -> Path:
    """A file the user reads (its program, the case's input), seen only as a hard link in its
    work folder: root's, read-only, readable by others (no other path to it is open)."""
    os.lchown(file, 0, 0)
    _chmod(file, clear=0o022, add=0o004 | (0o001 if os.stat(file).st_mode & 0o100 else 0))
    link = work / file.name
    if link.exists():
        link = work / f"input-{file.name}"
    try:
        os.link(file, link)
    except OSError as e:
        if e.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK):
            raise
        shutil.copy2(file, link)  # another filesystem: a copy of root's, the same way
        os.chmod(link, stat.S_IMODE(os.stat(file).st_mode))
    return link
