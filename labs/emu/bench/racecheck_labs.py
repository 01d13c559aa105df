"""make emu-bench, its second part: what the race detector (EMU_RACECHECK=1) and the kernel
profile (EMU_PROFILE, which grading makes on every emulated run for lab.toml's [work]) cost on
each lab's public cases: the reference solution graded under the emulator plain, with the race
detector, and with the profile. Wall time per case is the grader's own measure of the program
(start to exit)."""

import dataclasses
import inspect
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from grader.grade import Grader  # noqa: E402
from grader.intake import Source
from grader.labs import lab_ids, load_lab  # noqa: E402
from grader.paths import SOLUTIONS_DIR  # noqa: E402
from grader.work import WorkRules  # noqa: E402


# A grader that checks every case by default under the emulator (race detector included) is
# told not to, so that "plain" is plain: EMU_RACECHECK alone decides.
NO_CHECKS = {"checks": False} if "checks" in inspect.signature(Grader).parameters else {}


def public_wall_s(lab_id: str, profile: bool) -> tuple[float, int, list[str]]:
    lab = load_lab(lab_id)
    if not profile:  # no [work] to judge: the grader asks for no profile (EMU_PROFILE=0)
        lab = dataclasses.replace(lab, work=WorkRules())
    report = Grader(lab, Source("solution", SOLUTIONS_DIR), emu=True, groups=("public",),
                    log=lambda *_: None, **NO_CHECKS).grade()
    failed = [f"{r.case}: {r.verdict} {r.reason}" for r in report.results if r.verdict != "AC"]
    return sum(r.wall_s for r in report.results), len(report.results), failed


def main() -> int:
    print("race detector and profile on the labs' public cases (reference solutions, EMU=1; wall time, all "
          "cases):")
    worst = {"racecheck": 0.0, "profile": 0.0}
    for lab_id in lab_ids():
        os.environ.pop("EMU_RACECHECK", None)
        plain, cases, failed = public_wall_s(lab_id, profile=False)
        os.environ["EMU_RACECHECK"] = "1"
        checked, _, failed_checked = public_wall_s(lab_id, profile=False)
        os.environ.pop("EMU_RACECHECK", None)
        profiled, _, failed_profiled = public_wall_s(lab_id, profile=True)
        ratios = {"racecheck": checked / plain if plain > 0 else float("nan"),
                  "profile": profiled / plain if plain > 0 else float("nan")}
        for key, ratio in ratios.items():
            worst[key] = max(worst[key], ratio)
        print(f"  {lab_id:10s} {cases:3d} cases: plain {plain:7.2f} s, racecheck {checked:7.2f} s: "
              f"{ratios['racecheck']:4.2f}x, profile {profiled:7.2f} s: {ratios['profile']:4.2f}x")
        for line in failed + failed_checked + failed_profiled:
            print(f"    not AC: {line}")
    print(f"  worst: racecheck {worst['racecheck']:.2f}x, profile {worst['profile']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
