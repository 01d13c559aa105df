"""A bundle's files in memory, written out as a zip (reproducible) or as a folder."""

from __future__ import annotations

import os
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from lms.kit import KIT_ROOT, student_kit_files

ZIP_TIME = (2020, 1, 1, 0, 0, 0)  # fixed, so the same kit gives the same zip

# The steps each LMS's run script shares (after it has set root, bundle, results and python):
# the results folder the grader's own, the seal's folder made before any program runs, the
# runner under an outer time limit, then the seal checked (lms/seal.py).
GRADE_AND_SEAL = """\
mkdir -p "$root/results" && chmod go-w "$root/results"
rm -f "$results"
seal="$(mktemp -d)/seal"
status=0
(cd "$bundle/kit" && exec timeout -k 10 {outer_timeout} "$python" -m lms.runner --format {fmt} \\
    --bundle "$bundle" --submission "{submission}" --results "$results" --seal "$seal") || status=$?
(cd "$bundle/kit" && "$python" -m lms.seal --format {fmt} --results "$results" --seal "$seal")
"""


def grade_and_seal(fmt: str, submission: str, outer_timeout: int) -> str:
    return GRADE_AND_SEAL.format(fmt=fmt, submission=submission, outer_timeout=outer_timeout)


@dataclass
class Bundle:
    entries: dict[str, tuple[bytes, bool]] = field(default_factory=dict)  # name -> (data, executable)

    def add(self, name: str, data: str | bytes, executable: bool = False) -> None:
        self.entries[name] = (data.encode() if isinstance(data, str) else data, executable)

    def add_kit(self, prefix: str, lab: str, root: Path = KIT_ROOT) -> list[str]:
        """The student edition of the kit, with the lab's own cases and handout and no other lab's,
        under prefix/; returns its kit-relative names."""
        files = student_kit_files(root, lab)
        for rel in files:
            path = root / rel
            self.add(f"{prefix}/{rel}" if prefix else rel, path.read_bytes(), os.access(path, os.X_OK))
        return files

    def write_zip(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as zf:
            for name in sorted(self.entries):
                data, executable = self.entries[name]
                info = zipfile.ZipInfo(name, ZIP_TIME)
                info.external_attr = ((0o100755 if executable else 0o100644) << 16)
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, data)
        partial.replace(path)
        return path

    def write_folder(self, folder: Path) -> Path:
        """A fresh folder (an older one is replaced) holding the bundle's files."""
        if folder.exists():
            shutil.rmtree(folder)
        for name, (data, executable) in sorted(self.entries.items()):
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            target.chmod(0o755 if executable else 0o644)
        return folder
