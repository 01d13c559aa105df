"""Files that graders side by side share (a batch's workers, Slurm tasks on a shared folder, two
TAs at once): each written whole by a rename, so that no reader sees half of one, and locks
between processes. The one place the kit does either."""

from __future__ import annotations

import fcntl
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path


def make_atomically(path: Path, make) -> None:
    """Runs make(tmp) on a temporary file of its own beside path, then renames it into place,
    so graders making the same file at once never see or write half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    os.close(fd)
    try:
        make(Path(tmp))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_atomically(path: Path, text: str) -> None:
    """text at path, whole or not at all."""
    make_atomically(path, lambda tmp: tmp.write_text(text))


@contextmanager
def exclusive_lock(path: Path, *, wait: bool = True):
    """An exclusive lock between processes, held while the block runs; wait=False raises
    BlockingIOError at once when another process holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        yield
