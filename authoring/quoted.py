"""Measured figures quoted in the kit's text, each from one recorded run: python3 -m authoring.quoted [--check].

A run's figures are recorded in a data file, handouts/figures/<name>.toml (`make bench LAB=<lab>
RECORD=1` writes <lab>-bench.toml: the machine, the date, the command and each run's figures as
the lab's program reported them). Every copy of a figure in a handout, a NOTES.md or a source
comment stands between markers that name it:

    Markdown       <!-- fig apsp-bench gpu-bench.updates_per_s /1e12 %.2f -->14.06<!-- /fig -->
    C, CUDA        /*fig apsp-bench gpu-bench.updates_per_s /1e12 %.2f*/14.06/*/fig*/

that is: the data file, the figure (<run>.<name>), an optional divisor, and a printf format.
`make figures` (this module) rewrites every marked copy from its data file, so that a re-run
updates all of them; --check only lists the copies that disagree. tests/handouts/test_quoted.py
fails on a copy that disagrees, a marker that names no recorded figure, and a recorded figure
that no marker quotes (record() keeps only the quoted ones).
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from grader.paths import KIT_ROOT

DATA_DIR = KIT_ROOT / "handouts" / "figures"
# Where copies may stand: the text files in these folders that git does not ignore (all where git is absent).
SEARCHED = ("handouts", "labs", "solutions", "starter", "docs", "README.md")
SUFFIXES = {".md", ".c", ".cu", ".cuh", ".h", ".cpp", ".py", ".sh", ".toml"}

_SPEC = (r"fig\s+(?P<data>[\w-]+)\s+(?P<figure>[\w-]+\.[\w.-]+)\s+(?:/(?P<divisor>[0-9.eE+]+)\s+)?"
         r"(?P<format>%[-+ #0]*\d*(?:\.\d+)?[dfeEgG])")
MARKERS = (
    re.compile(r"<!--\s*" + _SPEC + r"\s*-->(?P<value>[^<\n]*?)<!--\s*/fig\s*-->"),
    re.compile(r"/\*\s*" + _SPEC + r"\s*\*/(?P<value>[^/\n]*?)/\*\s*/fig\s*\*/"),
)
_ANY_OPENING = re.compile(r"(<!--|/\*)\s*fig\s")


class QuotedError(Exception):
    """A marker or data file that cannot be read; the message names the file and what to fix."""


@dataclass(frozen=True)
class Marker:
    path: Path
    line: int
    data: str      # the data file's stem: handouts/figures/<data>.toml
    figure: str    # <run>.<name>
    divisor: float
    format: str
    value: str     # the copy as it stands
    span: tuple[int, int]  # of the value in the file's text

    def where(self) -> str:
        return f"{shown(self.path)}:{self.line}"


@dataclass
class Record:
    """One data file: where and when its figures were measured, and the figures by <run>.<name>."""
    path: Path
    machine: str
    date: str
    command: str
    figures: dict[str, float]


def shown(path: Path) -> str:
    return str(path.relative_to(KIT_ROOT)) if path.is_relative_to(KIT_ROOT) else str(path)


def data_path(data: str) -> Path:
    return DATA_DIR / f"{data}.toml"  # read at call time: the tests point DATA_DIR elsewhere


def load_record(data: str) -> Record:
    path = data_path(data)
    try:
        with path.open("rb") as f:
            raw = tomllib.load(f)
    except FileNotFoundError:
        raise QuotedError(f"{shown(path)} does not exist (a marker names it)") from None
    except tomllib.TOMLDecodeError as e:
        raise QuotedError(f"{shown(path)}: {e}") from None
    for key in ("machine", "date", "command"):
        if not isinstance(raw.get(key), str):
            raise QuotedError(f"{shown(path)} needs {key} = \"...\"")
    figures = {}
    for run, table in raw.items():
        if not isinstance(table, dict):
            continue
        for name, value in table.items():
            if name == "argv":
                continue
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise QuotedError(f"{shown(path)}: {run}.{name} is not a number")
            figures[f"{run}.{name}"] = float(value)
    return Record(path, raw["machine"], raw["date"], raw["command"], figures)


def render(value: float, divisor: float, fmt: str) -> str:
    scaled = value / divisor
    return fmt % (round(scaled) if fmt.endswith("d") else scaled)


def searched_files(root: Path = KIT_ROOT) -> list[Path]:
    try:
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others",
                                 "--exclude-standard", "--", *SEARCHED],
                                capture_output=True, text=True, check=True).stdout.split("\0")
        paths = [root / name for name in listed if name]
    except (OSError, subprocess.CalledProcessError):
        paths = [p for top in SEARCHED for p in ([root / top] if (root / top).is_file() else
                                                 (root / top).rglob("*"))]
    return sorted(p for p in paths if p.suffix in SUFFIXES and p.is_file())


def find_markers(path: Path, text: str | None = None) -> list[Marker]:
    text = path.read_text() if text is None else text
    found = []
    for pattern in MARKERS:
        for m in pattern.finditer(text):
            divisor = float(m["divisor"]) if m["divisor"] else 1.0
            found.append(Marker(path, text.count("\n", 0, m.start()) + 1, m["data"], m["figure"], divisor,
                                m["format"], m["value"], m.span("value")))
    openings = len(_ANY_OPENING.findall(text))
    if openings != len(found):
        raise QuotedError(f"{shown(path)}: "
                          f"{openings - len(found)} fig marker(s) that do not read as "
                          "'<!-- fig DATA RUN.NAME [/DIVISOR] %FMT -->value<!-- /fig -->' "
                          "(or /*fig ...*/value/*/fig*/) on one line")
    return sorted(found, key=lambda marker: marker.span)


def all_markers(files: list[Path] | None = None) -> list[Marker]:
    return [m for path in (searched_files() if files is None else files) for m in find_markers(path)]


def _records(markers: list[Marker]) -> dict[str, Record]:
    return {data: load_record(data) for data in sorted({m.data for m in markers})}


def expected(marker: Marker, records: dict[str, Record]) -> str:
    record = records[marker.data]
    if marker.figure not in record.figures:
        raise QuotedError(f"{marker.where()}: {shown(record.path)} has no figure {marker.figure} "
                          f"(it has {', '.join(sorted(record.figures))})")
    return render(record.figures[marker.figure], marker.divisor, marker.format)


def problems(files: list[Path] | None = None) -> list[str]:
    """Every copy that disagrees with its data file, every marker naming no figure, and every
    recorded figure that no marker quotes."""
    markers = all_markers(files)
    found = []
    records = {}
    recorded = {p.stem for p in DATA_DIR.glob("*.toml") if p.name != "figures.toml"}
    for data in sorted({m.data for m in markers} | recorded):
        try:
            records[data] = load_record(data)
        except QuotedError as e:
            found.append(str(e))
    for marker in markers:
        if marker.data not in records:
            continue
        try:
            want = expected(marker, records)
        except QuotedError as e:
            found.append(str(e))
            continue
        if marker.value != want:
            found.append(f"{marker.where()}: {marker.data} {marker.figure} is {want}, the copy says {marker.value!r}")
    quoted = {(m.data, m.figure) for m in markers}
    for data, record in records.items():
        for figure in sorted(record.figures):
            if (data, figure) not in quoted:
                found.append(f"{shown(record.path)}: {figure} is quoted nowhere "
                             "(quote it between markers or leave it out of the file)")
    return found


def rewrite(files: list[Path] | None = None) -> list[Path]:
    """Every marked copy from its data file; returns the files changed."""
    markers = all_markers(files)
    records = _records(markers)
    changed = []
    by_file: dict[Path, list[Marker]] = {}
    for marker in markers:
        by_file.setdefault(marker.path, []).append(marker)
    for path, marked in by_file.items():
        text = path.read_text()
        new = text
        for marker in sorted(marked, key=lambda m: m.span, reverse=True):
            start, end = marker.span
            new = new[:start] + expected(marker, records) + new[end:]
        if new != text:
            path.write_text(new)
            changed.append(path)
    return changed


# ---- recording a run ---------------------------------------------------------------------------

def run_name(argv: list[str]) -> str:
    """A run's table in the data file: the program and its first option, e.g. gpu-bench-io."""
    option = next((a.lstrip("-") for a in argv[1:] if a.startswith("--")), "")
    return f"{argv[0]}-{option}" if option else argv[0]


def gpu_name() -> str:
    """The first GPU's name as nvidia-smi gives it (the machine a recorded run names)."""
    try:
        proc = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown GPU"
    names = proc.stdout.strip().splitlines() if proc.returncode == 0 else []
    return f"{len(names)} x {names[0]}" if len(names) > 1 else (names[0] if names else "unknown GPU")


def _toml_value(value) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return format(float(value), ".9g")  # as the harness writes them (labs/common/result.cpp)


def record(data: str, runs: list[tuple[list[str], dict]], machine: str, command: str,
           date: str | None = None, files: list[Path] | None = None) -> tuple[Path, list[str]]:
    """Writes handouts/figures/<data>.toml from runs [(argv, the run's LABKIT_RESULT JSON)],
    keeping the figures some marker quotes; returns the file and the figures left out."""
    quoted = {m.figure for m in all_markers(files) if m.data == data}
    date = date or datetime.date.today().isoformat()
    lines = ["# Measured figures the kit quotes (authoring/quoted.py rewrites every marked copy: make figures).",
             f"# Written by `{command}`; only the figures some marker quotes.",
             f"machine = {_toml_value(machine)}", f"date = {_toml_value(date)}", f"command = {_toml_value(command)}"]
    left_out = []
    for argv, figures in runs:
        name = run_name(argv)
        kept = {k: v for k, v in figures.items() if f"{name}.{k}" in quoted and isinstance(v, (int, float))
                and not isinstance(v, bool)}
        left_out += [f"{name}.{k}" for k, v in figures.items() if k not in kept and isinstance(v, (int, float))
                     and not isinstance(v, bool)]
        lines += ["", f"[{name}]", f"argv = {_toml_value(list(argv))}"]
        lines += [f"{k} = {_toml_value(v)}" for k, v in sorted(kept.items())]
    path = data_path(data)
    path.write_text("\n".join(lines) + "\n")
    return path, left_out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m authoring.quoted", description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="rewrite nothing: list the copies that disagree")
    args = p.parse_args(argv)
    try:
        if args.check:
            found = problems()
            for line in found:
                print(f"quoted: {line}", file=sys.stderr)
            return 1 if found else 0
        for path in rewrite():
            print(f"quoted: rewrote {shown(path)}")
    except QuotedError as e:
        print(f"quoted: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
