"""The class at a glance after a batch: the summary's figures, the terminal lines, and what
class.html shows (checked in its text: the tests need no browser; grader/scripts/
class_screenshot.sh takes a picture of it with headless Chromium)."""

import json
import re

from grader.batch import GRADED, NOT_GRADED, REFUSED, Submission, make_record, summary_rows, write_record, write_summary
from grader.batch import class_report


def graded(student, cases, emulated=True, timing_note=""):
    sub = Submission(student, f"/subs/{student}", "a" * 64)
    record = make_record(sub, {"k": 1}, GRADED, "")
    results = [{"case": name, "verdict": verdict, "reason": reason, "points": points, "max_points": most,
                "timing_note": timing_note}
               for name, verdict, reason, points, most in cases]
    body = {"cases": results, "score": sum(c["points"] for c in results),
            "max_score": sum(c["max_points"] for c in results), "emulated": emulated, "notes": []}
    record.update(verdict=min(c["verdict"] for c in results), reason="", score=body["score"],
                  max_score=body["max_score"], report=body)
    return record


NEVER = "entry {}: expected 3.5, got 0.5; {} of 1000 entries wrong; the program says: never touched"
ROWS = [
    graded("alice", [("n1", "AC", "correct", 10, 10), ("ragged", "AC", "correct", 20, 20)]),
    graded("bob", [("n1", "AC", "correct", 10, 10), ("ragged", "WA", NEVER.format(960, 40), 0, 20)]),
    graded("carol", [("n1", "RE", "CUDA error: invalid configuration argument", 0, 10),
                     ("ragged", "WA", NEVER.format(996, 4), 0, 20)]),
    graded("<dave>", [("n1", "AC", "correct", 10, 10), ("ragged", "WA", "<script>alert(1)</script>", 0, 20)]),
    make_record(Submission("erin", "/subs/erin", "b" * 64), {"k": 1}, NOT_GRADED, "Slurm task 3: TIMEOUT"),
    make_record(Submission("notes.txt", "/subs/notes.txt", ""), {"k": 1}, REFUSED, "not a submission"),
]


def test_summary_counts_scores_cases_reasons_and_timing():
    s = class_report.summarize(ROWS)
    assert (s["graded"], s["total"], s["max_score"], s["full_scores"]) == (4, 6, 30.0, 1)
    # 30/30 -> the full-score bar; 10/30 (33%) -> 30-39%; 0/30 -> 0-9%
    assert s["histogram"]["counts"] == [1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1]
    by_case = {c["case"]: c for c in s["cases"]}
    assert (by_case["n1"]["passed"], by_case["n1"]["graded"], by_case["n1"]["pass_rate"]) == (3, 4, 0.75)
    assert by_case["ragged"]["verdicts"] == {"AC": 1, "WA": 3}
    top = s["top_reasons"][0]  # bob's and carol's 'never touched' differ only in their numbers
    assert (top["count"], top["verdict"], top["cases"], top["students"]) == (2, "WA", ["ragged"], ["bob", "carol"])
    assert top["reason"] == NEVER.format(960, 40)
    assert s["timing"] == {"graded": 0, "of": 4, "why_not": class_report._timing(ROWS[0])[1]}
    assert [r["student"] for r in s["not_graded"]] == ["erin", "notes.txt"]


def test_timing_graded_on_a_gpu_is_said_so():
    rows = [graded("alice", [("large", "AC", "correct", 30, 30)], emulated=False,
                   timing_note="kernel_ms 1.000 vs limit 1.500 (1.5 x reference 1.000)")]
    assert class_report.timing_line(class_report.summarize(rows)) == "timing: graded for all 1"


def test_terminal_lines_give_the_class_in_a_few_lines():
    text = "\n".join(class_report.terminal_lines(class_report.summarize(ROWS)))
    assert "scores (of 30): mean 12.5, median 10, 1 of 4 full" in text
    assert "cases: n1 3/4, ragged 1/4" in text
    assert "timing: not graded (CPU emulation" in text
    assert "2 x WA on ragged: entry 960: expected 3.5" in text and "[bob, carol]" in text


def test_the_page_shows_histogram_cases_reasons_and_students_and_fetches_nothing(tmp_path):
    write_summary(ROWS, tmp_path, "increment", {"k": 1})
    page = (tmp_path / "class.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    bins = dict(re.findall(r'class="bin" data-bin="([^"]+)" data-count="(\d+)"', page))
    assert bins["100%"] == "1" and bins["30-39%"] == "2" and bins["0-9%"] == "1" and len(bins) == 11
    rates = dict(re.findall(r'class="case" data-case="([^"]+)" data-pass-rate="([\d.]+)"', page))
    assert rates == {"n1": "0.750", "ragged": "0.250"}
    reasons = page[page.index('<table id="reasons">'):]
    reasons = reasons[:reasons.index("</table>")]
    assert '<td class="n">2</td>' in reasons and "bob, carol" in reasons and "never touched" in reasons
    assert "not graded (CPU emulation" in page
    assert "Slurm task 3: TIMEOUT" in page and "notes.txt" in page
    # Students' text is data: escaped, never markup; the page has no script and loads nothing.
    assert "<script" not in page and "&lt;script&gt;" in page and "&lt;dave&gt;" in page
    assert not re.search(r'\b(src|href)=', page) and "@import" not in page
    summary = json.loads((tmp_path / "class.json").read_text())["summary"]
    assert summary["top_reasons"][0]["students"] == ["bob", "carol"]


def test_a_batch_prints_the_summary_and_names_the_page(tmp_path):
    subs = [Submission("alice", "/subs/alice", "a" * 64)]
    write_record(tmp_path, {**ROWS[0], "key": {"k": 1}})
    rows = summary_rows(subs, tmp_path, {"k": 1})
    csv_path, _ = write_summary(rows, tmp_path, "increment", {"k": 1})
    assert (tmp_path / "class.html").is_file() and csv_path.with_name("class.html") == tmp_path / "class.html"


def test_every_verdict_has_its_colour_on_the_page():
    from grader.verdict import AC, CE, IE, RE, SLOW, TLE, WA
    from grader.work import WORK
    for verdict in (AC, WA, TLE, RE, CE, SLOW, IE, WORK):
        assert re.search(rf"\.{verdict}\b[^{{]*{{ color:", class_report.STYLE), verdict
