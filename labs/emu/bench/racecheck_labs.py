"""make emu-bench, its second part: what the race detector (EMU_RACECHECK=1) costs on each
lab's public cases, the reference solution graded under the emulator without and with it.
Wall time per case is the grader's own measure of the program (start to exit)."""

import inspect
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from grader.grade import Grader, Source  # noqa: E402
from grader.labs import lab_ids, load_lab  # noqa: E402
from grader.paths import SOLUTIONS_DIR  # noqa: E402


# A grader that checks every case by default under the emulator (race detector included) is
# told not to, so that "plain" is plain: EMU_RACECHECK alone decides.
NO_CHECKS = {"checks": False} if "checks" in inspect.signature(Grader).parameters else {}


def public_wall_s(lab_id: str) -> tuple[float, int, list[str]]:
    report = Grader(load_lab(lab_id), Source("solution", SOLUTIONS_DIR), emu=True, groups=("public",),
                    log=lambda *_: None, **NO_CHECKS).grade()
    failed = [f"{r.case}: {r.verdict} {r.reason}" for r in report.results if r.verdict != "AC"]
    return sum(r.wall_s for r in report.results), len(report.results), failed


def main() -> int:
    print("race detector on the labs' public cases (reference solutions, EMU=1; wall time, all cases):")
    worst = 0.0
    for lab_id in lab_ids():
        os.environ.pop("EMU_RACECHECK", None)
        plain, cases, failed = public_wall_s(lab_id)
        os.environ["EMU_RACECHECK"] = "1"
        checked, _, failed_checked = public_wall_s(lab_id)
        os.environ.pop("EMU_RACECHECK", None)
        ratio = checked / plain if plain > 0 else float("nan")
        worst = max(worst, ratio)
        print(f"  {lab_id:10s} {cases:3d} cases: plain {plain:7.2f} s, racecheck {checked:7.2f} s: {ratio:4.2f}x")
        for line in failed + failed_checked:
            print(f"    not AC: {line}")
    print(f"  worst: {worst:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
