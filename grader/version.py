"""The kit's version as one string, the same wherever it is written: EDITION.md of an edition
(authoring/dist.py), the manifest of a submission (submit.py), the JSON report. It is the
release (KIT_VERSION) and the commit it was made from: "0.1.0 (1a2b3c4)". In an unpacked edition,
which has no git, it is what that edition's EDITION.md says."""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

from grader import KIT_VERSION
from grader.paths import KIT_ROOT

EDITION_LINE = re.compile(r"^Kit version: (.+)$", re.MULTILINE)


def edition_line(version: str) -> str:
    """The line of EDITION.md that carries the version (read back by kit_version)."""
    return f"Kit version: {version}"


@functools.lru_cache(maxsize=None)
def kit_version(root: Path = KIT_ROOT) -> str:
    edition = root / "EDITION.md"
    if edition.is_file():
        found = EDITION_LINE.search(edition.read_text(errors="replace"))
        if found:
            return found.group(1).strip()
    try:
        describe = subprocess.run(["git", "-C", str(root), "describe", "--always", "--dirty"],
                                  capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return KIT_VERSION
    commit = describe.stdout.strip() if describe.returncode == 0 else ""
    return f"{KIT_VERSION} ({commit})" if commit else KIT_VERSION
