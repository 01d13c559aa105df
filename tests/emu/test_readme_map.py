"""labs/emu/README.md's folder map names every file of the runtime library (labs/emu/src) and
every top-level entry of labs/emu: a file added without a line there fails here."""

from __future__ import annotations

import re
from pathlib import Path

EMU = Path(__file__).resolve().parents[2] / "labs/emu"


def folder_map() -> str:
    """The README's first indented block: the map, up to the first line outside it."""
    lines = (EMU / "README.md").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("    include/"))
    end = next(i for i in range(start, len(lines)) if lines[i] and not lines[i].startswith("    "))
    return "\n".join(lines[start:end])


def test_every_file_of_the_runtime_is_in_the_map():
    words = set(re.findall(r"[A-Za-z_][\w.]*", folder_map()))
    sources = [path for path in (EMU / "src").rglob("*") if path.is_file()]
    # A file is named by its stem (memory_owners for .cpp and .h), or as settings.* says.
    missing = [str(path.relative_to(EMU)) for path in sources
               if path.stem not in words and f"{path.stem}.*" not in folder_map()]
    assert sources and not missing, (
        f"labs/emu/README.md's folder map does not name {missing}: add a line under the file's folder "
        "saying what it does")


def test_every_top_level_entry_is_in_the_map():
    text = folder_map()
    entries = [path.name for path in EMU.iterdir() if path.name not in ("README.md", "CONTRACT.md", "__pycache__")]
    missing = [name for name in entries if not re.search(rf"^ {{4}}{re.escape(name)}[/ ]", text, re.M)]
    assert entries and not missing, (
        f"labs/emu/README.md's folder map has no line for {missing}: add one saying what it holds")
