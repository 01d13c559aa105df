"""Submissions: packaging a student's files (`make submit`) and unpacking one safely (intake).

A submission tarball holds <lab>/<file>.c for each of the lab's student files and
<lab>/MANIFEST.json (lab, kit version, each file's SHA-256). A folder submission holds the
same files, in <lab>/ or at its top.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
import time
from pathlib import Path, PurePosixPath

from grader import KIT_VERSION
from grader.labs import Lab
from grader.paths import STARTER_DIR

MAX_FILE_BYTES = 1 << 20
MAX_TOTAL_BYTES = 8 << 20
ALLOWED_SUFFIXES = (".c", ".h", ".json", ".md", ".txt")


class SubmissionError(Exception):
    """A submission the grader refuses; the message says what to fix."""


def todo_lines(path: Path) -> list[str]:
    """'file:line: text' for each line still marked TODO."""
    found = []
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
        if re.search(r"\bTODO\b|LAB_TODO\(", line):
            found.append(f"{path.name}:{number}: {line.strip()}")
    return found


def package(lab: Lab, from_dir: Path, out_path: Path) -> list[str]:
    """Writes the submission tarball; returns warnings (TODOs left, files equal to the starter)."""
    warnings = []
    manifest = {"lab": lab.id, "kit_version": KIT_VERSION,
                "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "files": {}}
    with tarfile.open(out_path, "w:gz") as tar:
        for name in lab.programs:
            path = from_dir / f"{name}.c"
            if not path.exists():
                raise SubmissionError(f"{path} is missing: lab {lab.id} needs "
                                      f"{', '.join(p + '.c' for p in lab.programs)}")
            data = path.read_bytes()
            manifest["files"][path.name] = hashlib.sha256(data).hexdigest()
            tar.add(path, arcname=f"{lab.id}/{path.name}")
            todos = todo_lines(path)
            warnings += [f"TODO left: {t}" for t in todos]
            starter = STARTER_DIR / lab.id / path.name
            if starter.exists() and starter.read_bytes() == data and from_dir != starter.parent:
                warnings.append(f"{path.name} is identical to the starter file")
        blob = (json.dumps(manifest, indent=2) + "\n").encode()
        info = tarfile.TarInfo(f"{lab.id}/MANIFEST.json")
        info.size, info.mtime, info.mode = len(blob), int(time.time()), 0o644
        tar.addfile(info, io.BytesIO(blob))
    return warnings


def _check_member(member: tarfile.TarInfo) -> PurePosixPath:
    path = PurePosixPath(member.name)
    if path.is_absolute() or ".." in path.parts:
        raise SubmissionError(f"refused: '{member.name}' points outside the submission folder")
    if member.isdir():
        return path
    if not member.isfile():
        kind = "a link" if (member.issym() or member.islnk()) else "not a regular file"
        raise SubmissionError(f"refused: '{member.name}' is {kind}; submit plain source files only")
    if len(path.parts) > 2:
        raise SubmissionError(f"refused: '{member.name}' is nested too deep; put files in <lab>/")
    if path.suffix not in ALLOWED_SUFFIXES:
        raise SubmissionError(f"refused: '{member.name}' is not a source file ({', '.join(ALLOWED_SUFFIXES)})")
    if member.size > MAX_FILE_BYTES:
        raise SubmissionError(f"refused: '{member.name}' is {member.size} bytes; the limit is {MAX_FILE_BYTES}")
    return path


def unpack(tarball: Path, dest: Path) -> None:
    """Checks every member before anything is written, then extracts into dest."""
    try:
        with tarfile.open(tarball, "r:*") as tar:
            members = tar.getmembers()
            total = 0
            for member in members:
                _check_member(member)
                total += member.size
            if total > MAX_TOTAL_BYTES:
                raise SubmissionError(f"refused: the files add up to {total} bytes; the limit is {MAX_TOTAL_BYTES}")
            dest.mkdir(parents=True, exist_ok=True)
            for member in members:
                if member.isfile():
                    data = tar.extractfile(member).read()
                    if b"\0" in data:
                        raise SubmissionError(f"refused: '{member.name}' is not a text file")
                    target = dest / member.name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)
    except (tarfile.TarError, OSError) as e:
        raise SubmissionError(f"cannot read submission {tarball}: {e}") from None
