"""The emulator's race detector (EMU_RACECHECK=1) on the real fw solution: every version runs
clean, and with the barrier after the (i,k) entry's load removed, the race is reported with
the variable, both threads and both lines of fw.c, and exit status LAB_EXIT_RACE."""

import re
import shutil

import pytest

from grader.build import build_lab
from grader.labs import load_lab
from grader.paths import KIT_ROOT, SOLUTIONS_DIR
from grader.testing import EMU_READY, lab_program, run

pytestmark = pytest.mark.skipif(not EMU_READY, reason="the CPU emulator (labs/emu) is not in this tree")

CASES = KIT_ROOT / "testcases" / "fw"
# The race detector's exit status, from the one header that defines it.
EXIT_RACE = int(re.search(r"LAB_EXIT_RACE\s*=\s*(\d+)", (KIT_ROOT / "labs/common/exit_codes.h").read_text()).group(1))
VERSIONS = ["rows", "one-thread", "parallel", "grid-sync", "grid-sync-reg", "pitch", "columns", "module"]


def racecheck_env(monkeypatch):
    monkeypatch.setenv("EMU_RACECHECK", "1")


@pytest.mark.parametrize("version", VERSIONS)
def test_solution_has_no_race(version, tmp_path, monkeypatch):
    fw = lab_program("fw", "fw")
    racecheck_env(monkeypatch)
    proc = run([fw, CASES / "graph2.txt", "--version", version, "-o", tmp_path / "d.bin"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "data race" not in proc.stderr


def test_solution_without_its_barrier_is_reported(tmp_path, monkeypatch):
    source = tmp_path / "src"
    shutil.copytree(SOLUTIONS_DIR / "fw", source / "fw")
    fw_c = source / "fw" / "fw.c"
    lines = fw_c.read_text().split("\n")
    store = next(i for i, line in enumerate(lines) if re.search(r"\btrkc = devArray", line)) + 1
    barrier = next(i for i in range(store, len(lines)) if "__syncthreads();" in lines[i])
    read = next(i for i in range(barrier, len(lines)) if "trkc" in lines[i]) + 1
    lines[barrier] = ""  # the line stays, so the others keep their numbers
    fw_c.write_text("\n".join(lines))
    built = build_lab(load_lab("fw"), src_root=source, build_dir=tmp_path / "build", emu=True, submission=True)
    assert built.ok, built.log
    racecheck_env(monkeypatch)
    proc = run([built.programs["fw"], CASES / "graph1.txt"], cwd=tmp_path)
    assert proc.returncode == EXIT_RACE, proc.stderr
    report = proc.stderr.strip()
    assert "\n" not in report
    assert re.fullmatch(
        rf"cuda-emu: data race on __shared__ trkc: thread \(1,0,0\) reads it at \S*fw\.c:{read}, "
        rf"thread \(0,0,0\) writes it at \S*fw\.c:{store}, no __syncthreads\(\) between "
        rf"\(block \(0,\d+,0\) of kernel fwStepK.*", report), report
