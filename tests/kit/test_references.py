"""Every reference the kit's documents and comments make resolves inside the kit.

- a repo-relative path (labs/..., grader/..., docs/..., ...) named in a Markdown file or in a code
  comment or docstring exists (a `<lab>`, `<x>`, `{x}` or `*` in it is a wildcard that must
  match something; paths under build/ are outputs and not checked); a bare ALL-CAPS `NAME.md`
  names a file the kit has; a relative Markdown link leads to a file;
- every `make <target>` in a Markdown code span or block, or in backquotes in a comment, is a
  target of the Makefile (as `make -pq` lists them, with labs/*/lab.mk and emu.mk);
- every `python3 -m grader <command> --flag`, anywhere in the kit's text, names a command and
  flags that the grader's own argparse has;
- every citation key `[Author 2012]` / `[Title n.d.]` is one docs/sources.md defines, and every
  key docs/sources.md defines is used;
- no source is cited by the file name it had outside the kit (`NNN_<16 hex>.txt`).

NOT_IN_KIT lists the few paths the text names that are made elsewhere, each with why.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import re
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

from grader import cli
from grader.paths import KIT_ROOT

TOP_DIRS = ("labs", "grader", "docs", "handouts", "tests", "testcases", "starter", "solutions",
            "jobs", "lms", "authoring", ".ci")
# Named in the kit's text but not files of the kit, each with why: (glob on the kit-relative path).
NOT_IN_KIT = (
    ("handouts/html/*", "the handouts rendered into an edition (authoring/dist.py)"),
    ("EDITION.md", "written into an edition (authoring/dist.py)"),
    ("handouts/figures/*.svg", "made by `make figures` from handouts/figures/figures.toml"),
    ("tests/run", "the test script inside a PrairieLearn question (lms/prairielearn.py)"),
    ("tests/x/increment.c", "an example frame of a sanitizer report (grader/verdict.py)"),
    ("tests/students/bfs/x/bfs/bfs.c", "a sanitizer report's frame in grader/tests/test_verdicts.py"),
    ("starter/<lab>/x.c", "an example file name (labs/emu/CONTRACT.md)"),
    ("grader/dist.py", "where lms/kit.py also looks for the edition packer"),
)
C_LIKE = {".c", ".h", ".cpp", ".cu", ".cuh", ".inc", ".css"}
HASH_COMMENTS = {".sh", ".toml", ".mk", ".sbatch", ".pbs", ".ini", ".yml", ".yaml", ".cfg"}
TEXT_SUFFIXES = C_LIKE | HASH_COMMENTS | {".py", ".md", ".txt"}


def kit_files() -> list[Path]:
    """The kit's own text files: what git tracks, and new files it does not ignore."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             cwd=KIT_ROOT, capture_output=True, check=True).stdout.decode()
        names = sorted({n for n in out.split("\0") if n})
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(KIT_ROOT)) for p in KIT_ROOT.rglob("*") if p.is_file()
                 and not {"build", ".git", "__pycache__"} & set(p.relative_to(KIT_ROOT).parts)]
    paths = [KIT_ROOT / n for n in names]
    return [p for p in paths if p.is_file() and (p.suffix in TEXT_SUFFIXES or p.name == "Makefile")]


@lru_cache(maxsize=None)
def read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def rel(path: Path) -> str:
    return str(path.relative_to(KIT_ROOT)) if path.is_relative_to(KIT_ROOT) else str(path)


FILES = kit_files()
THIS_FILE = Path(__file__).resolve()


# ---- what counts as documentation in a file ------------------------------------------------

def python_docs(text: str) -> list[str]:
    """A Python file's comments and triple-quoted strings (its docstrings, and the text it
    writes); a regular expression, not the tokenizer, to stay fast."""
    return re.findall(r'""".*?"""|\'\'\'.*?\'\'\'|(?<![\w"\'])#[^\n]*', text, flags=re.S)


@lru_cache(maxsize=None)
def comments(path: Path) -> list[str]:
    """The comments (and docstrings) of a code file; a Markdown or .txt file is all prose."""
    text = read(path)
    if path.suffix in (".md", ".txt"):
        return [text]
    if path.suffix == ".py":
        return python_docs(text)
    if path.suffix in C_LIKE:
        return re.findall(r"//[^\n]*|/\*.*?\*/", text, flags=re.S)
    return re.findall(r"(?:^|(?<=\s))#[^\n]*", text, flags=re.M)  # shell, TOML, make


# ---- the things referred to ----------------------------------------------------------------

LAB_IDS = sorted(p.parent.name for p in (KIT_ROOT / "labs").glob("*/lab.toml"))
WILDCARD = re.compile(r"<[^<>/\s]+>|\{[^{}/\s]*\}|\$\([^()/\s]*\)|\$\{?\w+\}?")
PATH = re.compile(r"(?<![\w./<>{}$*-])(?:\./)?((?:%s)/[\w.+*<>{}$()-]*(?:/[\w.+*<>{}$()-]+)*/?)"
                  % "|".join(re.escape(d) for d in TOP_DIRS))
CAPS_MD = re.compile(r"(?<![\w/.-])([A-Z][A-Z_]+\.md)\b")
MD_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")


def exists(path: str) -> bool:
    """A kit-relative path exists; a wildcard in it (<lab>, <x>, {x}, $(X), *) matches something."""
    if any(fnmatch.fnmatchcase(path, pattern) for pattern, _ in NOT_IN_KIT):
        return True
    pattern = WILDCARD.sub("*", path).rstrip("/")
    if "*" not in pattern:
        return (KIT_ROOT / pattern).exists()
    return next(KIT_ROOT.glob(pattern), None) is not None


def paths_in(text: str) -> set[str]:
    """The kit-relative paths a text names (not an elided one: `labs/.../x`)."""
    paths = {match.group(1).rstrip(".,:;)") for match in PATH.finditer(text)}
    return {path for path in paths if "..." not in path}


def missing_paths(path: Path) -> list[str]:
    problems = []
    basenames = {p.name for p in FILES}  # a bare NAME.md may be in any folder
    for text in comments(path):
        for ref in sorted(paths_in(text)):
            if not exists(ref):
                problems.append(f"{rel(path)}: {ref} does not exist")
        for name in sorted(set(CAPS_MD.findall(text))):
            if name not in basenames and not exists(name):
                problems.append(f"{rel(path)}: {name} is no file of the kit")
    if path.suffix == ".md":
        for target in MD_LINK.findall(read(path)):
            target = target.split("#", 1)[0]
            if not target or re.match(r"[a-z][\w+.-]*:", target):  # an anchor, or http:, mailto:
                continue
            linked = (path.parent / target).resolve()
            if not (linked.exists() or (linked.is_relative_to(KIT_ROOT.resolve())
                                        and exists(str(linked.relative_to(KIT_ROOT.resolve()))))):
                problems.append(f"{rel(path)}: link to {target} leads nowhere")
    return problems


@lru_cache(maxsize=None)
def make_targets() -> frozenset[str]:
    """Every target make knows here, from its database (`make -pq`, nothing run)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    proc = subprocess.run(["make", "-pq", "help"], cwd=KIT_ROOT, capture_output=True, text=True,
                          env=env)
    targets, previous = set(), ""
    for line in proc.stdout.splitlines():
        match = re.match(r"([^\s#:=%][^:=#]*?)::?(?:\s|$)", line)
        if match and previous != "# Not a target:":  # a file make knows of, not a target
            targets.update(match.group(1).split())
        previous = line
    return frozenset(targets)


def code_text(path: Path) -> list[str]:
    """Where a `make` command may be: Markdown code (spans and blocks), backquotes in comments."""
    text = read(path)
    if path.suffix == ".md":
        blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.S | re.M)
        indented = re.findall(r"(?:^(?: {4}|\t)[^\n]*\n?)+", re.sub(r"^```.*?^```", "", text,
                                                                     flags=re.S | re.M), flags=re.M)
        spans = re.findall(r"`([^`\n]+)`", re.sub(r"^```.*?^```", "", text, flags=re.S | re.M))
        return blocks + indented + spans
    return [span for c in comments(path) for span in re.findall(r"`([^`\n]+)`", c)]


def make_commands(text: str) -> list[list[str]]:
    """The argument lists of the `make ...` simple commands in a piece of code."""
    text = re.sub(r"\\\n\s*", " ", text)
    found = []
    for line in text.splitlines():
        line = re.sub(r"(^|\s)#.*", "", line)
        for part in re.split(r";|&&|\|\||\|", line):
            words = part.split()
            if words and words[0] == "$":
                words = words[1:]
            while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):  # VAR=x make ...
                words = words[1:]
            if words and words[0] == "make":
                found.append(words[1:])
    return found


def make_problems(path: Path) -> list[str]:
    problems = []
    for code in code_text(path):
        for args in make_commands(code):
            for arg in args:
                if arg.startswith("-") or "=" in arg:
                    continue
                if arg == "<lab>":
                    arg = LAB_IDS[0]
                if re.search(r"[<>{}$*]|\.\.\.", arg) or not re.fullmatch(r"[\w.-]+", arg):
                    continue
                if arg not in make_targets():
                    problems.append(f"{rel(path)}: make {arg}: the Makefile has no such target")
    return problems


@lru_cache(maxsize=None)
def grader_commands() -> dict[str, set[str]]:
    """The grader's commands and each one's options, from its own argparse."""
    parser = cli.parser()
    commands = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                commands[name] = set(sub._option_string_actions)
    return commands


GRADER_CALL = re.compile(r"(?:python3? -m grader|`grader)[ \t]+([^\n`\"']*)")


def grader_problems(path: Path) -> list[str]:
    commands = grader_commands()
    problems = []
    text = re.sub(r"\\\n\s*", " ", read(path))
    for match in GRADER_CALL.finditer(text):
        words = re.split(r"\s+", re.split(r"\s(?:#|;|&&|\||>)|\)|\]", match.group(1))[0].strip())
        if not words or not words[0] or not re.fullmatch(r"[a-z][\w-]*", words[0]):
            continue
        command, args = words[0], words[1:]
        if command not in commands:
            problems.append(f"{rel(path)}: python3 -m grader {command}: no such grader command")
            continue
        for arg in args:
            flag = arg.split("=", 1)[0].rstrip(".,:")
            if re.fullmatch(r"--?[a-z][\w-]*", flag) and flag not in commands[command]:
                problems.append(f"{rel(path)}: python3 -m grader {command} {flag}: no such option")
    return problems


SOURCES = KIT_ROOT / "docs" / "sources.md"
KEY = re.compile(r"\[([A-Za-z][A-Za-z0-9&.' ]*[A-Za-z0-9.]) (1[89]\d\d|20\d\d|n\.d\.)\]")
SEED_NAME = re.compile(r"(?<![0-9a-f])\d{3}_[0-9a-f]{16}(?![0-9a-f])")


def defined_keys() -> set[str]:
    assert SOURCES.is_file(), "docs/sources.md, which resolves the citation keys, is missing"
    return {f"[{m}]" for m in re.findall(r"^## \[([^\]]+)\]\s*$", read(SOURCES), flags=re.M)}


def keys_used() -> dict[str, list[str]]:
    used = {}
    for path in FILES:
        if path == SOURCES or path.resolve() == THIS_FILE:
            continue
        for match in KEY.finditer(read(path)):
            used.setdefault(f"[{match.group(1)} {match.group(2)}]", []).append(rel(path))
    return used


# ---- the tests -----------------------------------------------------------------------------

def test_no_source_is_cited_by_a_file_name_outside_the_kit():
    found = [f"{rel(p)}:{n}: {SEED_NAME.search(line).group(0)}"
             for p in FILES if p.resolve() != THIS_FILE
             for n, line in enumerate(read(p).splitlines(), 1) if SEED_NAME.search(line)]
    assert not found, ("cite these by their key in docs/sources.md instead:\n" + "\n".join(found))


def test_every_citation_key_is_in_sources_md():
    keys = defined_keys()
    assert len(keys) >= 5, "docs/sources.md defines its keys as '## [Key Year]' headings"
    used = keys_used()
    unknown = [f"{key} in {', '.join(sorted(set(files)))}" for key, files in sorted(used.items())
               if key not in keys]
    assert not unknown, "keys docs/sources.md does not define:\n" + "\n".join(unknown)
    assert not keys - set(used), f"docs/sources.md defines keys nothing cites: {keys - set(used)}"


def test_every_path_in_the_docs_and_comments_exists():
    problems = [p for path in FILES if path.resolve() != THIS_FILE for p in missing_paths(path)]
    assert not problems, "\n".join(problems)


@pytest.mark.skipif(shutil.which("make") is None, reason="GNU make is not installed")
def test_every_make_target_named_exists():
    assert {"check", "test", "handouts", *LAB_IDS} <= make_targets()
    problems = [p for path in FILES if path.resolve() != THIS_FILE for p in make_problems(path)]
    assert not problems, "\n".join(problems)


def test_every_grader_command_and_flag_named_exists():
    problems = [p for path in FILES if path.resolve() != THIS_FILE for p in grader_problems(path)]
    assert not problems, "\n".join(problems)


def test_the_checkers_catch_what_they_are_for(tmp_path):
    """The checks themselves: a bad path, target, flag, key and file name are each caught."""
    assert exists("labs/<lab>/lab.toml") and not exists("labs/<lab>/no-such-file.h")
    assert paths_in("see labs/common/nothing.h.") == {"labs/common/nothing.h"}
    assert make_commands("$ make chek LAB=x && EMU=1 make fw") == [["chek", "LAB=x"], ["fw"]]
    bad = tmp_path / "bad.py"
    bad.write_text('"""See labs/common/nothing.h, DESIGNS.md and [Nobody 1999]."""\n'
                   'HINT = "python3 -m grader cases fw --update"\n'
                   'SEED = "%s_%s.txt"\n' % ("123", "0123456789abcdef"))
    assert missing_paths(bad) == [f"{bad}: labs/common/nothing.h does not exist",
                                  f"{bad}: DESIGNS.md is no file of the kit"]
    assert grader_problems(bad) == [f"{bad}: python3 -m grader cases --update: no such option"]
    assert [m.group(0) for m in KEY.finditer(read(bad))] == ["[Nobody 1999]"]
    assert SEED_NAME.search(read(bad))
    notes = tmp_path / "notes.md"
    notes.write_text("Run `make chek` or `make <lab>`; see [the guide](nowhere.md).\n")
    assert missing_paths(notes) == [f"{notes}: link to nowhere.md leads nowhere"]
    if shutil.which("make"):
        assert make_problems(notes) == [f"{notes}: make chek: the Makefile has no such target"]
