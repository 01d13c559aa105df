"""Files an untrusted program left behind, read without trusting them.

A program may replace its output with a link to the expected output (or to /dev/zero), a
folder, a FIFO, a hard link, a file of gigabytes, or take away the modes the grader needs to
read or measure its folder. So the grader:
- opens the work folder before the program runs and reads only through that descriptor (a
  folder renamed or swapped for a link afterwards changes nothing);
- opens each file with O_NOFOLLOW and O_NONBLOCK and accepts it only if fstat() says it is a
  regular file with one link, not the expected file, and within the size cap;
- gives itself back the modes of anything its user owns before it measures or removes it.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)


@dataclass
class Opened:
    """A file the program left, open for reading; or why it cannot be read as one."""
    file: BinaryIO | None
    size: int = 0
    problem: str = ""

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def open_folder(path: Path) -> int:
    """A descriptor of a work folder the grader made, taken before the program runs."""
    return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))


def _describe(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_left(folder_fd: int, name: str, max_bytes: int, *, what: str = "the output file",
              not_same_as: tuple[Path, ...] = ()) -> Opened:
    """Opens folder/name as a regular file the program wrote, or says why it is not one."""
    try:
        info = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
    except FileNotFoundError:
        return Opened(None, problem=f"the program wrote no {what.removeprefix('the ')}")
    except OSError as e:
        return Opened(None, problem=f"{what} could not be read ({e.strerror})")
    if stat.S_ISLNK(info.st_mode):
        return Opened(None, problem=f"{what} is a link, not a file the program wrote: write the file itself")
    if not stat.S_ISREG(info.st_mode):
        return Opened(None, problem=f"{what} is {_describe(info.st_mode)}, not a file")
    if info.st_nlink != 1:
        return Opened(None, problem=f"{what} is a hard link to another file, not a file the program wrote")
    for other in not_same_as:
        try:
            theirs = os.stat(other)
        except OSError:
            continue
        if (theirs.st_dev, theirs.st_ino) == (info.st_dev, info.st_ino):
            return Opened(None, problem=f"{what} is not the program's own file")
    if info.st_size > max_bytes:
        return Opened(None, size=info.st_size,
                      problem=f"{what} has {info.st_size} bytes, more than the {max_bytes} the grader reads")
    if not info.st_mode & stat.S_IRUSR and info.st_uid == os.geteuid():
        os.chmod(name, stat.S_IRUSR | stat.S_IWUSR, dir_fd=folder_fd)  # a regular file: no link followed
    try:
        fd = os.open(name, _OPEN_FLAGS, dir_fd=folder_fd)
    except OSError as e:
        reason = "a link" if e.errno == errno.ELOOP else e.strerror
        return Opened(None, problem=f"{what} could not be opened ({reason})")
    opened = os.fstat(fd)
    if not stat.S_ISREG(opened.st_mode) or (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
        os.close(fd)
        return Opened(None, problem=f"{what} changed while the grader opened it")
    return Opened(os.fdopen(fd, "rb"), size=opened.st_size)


def read_regular(path: Path, max_bytes: int) -> bytes | None:
    """The bytes of a regular file (no link followed) of at most max_bytes; else None."""
    path = Path(path)
    try:
        folder = open_folder(path.parent)
    except OSError:
        return None
    try:
        opened = open_left(folder, path.name, max_bytes)
    finally:
        os.close(folder)
    if opened.file is None:
        return None
    with opened.file as f:
        return f.read(max_bytes + 1)[:max_bytes]


def _reclaim(path: str) -> bool:
    """Gives the grader's user back rwx on a folder it owns, without following a link."""
    try:
        fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY)
    except OSError:
        return False
    try:
        os.chmod(f"/proc/self/fd/{fd}", stat.S_IRWXU)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def scan_folder(folder: Path, max_entries: int) -> tuple[int, int]:
    """(bytes, entries) under folder, stopping early past max_entries. A folder the program made
    unreadable is made readable again first: the work folder's caps hold whatever modes it sets."""
    total, entries = 0, 0
    stack = [str(folder)]
    while stack and entries <= max_entries:
        path = stack.pop()
        try:
            it = os.scandir(path)
        except PermissionError:
            if not _reclaim(path):
                continue
            try:
                it = os.scandir(path)
            except OSError:
                continue
        except OSError:
            continue
        with it:
            for entry in it:
                entries += 1
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    else:
                        # The larger of the blocks and the length: a filesystem that reports no
                        # blocks (gVisor's) must not make a full folder look empty.
                        info = entry.stat(follow_symlinks=False)
                        total += max(info.st_blocks * 512, info.st_size)
                except OSError:
                    continue
    return total, entries


def remove_tree(folder: Path, max_entries: int = 1_000_000) -> None:
    """Removes a work or build folder, whatever modes the program left on it: every folder in it
    is given back rwx first (a folder of mode 0500 or 0000 would keep its entries)."""
    if not os.path.lexists(folder):
        return
    stack = [str(folder)]
    seen = 0
    while stack and seen < max_entries:
        path = stack.pop()
        _reclaim(path)
        try:
            with os.scandir(path) as it:
                for entry in it:
                    seen += 1
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
        except OSError:
            continue
    # rm walks without recursion: a tree thousands of folders deep would overflow Python's stack.
    subprocess.run(["rm", "-rf", "--one-file-system", "--", str(folder)], stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
