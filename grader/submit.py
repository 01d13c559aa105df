"""`make submit`: packages a student's files into <lab>-submission.tar.gz with a manifest
(lab, kit version, each file's SHA-256). The grader's intake (intake.py) is what checks one."""

from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
import time
from pathlib import Path

from grader import KIT_VERSION
from grader.intake import MANIFEST, SubmissionError
from grader.labs import Lab
from grader.paths import STARTER_DIR

OPTIONAL_TODO = re.compile(r"LAB_TODO\(\s*\"(optional|exploration)\b", re.IGNORECASE)


def todo_lines(path: Path) -> list[str]:
    """'file:line: text' for each line still marked TODO that the grade depends on: an optional
    or exploration stub (LAB_TODO("optional: ..."), "Exploration 8: ...") is not a warning."""
    found = []
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
        if re.search(r"\bTODO\b|LAB_TODO\(", line) and not OPTIONAL_TODO.search(line):
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
        info = tarfile.TarInfo(f"{lab.id}/{MANIFEST}")
        info.size, info.mtime, info.mode = len(blob), int(time.time()), 0o644
        tar.addfile(info, io.BytesIO(blob))
    return warnings
