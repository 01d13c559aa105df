"""Text that came from a program, a compiler or a file name, made safe to show.

Everything a submission controls (its output, its compiler errors, its file and folder names)
reaches reports as data: one_line() makes it one line of printable text, so it cannot forge a
table row, move the terminal's cursor, colour a fake verdict, break an XML file or hide text
behind a bidirectional override. Each report format escapes it once more for its own syntax
(report.py: XML by ElementTree, CSV cells by csv_cell()).
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

from grader.paths import BUILD_DIR, KIT_ROOT

MAX_REASON_CHARS = 500
# Bidirectional overrides and isolates, and zero-width characters: they reorder or hide text.
_INVISIBLE = {0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202B, 0x202C, 0x202D,
              0x202E, 0x2060, 0x2066, 0x2067, 0x2068, 0x2069, 0xFEFF}


def _escape(char: str) -> str:
    code = ord(char)
    if char in "\n\r":
        return " | "
    if char == "\t":
        return " "
    if code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0 or code in _INVISIBLE:
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    if unicodedata.category(char) in ("Cs", "Co", "Cn"):
        return "?"
    return char


def one_line(text: str, limit: int = MAX_REASON_CHARS) -> str:
    """text as one line of printable characters, at most `limit` of them (cut at a word)."""
    if not isinstance(text, str):
        text = str(text)
    clean = "".join(_escape(c) for c in text[: limit * 4]).strip()
    clean = re.sub(r"( \| )+", " | ", clean)
    if len(clean) > limit:
        cut = clean[:limit].rsplit(" ", 1)[0] if " " in clean[:limit] else clean[:limit]
        clean = cut + " ..."
    return clean


def csv_cell(text: str) -> str:
    """A cell a spreadsheet shows as text: one that would start a formula gets a leading '."""
    text = one_line(text, limit=10 * MAX_REASON_CHARS)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def shorten_paths(text: str, root: Path) -> str:
    """text with the grader's own folders taken off the file names of the student files in root:
    '<lab>/x.c:16', not 'build/unpacked/alice-1f2e3d4c/<lab>/x.c:16'. A kit folder (starter/,
    solutions/) stays: 'starter/<lab>/x.c:16' is the path the program itself prints."""
    root = Path(root).resolve()
    if root.is_relative_to(KIT_ROOT.resolve()) and not root.is_relative_to(BUILD_DIR.resolve()):
        return text.replace(str(KIT_ROOT.resolve()) + "/", "")
    for prefix in (str(root) + "/", os.path.relpath(root, KIT_ROOT) + "/"):
        if not prefix.startswith(".."):
            text = text.replace(prefix, "")
    return text
