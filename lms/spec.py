"""Checks a results.json against its LMS's published format, field by field.

    python3 -m lms.spec gradescope|prairielearn FILE    prints each problem; exit 1 if any

Gradescope ("Autograder Specifications", gradescope-autograders.readthedocs.io/en/latest/specs/):
the top level may have score, execution_time, output, output_format, test_output_format,
test_name_format, visibility, stdout_visibility, extra_data, tests, leaderboard; score is required
unless every test has one. A test may have score, max_score, status, name, name_format, number,
output, output_format, tags, visibility, extra_data. Visibility is one of hidden, after_due_date,
after_published, visible; status is passed or failed.
PrairieLearn ("Externally graded questions", prairielearn.readthedocs.io): gradable (false: the
submission could not be graded, message says why), score from 0 to 1, message, output, images,
tests; a test has name, description, points, max_points, message, output, images.
The kit's results also hold, for a student to act on, a reason in every failed test's output.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

GS_TOP = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format",
          "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
GS_TEST = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format",
           "tags", "visibility", "extra_data"}
GS_VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
GS_STATUS = {"passed", "failed"}
PL_TOP = {"gradable", "score", "message", "output", "images", "tests"}
PL_TEST = {"name", "description", "points", "max_points", "message", "output", "images"}


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _test_problems(where: str, test: dict, known: set[str], points: str, most: str, required: bool,
                   texts: tuple[str, ...]) -> list[str]:
    """What both formats ask of one test: known keys, a name, its points (`points` of `most`;
    `required`, or else only where given) numbers in 0..most, its `texts` strings."""
    problems = [f"{where}: unknown key {k!r}" for k in test if k not in known]
    if not isinstance(test.get("name"), str) or not test.get("name"):
        problems.append(f"{where}: name is missing or not a string")
    for key in (points, most):
        if (required or key in test) and not _is_number(test.get(key)):
            problems.append(f"{where}: {key} is {'missing or ' if required else ''}not a number")
    if _is_number(test.get(points)) and _is_number(test.get(most)) and not 0 <= test[points] <= test[most]:
        problems.append(f"{where}: {points} {test[points]} is outside 0..{most} {test[most]}")
    problems += [f"{where}: {key} is not a string" for key in texts if key in test and not isinstance(test[key], str)]
    return problems


def gradescope_problems(results) -> list[str]:
    if not isinstance(results, dict):
        return ["the top level is not a JSON object"]
    problems = [f"unknown top-level key {k!r}" for k in results if k not in GS_TOP]
    tests = results.get("tests", [])
    if not isinstance(tests, list):
        return problems + ["tests is not a list"]
    if "score" in results:
        if not _is_number(results["score"]):
            problems.append("score is not a number")
    elif not tests or not all(isinstance(t, dict) and "score" in t for t in tests):
        problems.append("no top-level score, and not every test has one")
    for key in ("visibility", "stdout_visibility"):
        if key in results and results[key] not in GS_VISIBILITY:
            problems.append(f"{key} {results[key]!r} is not one of {sorted(GS_VISIBILITY)}")
    if "output" in results and not isinstance(results["output"], str):
        problems.append("output is not a string")
    if "execution_time" in results and not _is_number(results["execution_time"]):
        problems.append("execution_time is not a number")
    for i, test in enumerate(tests):
        where = f"tests[{i}]"
        if not isinstance(test, dict):
            problems.append(f"{where} is not an object")
            continue
        problems += _test_problems(where, test, GS_TEST, "score", "max_score", False, ("output",))
        if "status" in test and test["status"] not in GS_STATUS:
            problems.append(f"{where}: status {test['status']!r} is not passed or failed")
        if "visibility" in test and test["visibility"] not in GS_VISIBILITY:
            problems.append(f"{where}: visibility {test['visibility']!r} is not one of {sorted(GS_VISIBILITY)}")
        if test.get("status") == "failed" and not str(test.get("output", "")).strip():
            problems.append(f"{where}: a failed test with no reason in its output")
    if _is_number(results.get("score")) and tests and all(_is_number(t.get("score")) for t in tests
                                                            if isinstance(t, dict)):
        total = sum(t["score"] for t in tests if isinstance(t, dict))
        if abs(total - results["score"]) > 1e-6:
            problems.append(f"score {results['score']} is not the sum of the tests' scores {total}")
    return problems


def prairielearn_problems(results) -> list[str]:
    if not isinstance(results, dict):
        return ["the top level is not a JSON object"]
    problems = [f"unknown top-level key {k!r}" for k in results if k not in PL_TOP]
    if not isinstance(results.get("gradable"), bool):
        problems.append("gradable is missing or not true/false")
    if not _is_number(results.get("score")) or not 0 <= results["score"] <= 1:
        problems.append(f"score {results.get('score')!r} is not a number from 0 to 1")
    for key in ("message", "output"):
        if key in results and not isinstance(results[key], str):
            problems.append(f"{key} is not a string")
    if results.get("gradable") is False and not str(results.get("message", "")).strip():
        problems.append("not gradable, and no message says why")
    tests = results.get("tests", [])
    if not isinstance(tests, list):
        return problems + ["tests is not a list"]
    for i, test in enumerate(tests):
        where = f"tests[{i}]"
        if not isinstance(test, dict):
            problems.append(f"{where} is not an object")
            continue
        problems += _test_problems(where, test, PL_TEST, "points", "max_points", True,
                                   ("message", "output", "description"))
    points = [t.get("points") for t in tests if isinstance(t, dict)]
    maxes = [t.get("max_points") for t in tests if isinstance(t, dict)]
    if tests and all(map(_is_number, points + maxes)) and sum(maxes) > 0 and _is_number(results.get("score")):
        if abs(sum(points) / sum(maxes) - results["score"]) > 1e-6:
            problems.append(f"score {results['score']} is not the tests' points over their maximum")
    return problems


CHECKS = {"gradescope": gradescope_problems, "prairielearn": prairielearn_problems}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or argv[0] not in CHECKS:
        print("usage: python3 -m lms.spec gradescope|prairielearn FILE", file=sys.stderr)
        return 2
    try:
        results = json.loads(Path(argv[1]).read_text())
    except (OSError, ValueError) as e:
        print(f"{argv[1]}: not a readable JSON file: {e}")
        return 1
    problems = CHECKS[argv[0]](results)
    for problem in problems:
        print(f"{argv[1]}: {problem}")
    if not problems:
        print(f"{argv[1]}: a valid {argv[0]} results.json ({len(results.get('tests', []))} tests)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
