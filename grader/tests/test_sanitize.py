"""--sanitize: compute-sanitizer's output turned into one line of a verdict reason."""

from grader.sanitize import Finding, SanitizerStep, findings

MEMCHECK = """========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at increment_kernel(float *, int)+0x80 in increment.c:9
=========     by thread (40,0,0) in block (10,0,0)
=========
========= ERROR SUMMARY: 33 errors
"""


def test_errors_name_the_first_one_and_its_line():
    assert findings("memcheck", MEMCHECK) == Finding("memcheck: 33 errors; first: Invalid __global__ write of size 4 "
                                                     "bytes at increment_kernel(float *, int)+0x80 in increment.c:9", True)


def test_no_errors():
    assert findings("racecheck", "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n") == \
        Finding("racecheck: no errors", False)


def test_a_sanitizer_that_did_not_run_is_said_and_not_blamed_on_the_student():
    got = findings("memcheck", "========= Error: Device not supported\n")
    assert got.text.startswith("memcheck: could not check") and "Device not supported" in got.text
    assert not got.fault


def test_a_racecheck_summary_counts_its_errors():
    text = ("========= COMPUTE-SANITIZER\n========= Error: Race reported between Write access at k(int*)+0x10 in x.cu:5\n"
            "=========     and Read access at k(int*)+0x20 in x.cu:6 [64 hazards]\n"
            "========= RACECHECK SUMMARY: 20 hazards displayed (80 errors, 0 warnings)\n")
    assert findings("racecheck", text).text.startswith("racecheck: 80 errors; first: Error: Race reported between")
    assert findings("racecheck", text).fault
    clean = "========= COMPUTE-SANITIZER\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n"
    assert findings("racecheck", clean) == Finding("racecheck: no errors", False)


def test_the_fault_is_compute_sanitizers_exit_status_not_a_summary_the_program_printed():
    from grader.sanitize import FOUND_ERRORS_EXIT
    assert not findings("memcheck", MEMCHECK, exit_code=0).fault  # words alone: the program's own
    assert findings("memcheck", MEMCHECK, exit_code=FOUND_ERRORS_EXIT).fault
    assert findings("memcheck", "cut", exit_code=FOUND_ERRORS_EXIT).fault


def test_a_summary_the_program_printed_itself_does_not_hide_the_real_one():
    forged = "========= ERROR SUMMARY: 0 errors\n"  # printed by the program
    assert findings("memcheck", forged + MEMCHECK, "").fault  # before compute-sanitizer's own, in its stream
    assert findings("memcheck", MEMCHECK, forged).fault  # after it, in the other stream
    assert findings("memcheck", forged, MEMCHECK).fault


# ---- a GPU grading's sanitize step, on this machine: compute-sanitizer stood in for by a script
# that runs the program and finds nothing, the emulator's checks (lab.toml's emulator_checks) real.

import dataclasses
import stat
from pathlib import Path

import pytest

from grader import sanitize as sanitize_module
from grader.grade import Grader
from grader.intake import Source
from grader.labs import load_lab
from grader.paths import SOLUTIONS_DIR
from grader.report import Report
from grader.testing import EMU_READY
from grader.verdict import AC, RE, CaseResult

STUDENTS = Path(__file__).resolve().parents[2] / "tests/students"


def _sanitize_step(tmp_path, monkeypatch, student: str, case_name: str, root: Path | None = None):
    clean = tmp_path / "compute-sanitizer"
    clean.write_text('#!/bin/sh\nshift 6\n"$@"\nstatus=$?\necho "========= ERROR SUMMARY: 0 errors"\nexit $status\n')
    clean.chmod(clean.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(sanitize_module, "sanitizer", lambda: str(clean))
    lab = load_lab("fw")
    lab = dataclasses.replace(lab, sanitize=dataclasses.replace(lab.sanitize, cases=(case_name,), emulator_checks=True))
    grader = Grader(lab, Source(student, root or STUDENTS / "fw" / student, submission=True), emu=False, sandbox="off",
                    log=lambda *_: None)
    grader.folder.parent = tmp_path  # the step runs outside grade(), which would remove its folder
    # No GPU here: the plain emulated build plays the GPU's: the student's, or, for code made to act
    # otherwise under the emulator (root), the solution's (the kit's own build, made once).
    plays_gpu = grader if root is None else Grader(lab, Source("solution", SOLUTIONS_DIR), emu=False, sandbox="off")
    build = plays_gpu.builds.get(True, False)
    assert build.ok, build.reason
    grader.builds.set_graded(build)
    right = CaseResult(case_name, AC, "right", 1.0, 1.0)
    report = Report("fw", student, False, [right])
    SanitizerStep(lab, [c for c in lab.cases if c.name == case_name], grader.runner).run(report)
    return right, report


@pytest.mark.skipif(not EMU_READY, reason="the CPU emulator (labs/emu) is not in this tree")
def test_a_race_the_gpu_got_away_with_is_re_from_the_emulators_checks(tmp_path, monkeypatch):
    result, report = _sanitize_step(tmp_path, monkeypatch, "no_sync_after_trkc", "spot-check-4")
    assert result.verdict == RE and result.points == 0
    assert result.reason.startswith("the emulator's checks (ASan, race detector): data race on __shared__ ")
    assert result.reason.endswith("(the GPU's output happened to be right)")
    assert "compute-sanitizer memcheck: no errors" in report.notes[-1]


@pytest.mark.skipif(not EMU_READY, reason="the CPU emulator (labs/emu) is not in this tree")
def test_a_faithful_submission_keeps_its_points_and_is_told_what_was_checked(tmp_path, monkeypatch):
    result, _ = _sanitize_step(tmp_path, monkeypatch, "hochberg_fwstepk", "spot-check-4")
    assert result.verdict == AC
    assert result.reason == ("right; sanitizer: compute-sanitizer memcheck: no errors; compute-sanitizer racecheck: "
                             "no errors; compute-sanitizer synccheck: no errors; the emulator's checks: no errors")


def _hiding_from_the_emulator(tmp_path, prelude: str) -> Path:
    """The fw solution with `prelude` before it: code that acts otherwise under CUDA_EMULATION."""
    hiding = tmp_path / "hiding"
    (hiding / "fw").mkdir(parents=True)
    (hiding / "fw" / "fw.c").write_text(prelude + (SOLUTIONS_DIR / "fw" / "fw.c").read_text())
    return hiding


@pytest.mark.skipif(not EMU_READY, reason="the CPU emulator (labs/emu) is not in this tree")
def test_code_that_will_not_build_under_the_emulator_does_not_skip_its_checks(tmp_path, monkeypatch):
    hiding = _hiding_from_the_emulator(tmp_path, "#ifdef CUDA_EMULATION\n#error not under the emulator\n#endif\n")
    result, _ = _sanitize_step(tmp_path, monkeypatch, "hiding", "spot-check-4", root=hiding)
    assert result.verdict == RE and result.points == 0
    assert result.reason.startswith("the emulator's checks: the emulated build (EMU=1) failed, and every submission "
                                    "must build under the emulator too: ")


@pytest.mark.skipif(not EMU_READY, reason="the CPU emulator (labs/emu) is not in this tree")
def test_a_program_that_stops_under_the_emulator_saying_could_not_check_loses_the_case(tmp_path, monkeypatch):
    # What it prints ends up in the finding's text; whether it is a fault must not come from there.
    hiding = _hiding_from_the_emulator(tmp_path, (
        "#ifdef CUDA_EMULATION\n#include <stdio.h>\n#include <stdlib.h>\n"
        "__attribute__((constructor)) static void stop(void) { fprintf(stderr, \"could not check: no errors\\n\"); exit(42); }\n"
        "#endif\n"))
    result, _ = _sanitize_step(tmp_path, monkeypatch, "hiding", "spot-check-4", root=hiding)
    assert result.verdict == RE and result.points == 0
    assert result.reason.startswith("the emulator's checks (ASan, race detector): exited with status 42")
