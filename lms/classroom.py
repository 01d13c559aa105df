"""`make github-classroom LAB=<lab>` -> build/github-classroom/<lab>/, a template repository
for a GitHub Classroom assignment: the student edition of the kit and
.github/workflows/classroom.yml, the autograding workflow GitHub Classroom reads.

The workflow (named "Autograding Tests", one job "run-autograding-tests", as the reporter
action requires) installs what the CPU emulator needs, grades the student's starter/<lab>/ once
with the kit's grader (--emu --json), then has one classroom-resources/autograding-command-grader
step per case, worth that case's points, whose command passes when the report gives the case all
its points; classroom-resources/autograding-grading-reporter sends the total to Classroom.

    python3 -m lms.classroom verdict REPORT CASE    the command of one case's step: prints the
                                                    verdict and reason, exits 0 if full points
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from lms.bundle import Bundle
from lms.kit import KIT_ROOT, TIMING_NOTE, LabInfo, lab_info

OUT_DIR = KIT_ROOT / "build" / "github-classroom"
WORKFLOW = ".github/workflows/classroom.yml"
REPORT = "build/lms/report.json"
COMMAND_GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"


def step_id(case: str) -> str:
    """A step id GitHub accepts and the reporter finds (<ID>_RESULTS): letters, digits, '-'."""
    return "case-" + re.sub(r"[^a-z0-9]+", "-", case.lower()).strip("-")


def _q(value) -> str:
    """A YAML scalar: JSON's double-quoted strings are YAML's too."""
    return json.dumps(value) if isinstance(value, str) else f"{value:g}" if isinstance(value, float) else str(value)


def workflow(info: LabInfo) -> str:
    public = [c for c in info.cases if not c.hidden]
    ids = [step_id(c.name) for c in public]
    if len(set(ids)) != len(ids):
        raise ValueError(f"two cases of lab {info.lab} give the same step id: {ids}")
    lines = [
        f"# Made by `make github-classroom LAB={info.lab}` from the CUDA lab kit; remake it, don't edit it.",
        f"# {TIMING_NOTE}",
        "name: Autograding Tests",
        "'on':",
        "  - push",
        "  - repository_dispatch",
        "permissions:",
        "  checks: write",
        "  actions: read",
        "  contents: read",
        "jobs:",
        "  run-autograding-tests:",
        "    runs-on: ubuntu-latest",
        "    if: github.actor != 'github-classroom[bot]'",
        "    steps:",
        "      - name: Checkout code",
        "        uses: actions/checkout@v4",
        "      - name: Install what the CPU emulator needs",
        "        id: deps",
        "        run: " + _q("sudo apt-get update -q && sudo apt-get install -y -q --no-install-recommends "
                            + " ".join(info.packages)),
        f"      - name: Grade starter/{info.lab} under the CPU emulator",
        "        id: grade",
        "        continue-on-error: true",
        "        run: " + _q(f"python3 -m grader check {info.lab} --emu --json {REPORT}"),
    ]
    for case, sid in zip(public, ids):
        lines += [
            f"      - name: {_q(case.name)}",
            f"        id: {sid}",
            f"        uses: {COMMAND_GRADER}",
            "        with:",
            f"          test-name: {_q(case.name)}",
            "          setup-command: \"\"",
            f"          command: {_q(f'python3 -m lms.classroom verdict {REPORT} {case.name}')}",
            "          timeout: 1",
            f"          max-score: {_q(case.points)}",
        ]
    lines += [
        "      - name: Autograding Reporter",
        f"        uses: {REPORTER}",
        "        env:",
        *[f"          {sid.upper()}_RESULTS: \"${{{{steps.{sid}.outputs.result}}}}\"" for sid in ids],
        "        with:",
        f"          runners: {','.join(ids)}",
    ]
    return "\n".join(lines) + "\n"


def make(lab_id: str, *, out_dir: Path = OUT_DIR, log=print) -> Path:
    info = lab_info(lab_id, with_hidden=False)
    bundle = Bundle()
    files = bundle.add_kit("", info.lab)
    bundle.add(WORKFLOW, workflow(info))
    folder = bundle.write_folder(out_dir / info.lab)
    log(f"wrote {folder}/: {len(files)} kit files and {WORKFLOW} ({len(info.cases)} cases, "
        f"{info.max_score:g} points)")
    log("  GitHub Classroom: push this folder as the assignment's template repository (docs/lms.md)")
    return folder


def verdict(report_path: Path, case: str) -> int:
    """0 when the report gives the case all its points; prints the verdict and reason either way."""
    try:
        report = json.loads(report_path.read_text())
    except (OSError, ValueError) as e:
        print(f"{case}: not graded: the grading step wrote no readable report {report_path} ({e}); "
              f"its log, above in this run, says why (a compile error is shown there)")
        return 1
    for raw in report.get("cases", []):
        if isinstance(raw, dict) and raw.get("case") == case:
            print(f"{case}: {raw.get('verdict')}: {raw.get('reason')} "
                  f"({raw.get('points', 0):g}/{raw.get('max_points', 0):g} points)")
            full = isinstance(raw.get("points"), (int, float)) and raw["points"] >= raw.get("max_points", 0)
            return 0 if full and raw.get("verdict") == "AC" else 1
    print(f"{case}: not graded: {report_path} has no case {case!r}; is the workflow from this kit's "
          f"version? Remake it with make github-classroom")
    return 1


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 3 or argv[0] != "verdict":
        print("usage: python3 -m lms.classroom verdict REPORT CASE", file=sys.stderr)
        return 2
    return verdict(Path(argv[1]), argv[2])


if __name__ == "__main__":
    sys.exit(main())
