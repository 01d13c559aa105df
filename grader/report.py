"""Stage 6, report: the Report of one grading, and its formats (a terminal table, JSON,
Gradescope's results.json, JUnit XML).

Reasons arrive as one line of printable text (verdict.py, text.py); each format escapes them once
more for its own syntax. Notes are what the student may see; staff_notes (where the hidden cases'
secret is, its fingerprint) go only to the TA's formats: the terminal and JSON.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path

from grader import KIT_VERSION
from grader.shared_files import write_atomically
from grader.text import one_line
from grader.verdict import AC, IE, CaseResult


@dataclass
class Report:
    lab: str
    source: str
    emu: bool
    results: list[CaseResult]
    notes: list[str] = field(default_factory=list)  # what the student may see
    build_log: str = ""
    staff_notes: list[str] = field(default_factory=list)  # the TA's eyes only

    @property
    def score(self) -> float:
        return sum(r.points for r in self.results)

    @property
    def max_score(self) -> float:
        return sum(r.max_points for r in self.results)


def table(report: Report) -> str:
    rows = [(one_line(r.case), r.verdict, f"{r.points:g}/{r.max_points:g}", f"{r.wall_s:.2f}s", one_line(r.reason))
            for r in report.results]
    header = ("case", "verdict", "points", "time", "reason")
    widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(4)]
    lines = [f"{report.lab} ({report.source}{', CPU emulation' if report.emu else ''})"]
    for row in [header] + rows:
        lines.append("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)) + "  " + row[4])
    for r in report.results:
        if r.timing_note:
            lines.append(f"  {one_line(r.case)}: {one_line(r.timing_note)}")
    lines += [f"note: {one_line(note)}" for note in report.notes + report.staff_notes]
    not_graded = sum(r.verdict == IE for r in report.results)
    lines.append(f"score: {report.score:g} / {report.max_score:g}" + (
        f"  NOT GRADED: {not_graded} case(s), the grader's failure, not the student's: fix what the "
        f"reasons say and grade again" if not_graded else ""))
    return "\n".join(lines)


def to_json(report: Report) -> dict:
    return {
        "kit_version": KIT_VERSION,
        "lab": report.lab,
        "source": report.source,
        "emulated": report.emu,
        "score": report.score,
        "max_score": report.max_score,
        "notes": report.notes,
        "staff_notes": report.staff_notes,
        "cases": [asdict(r) for r in report.results],
    }


def to_gradescope(report: Report) -> dict:
    """Gradescope's autograder results.json."""
    return {
        "score": report.score,
        "output": "\n".join(report.notes),
        "tests": [
            {
                "name": r.case,
                "score": r.points,
                "max_score": r.max_points,
                "status": "passed" if r.points == r.max_points else "failed",
                "output": f"{r.verdict}: {one_line(r.reason)}" + (f"\n{one_line(r.timing_note)}" if r.timing_note else ""),
            }
            for r in report.results
        ],
    }


def to_junit(report: Report) -> str:
    # JUnit's own split: a failure is the code's, an error is the test machinery's (IE).
    suite = ET.Element("testsuite", name=report.lab, tests=str(len(report.results)),
                       failures=str(sum(r.verdict not in (AC, IE) for r in report.results)),
                       errors=str(sum(r.verdict == IE for r in report.results)))
    for r in report.results:
        case = ET.SubElement(suite, "testcase", classname=report.lab, name=r.case, time=f"{r.wall_s:.3f}")
        if r.verdict != AC:
            failure = ET.SubElement(case, "error" if r.verdict == IE else "failure", type=r.verdict,
                                    message=one_line(r.reason))
            failure.text = one_line(r.timing_note or r.reason)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True)


def write_reports(report: Report, *, json_path: Path | None = None, gradescope_path: Path | None = None,
                  junit_path: Path | None = None) -> None:
    if json_path:
        write_atomically(json_path, json.dumps(to_json(report), indent=2) + "\n")
    if gradescope_path:
        write_atomically(gradescope_path, json.dumps(to_gradescope(report), indent=2) + "\n")
    if junit_path:
        write_atomically(junit_path, to_junit(report) + "\n")
