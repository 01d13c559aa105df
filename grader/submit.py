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

from grader.intake import MANIFEST, SubmissionError
from grader.labs import Lab
from grader.paths import STARTER_DIR
from grader.version import kit_version

OPTIONAL_TODO = re.compile(r"LAB_TODO\(\s*\"(optional|exploration)\b", re.IGNORECASE)
OPTIONAL_WORDS = re.compile(r"\b(optional|exploration)\b", re.IGNORECASE)
COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)
FUNCTION_HEAD = re.compile(r"(\w+)\s*\([^;{}]*\)\s*(const\s*)?$")


def _blank(match: re.Match) -> str:
    """A comment or string as spaces (newlines kept): braces in it are not code, lines still count."""
    return "".join(c if c == "\n" else " " for c in match.group(0))


def functions(text: str) -> dict[str, tuple[int, str, str]]:
    """{name: (line of its head, its body as code only, whitespace squeezed; the comments right
    above it and in it)} for each function defined at the top level of a C/CUDA file."""
    code = COMMENT_OR_STRING.sub(lambda m: m.group(0) if m.group(0).startswith('"') else _blank(m), text)
    code = re.sub(r'"(?:\\.|[^"\\\n])*"', _blank, code)  # strings hide no braces either
    found, depth, start, head_from = {}, 0, 0, 0
    for i, c in enumerate(code):
        if c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                head = code[head_from:start].rstrip()
                match = FUNCTION_HEAD.search(head)
                if match and not head.endswith("="):
                    line = text.count("\n", 0, head_from + match.start(1)) + 1
                    above = text[head_from:start].rstrip().rsplit("\n\n", 1)[-1]  # the head, its comment
                    found[match.group(1)] = (line, " ".join(code[start:i + 1].split()), above + text[start:i + 1])
                head_from = i + 1
        elif c == ";" and depth == 0:
            head_from = i + 1
    return found


def todo_lines(path: Path, starter: Path | None = None) -> list[str]:
    """'file:line: what' for each piece of work the grade depends on that is left undone: a
    LAB_TODO(...) call still there, or a function with a TODO that is still the starter's (an
    empty kernel). A TODO comment above code that was written is not a warning, nor is an
    optional or exploration stub (LAB_TODO("optional: ..."), "Exploration 8: ...")."""
    text = path.read_text(errors="replace")
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if "LAB_TODO(" in line and not line.lstrip().startswith("//") and not OPTIONAL_TODO.search(line):
            found.append((number, f"{path.name}:{number}: {line.strip()}"))
    if starter is not None and starter.is_file():
        mine = functions(text)
        for name, (_, body, comments) in functions(starter.read_text(errors="replace")).items():
            if name not in mine or mine[name][1] != body or "LAB_TODO(" in body or "TODO" not in comments:
                continue
            todo = next(l.strip(" /") for l in comments.splitlines() if "TODO" in l)
            if not OPTIONAL_WORDS.search(comments):
                found.append((mine[name][0], f"{path.name}:{mine[name][0]}: {name} is still the starter's "
                                             f"({todo[:80]}{' ...' if len(todo) > 80 else ''})"))
    return [text for _, text in sorted(found)]


def package(lab: Lab, from_dir: Path, out_path: Path) -> list[str]:
    """Writes the submission tarball; returns warnings (TODOs left, files equal to the starter)."""
    warnings = []
    manifest = {"lab": lab.id, "kit_version": kit_version(),
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
            starter = STARTER_DIR / lab.id / path.name
            todos = todo_lines(path, starter)
            warnings += [f"TODO left: {t}" for t in todos]
            if starter.exists() and starter.read_bytes() == data and from_dir != starter.parent:
                warnings.append(f"{path.name} is identical to the starter file")
        blob = (json.dumps(manifest, indent=2) + "\n").encode()
        info = tarfile.TarInfo(f"{lab.id}/{MANIFEST}")
        info.size, info.mtime, info.mode = len(blob), int(time.time()), 0o644
        tar.addfile(info, io.BytesIO(blob))
    return warnings
