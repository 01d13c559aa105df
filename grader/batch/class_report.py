"""The class at a glance, from a batch's rows (one per submission, batch.summary_rows): the
score distribution, each case's pass rate, the most common reasons with the students behind
each, and whether timing was graded. The same summary three ways: lines for the terminal, a
"summary" object in class.json, and class.html, one self-contained page (inline CSS and SVG,
no script, nothing fetched) that a TA opens in a browser.

Reasons are grouped by their shape: numbers stand in as '#', so "entry 960: expected 3.37,
got 0.37" and "entry 12: expected 1.5, got 0.5" are one reason. Every student-supplied text
(ids, reasons) is escaped on the page.
"""

from __future__ import annotations

import html
import re
import statistics
from collections import Counter

from grader.batch import GRADED
from grader.text import one_line
from grader.verdict import AC

BINS = 10  # score bins of a tenth of the maximum each; a full score has a bar of its own
TOP_REASONS = 10
NUMBER = re.compile(r"(?<![A-Za-z_])[-+]?\d+(\.\d+)?([eE][-+]?\d+)?")


def reason_shape(reason: str) -> str:
    """The reason with its numbers as '#': what submissions with the same bug share."""
    return NUMBER.sub("#", one_line(reason))


def _timing(row: dict) -> tuple[bool, str]:
    """(graded?, why not) for one graded submission, from its report."""
    report = row.get("report") or {}
    if report.get("emulated"):
        return False, "CPU emulation; timing is graded on a GPU"
    notes = [c.get("timing_note", "") for c in report.get("cases", [])]
    if any(" vs limit " in n for n in notes):
        return True, ""
    skipped = next((n for n in notes if n), "") or next(
        (n for n in report.get("notes", []) if "timing" in n), "no case is timed")
    return False, skipped


def summarize(rows: list[dict]) -> dict:
    """The class summary (JSON-ready) from the rows."""
    graded = [r for r in rows if r.get("status") == GRADED]
    scores = [float(r.get("score") or 0) for r in graded]
    max_score = max((float(r["max_score"]) for r in graded if r.get("max_score")), default=0.0)
    histogram = [0] * (BINS + 1)
    for score in scores:
        if max_score <= 0:
            continue
        fraction = score / max_score
        histogram[BINS if fraction >= 1 else min(BINS - 1, int(fraction * BINS))] += 1

    cases: dict[str, Counter] = {}
    shapes: dict[tuple[str, str], dict] = {}
    for row in graded:
        for case in (row.get("report") or {}).get("cases", []):
            cases.setdefault(case["case"], Counter())[case["verdict"]] += 1
            if case["verdict"] == AC:
                continue
            key = (case["verdict"], reason_shape(case.get("reason", "")))
            entry = shapes.setdefault(key, {"verdict": case["verdict"], "reason": one_line(case.get("reason", "")),
                                            "shape": key[1], "cases": [], "students": []})
            if case["case"] not in entry["cases"]:
                entry["cases"].append(case["case"])
            if row["student"] not in entry["students"]:
                entry["students"].append(row["student"])
    reasons = sorted(shapes.values(), key=lambda e: (-len(e["students"]), -len(e["cases"]), e["shape"]))
    for entry in reasons:
        entry["count"] = len(entry["students"])

    timing = [_timing(r) for r in graded]
    timed = sum(graded_ for graded_, _ in timing)
    why_not = Counter(why for graded_, why in timing if not graded_)
    return {
        "graded": len(graded),
        "total": len(rows),
        "max_score": max_score,
        "mean_score": round(statistics.fmean(scores), 2) if scores else None,
        "median_score": statistics.median(scores) if scores else None,
        "full_scores": sum(1 for s in scores if max_score and s >= max_score),
        "histogram": {"bin_percent": 100 // BINS, "counts": histogram},
        "cases": [{"case": name, "passed": counts[AC], "graded": sum(counts.values()),
                   "pass_rate": round(counts[AC] / sum(counts.values()), 3), "verdicts": dict(counts)}
                  for name, counts in cases.items()],
        "top_reasons": reasons[:TOP_REASONS],
        "more_reasons": max(0, len(reasons) - TOP_REASONS),
        "timing": {"graded": timed, "of": len(graded),
                   "why_not": why_not.most_common(1)[0][0] if why_not else ""},
        "not_graded": [{"student": r["student"], "status": r["status"], "reason": one_line(r.get("reason", ""))}
                       for r in rows if r.get("status") != GRADED],
    }


def _bin_label(i: int) -> str:
    step = 100 // BINS
    return "100%" if i == BINS else f"{i * step}-{i * step + step - 1}%"


def timing_line(summary: dict) -> str:
    t = summary["timing"]
    if not t["of"]:
        return "timing: nothing graded"
    if t["graded"] == t["of"]:
        return f"timing: graded for all {t['of']}"
    if t["graded"]:
        return f"timing: graded for {t['graded']} of {t['of']}; not for the rest ({t['why_not']})"
    return f"timing: not graded ({t['why_not']})"


def terminal_lines(summary: dict) -> list[str]:
    """What `grader batch` prints at the end: the class in a dozen lines."""
    lines = []
    if summary["graded"]:
        lines.append(f"scores (of {summary['max_score']:g}): mean {summary['mean_score']:g}, median "
                     f"{summary['median_score']:g}, {summary['full_scores']} of {summary['graded']} full")
        counts = summary["histogram"]["counts"]
        widest = max(counts) or 1
        for i, count in enumerate(counts):
            if count:
                lines.append(f"  {_bin_label(i):>8} {'#' * max(1, round(20 * count / widest))} {count}")
        lines.append("cases: " + ", ".join(f"{c['case']} {c['passed']}/{c['graded']}" for c in summary["cases"]))
    lines.append(timing_line(summary))
    if summary["top_reasons"]:
        lines.append("most common reasons:")
        for entry in summary["top_reasons"][:5]:
            students = ", ".join(entry["students"][:5]) + (" ..." if len(entry["students"]) > 5 else "")
            lines.append(f"  {entry['count']} x {entry['verdict']} on {', '.join(entry['cases'])}: "
                         f"{one_line(entry['reason'], 160)} [{students}]")
    return lines


# ---- the page --------------------------------------------------------------------------------

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 64em; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
.meta { color: #555; } .warn { color: #8a4b00; }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: .25em .5em; vertical-align: top; } td:nth-child(3) { min-width: 8em; }
tr:nth-child(even) td { background: #f5f5f5; } th { border-bottom: 2px solid #ccc; }
td.n { text-align: right; white-space: nowrap; } code { font-size: .92em; }
.AC { color: #1a7f37; } .WA, .RE, .CE, .TLE, .WORK, .IE { color: #b42318; } .SLOW { color: #8a4b00; }
svg text { font: 12px system-ui, sans-serif; fill: #222; }
"""


def _histogram_svg(counts: list[int]) -> str:
    width, height, pad = 640, 220, 30
    bar = (width - 2 * pad) / len(counts)
    tallest = max(counts) or 1
    parts = [f'<svg role="img" aria-label="histogram of scores" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">']
    for i, count in enumerate(counts):
        h = (height - 2 * pad - 10) * count / tallest
        x, y = pad + i * bar, height - pad - h
        colour = "#1a7f37" if i == len(counts) - 1 else "#4a6fa5"
        parts.append(f'<rect class="bin" data-bin="{_bin_label(i)}" data-count="{count}" x="{x + 2:.1f}" '
                     f'y="{y:.1f}" width="{bar - 4:.1f}" height="{h:.1f}" fill="{colour}"/>')
        if count:
            parts.append(f'<text x="{x + bar / 2:.1f}" y="{y - 4:.1f}" text-anchor="middle">{count}</text>')
        parts.append(f'<text x="{x + bar / 2:.1f}" y="{height - pad + 14:.1f}" text-anchor="middle">'
                     f'{_bin_label(i).replace("-", "–")}</text>')
    parts.append(f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="#888"/>')
    parts.append("</svg>")
    return "".join(parts)


def _cases_svg(cases: list[dict]) -> str:
    row, label, width = 26, 170, 720
    height = row * len(cases) + 10
    span = width - label - 110
    parts = [f'<svg role="img" aria-label="pass rate per case" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">']
    for i, case in enumerate(cases):
        y = 5 + i * row
        name = html.escape(case["case"])
        parts.append(f'<text x="{label - 8}" y="{y + 16}" text-anchor="end">{name}</text>')
        parts.append(f'<rect x="{label}" y="{y + 3}" width="{span}" height="{row - 8}" fill="#e6e6e6"/>')
        parts.append(f'<rect class="case" data-case="{name}" data-pass-rate="{case["pass_rate"]:.3f}" x="{label}" '
                     f'y="{y + 3}" width="{span * case["pass_rate"]:.1f}" height="{row - 8}" fill="#1a7f37"/>')
        parts.append(f'<text x="{label + span + 6}" y="{y + 16}">{case["passed"]}/{case["graded"]} '
                     f'({100 * case["pass_rate"]:.0f}%)</text>')
    parts.append("</svg>")
    return "".join(parts)


def to_html(summary: dict, lab_id: str, generated_at: str, students: list[dict]) -> str:
    e = html.escape
    counts = f"{summary['graded']} of {summary['total']} submissions graded"
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{e(lab_id)}: the class</title><style>{STYLE}</style></head><body>",
           f"<h1>Lab {e(lab_id)}: the class at a glance</h1>",
           f'<p class="meta">{e(counts)}; made {e(generated_at)} by <code>python3 -m grader batch</code>. '
           f'<span id="timing" class="{"" if summary["timing"]["graded"] else "warn"}">'
           f'{e(timing_line(summary))}</span></p>']
    if summary["graded"]:
        out += [f"<h2>Scores (of {summary['max_score']:g})</h2>",
                f"<p>mean {summary['mean_score']:g}, median {summary['median_score']:g}, "
                f"{summary['full_scores']} full score{'' if summary['full_scores'] == 1 else 's'}</p>", _histogram_svg(summary["histogram"]["counts"]),
                "<h2>Pass rate per case</h2>", _cases_svg(summary["cases"])]
    out.append("<h2>Most common reasons</h2>")
    if summary["top_reasons"]:
        out.append('<table id="reasons"><tr><th>students</th><th>verdict</th><th>cases</th><th>reason '
                   '(one example; numbers differ between students)</th><th>who</th></tr>')
        for entry in summary["top_reasons"]:
            out.append(f'<tr><td class="n">{entry["count"]}</td><td class="{e(entry["verdict"])}">'
                       f'{e(entry["verdict"])}</td><td>{e(", ".join(entry["cases"]))}</td>'
                       f'<td>{e(entry["reason"])}</td><td>{e(", ".join(entry["students"]))}</td></tr>')
        out.append("</table>")
        if summary["more_reasons"]:
            out.append(f"<p>and {summary['more_reasons']} more (class.json has every student's cases)</p>")
    else:
        out.append("<p>none: every graded case is AC</p>")
    if summary["not_graded"]:
        out.append('<h2>Not graded or refused</h2><table id="not-graded"><tr><th>student</th><th>status</th>'
                   '<th>reason</th></tr>')
        out += [f"<tr><td>{e(r['student'])}</td><td>{e(r['status'])}</td><td>{e(r['reason'])}</td></tr>"
                for r in summary["not_graded"]]
        out.append("</table><p>Run the same <code>grader batch</code> command again to grade what was not.</p>")
    out.append('<h2>Students</h2><table id="students"><tr><th>student</th><th>status</th><th>verdict</th>'
               '<th>score</th><th>reason</th></tr>')
    for row in students:
        score = "" if row.get("status") != GRADED else f"{float(row.get('score') or 0):g}"
        verdict = row.get("verdict") or ""
        out.append(f"<tr><td>{e(row['student'])}</td><td>{e(row['status'])}</td>"
                   f'<td class="{e(verdict)}">{e(verdict)}</td><td class="n">{score}</td>'
                   f"<td>{e(one_line(row.get('reason', '')))}</td></tr>")
    out += ["</table>", "</body></html>", ""]
    return "\n".join(out)
