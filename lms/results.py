"""The grader's JSON report (python3 -m grader check ... --json FILE) in each LMS's format.

Pure functions: a report dict and the bundle's LabInfo in, a results.json dict out. The bundle's
LabInfo, not the report, says which cases exist and what each is worth: a report a hostile
program forged or cut short can give no case more than its points, and a case the report lacks
scores 0 with a reason.

Gradescope (gradescope-autograders.readthedocs.io, "Autograder Specifications"): top-level
score, output, visibility, stdout_visibility, execution_time, tests[]; each test name, score,
max_score, status (passed/failed), output, visibility (visible, hidden, after_due_date,
after_published).
PrairieLearn (prairielearn.readthedocs.io, "Externally graded questions"): gradable, score in
0..1, message, output, tests[]; each test name, points, max_points, message, output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lms.kit import TIMING_NOTE, LabInfo

NOT_GRADED = "not graded"
MAX_TEXT = 4000  # characters of one student-visible text (a reason, an output)
VERDICT_WORDS = {"AC": "accepted", "WA": "wrong answer", "TLE": "time limit exceeded",
                 "RE": "runtime error", "CE": "compile error", "SLOW": "correct but slow",
                 "WORK": "right output, not the lab's work"}


@dataclass(frozen=True)
class Graded:
    name: str
    verdict: str
    reason: str
    points: float
    max_points: float
    hidden: bool

    @property
    def passed(self) -> bool:
        return self.points >= self.max_points


def scrub(text: str, secrets: tuple[str, ...] = ()) -> str:
    """Student-visible text without the secret's path, value or fingerprint, and not too long."""
    for value in secrets:
        if value:
            text = text.replace(value, "<secret>")
    text = re.sub(r"\s*\(fingerprint [0-9a-fA-F]+\)", "", text)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + " ... (cut)"


def _number(value, default: float = 0.0) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


def graded_cases(report: dict, info: LabInfo, secrets: tuple[str, ...] = ()) -> list[Graded]:
    """One Graded per case of the bundle, in the bundle's order, taken from the report."""
    found = {}
    for raw in report.get("cases", []) if isinstance(report.get("cases"), list) else []:
        if isinstance(raw, dict) and isinstance(raw.get("case"), str):
            found.setdefault(raw["case"], raw)
    graded = []
    for case in info.cases:
        raw = found.get(case.name)
        if raw is None:
            graded.append(Graded(case.name, NOT_GRADED, "the grader gave no result for this case",
                                 0.0, case.points, case.hidden))
            continue
        points = min(max(_number(raw.get("points")), 0.0), case.points)
        verdict = raw.get("verdict") if isinstance(raw.get("verdict"), str) else NOT_GRADED
        reason = raw.get("reason") if isinstance(raw.get("reason"), str) else ""
        graded.append(Graded(case.name, verdict[:16], scrub(reason, secrets), points, case.points, case.hidden))
    return graded


def _case_text(case: Graded) -> str:
    words = VERDICT_WORDS.get(case.verdict)
    return f"{case.verdict}{f' ({words})' if words else ''}: {case.reason}"


def summary(graded: list[Graded], info: LabInfo, *, hidden_note: str) -> str:
    """The text for the whole submission: what was graded here and what was not."""
    lines = [f"{info.title} ({info.lab}): {sum(c.points for c in graded):g} / {info.max_score:g} points.",
             TIMING_NOTE]
    hidden = [c for c in graded if c.hidden]
    if hidden:
        lines.append(f"{len(hidden)} hidden cases: {hidden_note}")
    failed = [c for c in graded if not c.passed]
    if failed and all(c.verdict == "CE" for c in graded):
        lines.append(f"Your code did not compile, so no case ran: {failed[0].reason}")
    return "\n".join(lines)


def to_gradescope(report: dict, info: LabInfo, *, execution_s: float | None = None,
                  secrets: tuple[str, ...] = ()) -> dict:
    graded = graded_cases(report, info, secrets)
    results = {
        "score": sum(c.points for c in graded),
        "output": summary(graded, info, hidden_note="their verdicts show after the due date"),
        "visibility": "visible",
        "stdout_visibility": "hidden",  # the grader's log: for the course staff
        "tests": [
            {
                "name": c.name,
                "score": c.points,
                "max_score": c.max_points,
                "status": "passed" if c.passed else "failed",
                "output": _case_text(c),
                "visibility": "after_due_date" if c.hidden else "visible",
            }
            for c in graded
        ],
    }
    if execution_s is not None:
        results["execution_time"] = int(round(execution_s))
    return results


def to_prairielearn(report: dict, info: LabInfo, *, secrets: tuple[str, ...] = ()) -> dict:
    """PrairieLearn shows every test at once: a hidden case shows its verdict, not its reason
    (which could name the secret input's size or the first wrong index)."""
    graded = graded_cases(report, info, secrets)
    score = sum(c.points for c in graded)
    return {
        "gradable": True,
        "score": score / info.max_score if info.max_score > 0 else 0.0,
        "message": f"{score:g} / {info.max_score:g} points (correctness under the CPU emulator; "
                   f"timing is graded on the course's GPU cluster)",
        "output": summary(graded, info, hidden_note="their verdicts show, their inputs and reasons do not"),
        "tests": [
            {
                "name": c.name,
                "points": c.points,
                "max_points": c.max_points,
                "message": (f"{c.verdict} ({VERDICT_WORDS.get(c.verdict, c.verdict)})" if c.hidden
                            else _case_text(c)),
                "output": "",  # the message says it all; output is for long text
            }
            for c in graded
        ],
    }


def gradescope_failure(info: LabInfo | None, reason: str) -> dict:
    """A valid results.json when nothing could be graded: score 0, the reason, every case at 0."""
    tests = [{"name": c.name, "score": 0.0, "max_score": c.points, "status": "failed",
              "output": f"{NOT_GRADED}: see the message above the tests",
              "visibility": "after_due_date" if c.hidden else "visible"} for c in (info.cases if info else [])]
    return {"score": 0.0, "output": f"{reason}\n\n{TIMING_NOTE}", "visibility": "visible",
            "stdout_visibility": "hidden", "tests": tests}


def prairielearn_failure(reason: str) -> dict:
    """Not gradable: PrairieLearn shows the message and does not count the submission as a try."""
    return {"gradable": False, "score": 0.0, "message": reason, "output": f"{reason}\n\n{TIMING_NOTE}",
            "tests": []}
