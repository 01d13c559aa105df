import json
import xml.etree.ElementTree as ET

from grader.report import Report
from grader.report import table, to_gradescope, to_json, write_reports
from grader.verdict import CaseResult


def sample() -> Report:
    return Report("increment", "starter", False, [
        CaseResult("n1", "AC", "correct", 10, 10, 0.5),
        CaseResult("big", "SLOW", "correct but slow", 15, 30, 2.0, {"kernel_ms": 3.0}, "kernel_ms 3 vs 2"),
        CaseResult("bad", "WA", "entry 5: expected 5.0, got 6.0", 0, 20, 0.1),
    ], notes=["a note"])


def test_table_lists_every_case_and_the_score():
    text = table(sample())
    assert "n1" in text and "AC" in text and "entry 5: expected 5.0, got 6.0" in text
    assert "big: kernel_ms 3 vs 2" in text
    assert "note: a note" in text
    assert text.splitlines()[-1] == "score: 25 / 60"


def test_json_and_gradescope(tmp_path):
    report = sample()
    write_reports(report, json_path=tmp_path / "r.json", gradescope_path=tmp_path / "results.json",
                  junit_path=tmp_path / "junit.xml")
    data = json.loads((tmp_path / "r.json").read_text())
    assert data == to_json(report)
    assert data["score"] == 25 and data["max_score"] == 60
    assert [c["verdict"] for c in data["cases"]] == ["AC", "SLOW", "WA"]
    gradescope = json.loads((tmp_path / "results.json").read_text())
    assert gradescope == to_gradescope(report)
    assert gradescope["score"] == 25
    assert [t["status"] for t in gradescope["tests"]] == ["passed", "failed", "failed"]
    assert gradescope["tests"][2]["output"] == "WA: entry 5: expected 5.0, got 6.0"


def test_junit_marks_failures():
    write_dir = ET.fromstring(__import__("grader.report", fromlist=["to_junit"]).to_junit(sample()))
    assert write_dir.get("tests") == "3" and write_dir.get("failures") == "2"
    failures = [(c.get("name"), c.find("failure").get("type")) for c in write_dir if c.find("failure") is not None]
    assert failures == [("big", "SLOW"), ("bad", "WA")]
