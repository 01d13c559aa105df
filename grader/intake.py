"""Stage 1, intake: a submission's own files, checked before anything is built.

A submission tarball (submit.py makes one) holds <lab>/<file>.c for each of the lab's student
files and <lab>/MANIFEST.json. A folder submission holds the same files, in <lab>/ or at its top.
Intake accepts only those files, as plain text, and writes them into a fresh folder whose name
is safe_id()'s: a submission's own name never reaches make, a shell or a path. Every size it
reads is bounded before it is read: the tarball, its decompressed stream (a header of a
gigabyte is refused after MAX_STREAM_BYTES, not read), each member, the member count, the total;
a folder submission is never walked, only its allowed names looked up.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import lzma
import json
import os
import re
import shutil
import stat
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grader.labs import ConfigError, Lab
from grader.paths import BUILD_DIR, SOLUTIONS_DIR, STARTER_DIR
from grader.program_files import remove_tree
from grader.text import one_line, shorten_paths

MAX_FILE_BYTES = 1 << 20  # one source file
MAX_TOTAL_BYTES = 8 << 20  # all of them
MAX_TARBALL_BYTES = 16 << 20  # the tarball as handed in
MAX_MEMBERS = 64  # entries in the tarball, folders included
MAX_STREAM_BYTES = 12 << 20  # the decompressed tarball, headers included (files: MAX_TOTAL_BYTES)
MANIFEST = "MANIFEST.json"
ALLOWED_SUFFIXES = (".c", ".h", ".json", ".md", ".txt")  # when the lab is not known


@dataclass(frozen=True)
class Source:
    """The student files being graded: starter, solution, or a submission's folder. name is
    safe as a folder name and on a make command line (intake.safe_id made it); submission says
    whether the code is untrusted (the sandbox's strictness), as data, never read from the name."""
    name: str  # "starter", "solution", "sub-<safe id>"
    root: Path
    submission: bool = False

    def shorten(self, reason: str) -> str:
        """A reason with the grader's own folders taken off the student's file names (text.shorten_paths)."""
        return shorten_paths(reason, self.root)

    def files(self, lab: Lab) -> tuple[Path, ...]:
        """The student's files of `lab` where its build reads them: what a report's frames name as
        the student's (verdict.memcheck_finding)."""
        base = submission_folder(self.root, lab)
        return tuple(base / f"{program}.c" for program in lab.programs)


@contextmanager
def source_for(args, lab: Lab) -> Iterator[Source]:
    """What `grader check` grades: --submission's folder or tarball, taken in (intake below),
    --solution's reference, or the starter. A submission's copy lasts as long as its grading."""
    if args.submission:
        # Only the lab's own files, checked, are built, from a folder whose name is the grader's
        # (intake.safe_id), whatever the submission's own name holds.
        path = Path(args.submission)
        if not path.exists():
            raise SubmissionError(f"submission {path} does not exist")
        name = safe_id(path.name)
        # A folder of this grading's own: two gradings at once of submissions with one name (two
        # TAs' alice/, or one folder twice) must never build each other's files, nor a sandbox
        # user of one take the other's copy away from the user it was granted to.
        (BUILD_DIR / "unpacked").mkdir(parents=True, exist_ok=True)
        dest = Path(tempfile.mkdtemp(prefix=f"{name}.", dir=BUILD_DIR / "unpacked"))
        try:
            yield Source(f"sub-{name}", intake(path, lab, dest), submission=True)
        finally:
            remove_tree(dest)
        return
    if args.solution:
        if not (SOLUTIONS_DIR / lab.id).is_dir():
            raise ConfigError(no_solutions_message(lab.id))  # the option is wrong for this copy, not a submission
        yield Source("solution", SOLUTIONS_DIR)
        return
    yield Source("starter", STARTER_DIR)


def no_solutions_message(lab: str) -> str:
    return (f"this copy of the kit has no solutions/{lab} (the student edition: see EDITION.md), so --solution "
            f"(SOL=1) has nothing to grade; grade your own code: make check LAB={lab}")



class SubmissionError(Exception):
    """A submission the grader refuses; the message says what to fix. It quotes names the
    submission chose, so it is made one printable line here, once for every caller."""

    def __init__(self, message: str):
        super().__init__(one_line(message, limit=1000))


# ---- intake: what the grader accepts, checked before anything is built -----------------------

def allowed_names(lab: Lab) -> list[str]:
    """The only files a submission of this lab may hold: its programs' .c files and the manifest."""
    return [f"{name}.c" for name in lab.programs] + [MANIFEST]


def _lab_named(name: str) -> Lab | None:
    from grader.labs import ConfigError, lab_ids, load_lab
    if name not in lab_ids():
        return None
    try:
        return load_lab(name)
    except ConfigError:
        return None


def _text_problem(data: bytes) -> str | None:
    """Why these bytes are not a source file, or None."""
    if b"\0" in data:
        return "is not a text file (it has NUL bytes: a compiled file or an archive?)"
    control = set(range(32)) - {9, 10, 11, 12, 13}
    bad = next((i for i, byte in enumerate(data) if byte in control), None)
    if bad is not None:
        line = data.count(b"\n", 0, bad) + 1
        return f"has a control character (byte 0x{data[bad]:02x}) on line {line}; save it as plain text"
    return None


def _check_member(member: tarfile.TarInfo, lab: Lab | None) -> PurePosixPath | None:
    """The member's file name inside the lab's folder; None for a folder. Raises on anything else."""
    path = PurePosixPath(member.name)
    if path.is_absolute() or ".." in path.parts:
        raise SubmissionError(f"refused: '{member.name}' points outside the submission folder "
                              f"(an absolute path or '..'); make the tarball with make submit")
    if member.issym() or member.islnk():
        raise SubmissionError(f"refused: '{member.name}' is a link (to '{member.linkname}'); submit the "
                              f"file itself, e.g. with make submit")
    if member.isdir():
        return None
    if not member.isfile():
        raise SubmissionError(f"refused: '{member.name}' is a device, pipe or other special file; "
                              f"submit plain source files only")
    parts = [p for p in path.parts if p != "."]
    if len(parts) > 2:
        raise SubmissionError(f"refused: '{member.name}' is nested too deep; put files in <lab>/")
    if lab is not None:
        if len(parts) == 2 and parts[0] != lab.id:
            raise SubmissionError(f"refused: '{member.name}' is in a folder named {parts[0]!r}, but this is "
                                  f"lab {lab.id}: is it the right lab's submission?")
        if parts[-1] not in allowed_names(lab):
            raise SubmissionError(f"refused: '{member.name}' is not a source file of lab {lab.id} (it "
                                  f"takes {', '.join(allowed_names(lab))}); remove it, or package with "
                                  f"make submit LAB={lab.id}")
    elif path.suffix not in ALLOWED_SUFFIXES:
        raise SubmissionError(f"refused: '{member.name}' is not a source file ({', '.join(ALLOWED_SUFFIXES)})")
    if member.size > MAX_FILE_BYTES:
        raise SubmissionError(f"refused: '{member.name}' is {member.size} bytes; the limit is {MAX_FILE_BYTES}")
    return PurePosixPath(*parts)


def _guess_lab(members: list[tarfile.TarInfo]) -> Lab | None:
    """The lab a tarball is for, from its one top folder (make submit puts files in <lab>/)."""
    tops = {PurePosixPath(m.name).parts[0] for m in members
            if len([p for p in PurePosixPath(m.name).parts if p != "."]) > 1}
    return _lab_named(tops.pop()) if len(tops) == 1 else None


def _check_files(files: dict[str, bytes], lab: Lab | None, where: str) -> None:
    """Text only, the lab's required files present, a manifest (if any) for this lab."""
    for name, data in files.items():
        problem = _text_problem(data)
        if problem:
            raise SubmissionError(f"refused: '{name}' {problem}")
    if lab is None:
        return
    missing = [n for n in allowed_names(lab) if n != MANIFEST and n not in files]
    if missing:
        raise SubmissionError(f"refused: {', '.join(missing)} missing from {where}: lab {lab.id} needs "
                              f"{', '.join(n for n in allowed_names(lab) if n != MANIFEST)}")
    if MANIFEST in files:
        try:
            manifest_lab = json.loads(files[MANIFEST]).get("lab")
        except (ValueError, AttributeError):
            raise SubmissionError(f"refused: {MANIFEST} in {where} is not valid JSON; package with "
                                  f"make submit LAB={lab.id}") from None
        if manifest_lab not in (None, lab.id):
            raise SubmissionError(f"refused: {where} was packaged for lab {manifest_lab!r}, not {lab.id}")


def _write(files: dict[str, bytes], dest: Path, lab: Lab | None) -> None:
    """Writes the checked files into a fresh dest (<dest>/<lab>/<file>), replacing any old one."""
    fresh = dest.with_name(dest.name + ".intake")
    shutil.rmtree(fresh, ignore_errors=True)
    try:
        for name, data in files.items():
            target = fresh / (lab.id if lab else "") / name if lab else fresh / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)  # no half-written copy left beside dest
        raise
    shutil.rmtree(dest, ignore_errors=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fresh.rename(dest)


def safe_id(name: str) -> str:
    """A folder and make-safe id for a submission's name: letters, digits, '.', '_' and '-' only,
    never '.' or '..', and a short hash of the whole name so two names never share one."""
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    for suffix in (".tar.gz", ".tgz"):
        name = name.removesuffix(suffix)
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._-")[:48]
    return f"{readable or 'submission'}-{digest}"


class _Bounded(io.RawIOBase):
    """A decompressed stream that refuses to yield more than `cap` bytes in all: tarfile reads
    a header's size from the archive and asks for that many bytes at once."""

    def __init__(self, raw, cap: int, name: str):
        self.raw, self.cap, self.name, self.given = raw, cap, name, 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0 or self.given + size > self.cap:
            size = self.cap - self.given + 1
        data = self.raw.read(size)
        self.given += len(data)
        if self.given > self.cap:
            raise SubmissionError(f"refused: {self.name} unpacks to more than {self.cap} bytes (its "
                                  f"headers or files are far bigger than source files): submit only your "
                                  f"source files (make submit)")
        return data

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def _open_stream(tarball: Path):
    """The tarball's decompressed bytes (gzip, bzip2, xz or none), bounded."""
    with open(tarball, "rb") as f:
        magic = f.read(6)
    if magic.startswith(b"\x1f\x8b"):
        raw = gzip.open(tarball, "rb")
    elif magic.startswith(b"BZh"):
        raw = bz2.open(tarball, "rb")
    elif magic.startswith(b"\xfd7zXZ"):
        raw = lzma.open(tarball, "rb")
    else:
        raw = open(tarball, "rb")
    return io.BufferedReader(_Bounded(raw, MAX_STREAM_BYTES, tarball.name), buffer_size=65536)


def unpack(tarball: Path, dest: Path, lab: Lab | None = None) -> None:
    """Checks every member of a submission tarball before anything is written, then writes the
    files into dest. lab None: the lab is read from the tarball's top folder, where it names one."""
    tarball = Path(tarball)
    try:
        size = tarball.stat().st_size
    except OSError as e:
        raise SubmissionError(f"cannot read submission {tarball}: {e.strerror}") from None
    if size > MAX_TARBALL_BYTES:
        raise SubmissionError(f"refused: {tarball.name} is {size} bytes; the limit is {MAX_TARBALL_BYTES}: "
                              f"submit only your source files (make submit)")
    try:
        with _open_stream(tarball) as stream, tarfile.open(fileobj=stream, mode="r|") as tar:
            members = []
            while (member := tar.next()) is not None:
                members.append(member)
                if len(members) > MAX_MEMBERS:
                    raise SubmissionError(f"refused: {tarball.name} holds more than {MAX_MEMBERS} entries; "
                                          f"submit only your source files (make submit)")
            lab = lab or _guess_lab(members)
        files = _read_members(tarball, members, lab)
    except (tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError) as e:
        raise SubmissionError(f"cannot read submission {one_line(tarball.name)}: {one_line(str(e))} (is it a "
                              f".tar.gz from make submit?)") from None
    _check_files(files, lab, tarball.name)
    _write(files, dest, lab)


def _read_members(tarball: Path, members: list[tarfile.TarInfo], lab: Lab | None) -> dict[str, bytes]:
    """The checked members' bytes, read in a second bounded pass over the stream (the first one
    read only headers, to check every member and find the lab before any content is read)."""
    keys = {}
    total = 0
    for member in members:
        name = _check_member(member, lab)
        if name is None:
            continue
        total += member.size
        if total > MAX_TOTAL_BYTES:
            raise SubmissionError(f"refused: the files add up to more than {MAX_TOTAL_BYTES} bytes")
        key = name.name if lab else str(name)
        if key in keys.values():
            raise SubmissionError(f"refused: '{one_line(member.name)}' is in the tarball twice")
        keys[member.name] = key
    files: dict[str, bytes] = {}
    with _open_stream(tarball) as stream, tarfile.open(fileobj=stream, mode="r|") as tar:
        for member in tar:
            if member.name in keys and member.isfile():
                files[keys[member.name]] = tar.extractfile(member).read(MAX_FILE_BYTES + 1)
    return files


@dataclass(frozen=True)
class FolderFile:
    """One of the lab's files in a folder submission, as lstat found it: a link is a link, never
    followed. The one definition of a folder submission's files: intake copies them, the batch
    hashes them (folder_sha256), by the same rules."""
    name: str  # one of allowed_names(lab)
    path: Path
    info: os.stat_result

    @property
    def problem(self) -> str | None:
        """Why intake refuses it (a link, not a regular file, too large), or None."""
        if stat.S_ISLNK(self.info.st_mode):
            return f"refused: {self.path} is a link (to '{os.readlink(self.path)}'); put the file itself there"
        if not stat.S_ISREG(self.info.st_mode):
            return f"refused: {self.path} is not a regular file"
        if self.info.st_size > MAX_FILE_BYTES:
            return f"refused: {self.path} is {self.info.st_size} bytes; the limit is {MAX_FILE_BYTES}"
        return None


def submission_folder(folder: Path, lab: Lab) -> Path:
    """Where a folder submission keeps its files: its <lab>/, or its top."""
    return folder / lab.id if (folder / lab.id).is_dir() else folder


def folder_files(folder: Path, lab: Lab) -> list[FolderFile]:
    """The lab's files the folder submission holds, looked up by name, never walked (a folder of
    a thousand levels or a sparse file of gigabytes beside them costs nothing)."""
    base = submission_folder(folder, lab)
    found = []
    for name in allowed_names(lab):
        try:
            found.append(FolderFile(name, base / name, (base / name).lstat()))
        except FileNotFoundError:
            continue
    return found


def folder_sha256(folder: Path, lab: Lab) -> str:
    """What intake will read of a folder submission, hashed (a batch grades it again when this
    changes): each file's bytes, or, for one intake refuses, its kind and size."""
    digest = hashlib.sha256()
    for file in folder_files(folder, lab):
        if file.problem is None:
            content = file.path.read_bytes()
        else:
            content = (f"not a plain file of at most {MAX_FILE_BYTES} bytes: "
                       f"{file.info.st_mode:o} {file.info.st_size}").encode()
        digest.update(f"{file.name}\0{len(content)}\0".encode())
        digest.update(content)
    return digest.hexdigest()


def intake_folder(folder: Path, lab: Lab, dest: Path) -> None:
    """A folder submission: its <lab>/ (or itself) must hold the lab's files as plain text files,
    not links; only those are copied into dest, whatever else the folder holds."""
    folder = Path(folder)
    if not folder.is_dir():
        raise SubmissionError(f"submission {folder} is not a folder")
    files = {}
    for file in folder_files(folder, lab):
        if file.problem:
            raise SubmissionError(file.problem)
        files[file.name] = file.path.read_bytes()
    _check_files(files, lab, str(submission_folder(folder, lab)))
    _write(files, dest, lab)


def intake(path: Path, lab: Lab, dest: Path) -> Path:
    """Checks a submission (a folder or a tarball) and writes only its allowed files into dest;
    returns dest, the folder to build from. Raises SubmissionError with what to fix."""
    path = Path(path)
    if path.is_dir():
        intake_folder(path, lab, dest)
    elif path.is_file():
        unpack(path, dest, lab)
    else:
        raise SubmissionError(f"submission {path} does not exist")
    return dest
