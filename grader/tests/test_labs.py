"""Every lab's configuration loads, and the Makefile fragment is made from it."""

import subprocess
import sys

import pytest

from grader.labs import ConfigError, lab_ids, load_lab
from grader.paths import KIT_ROOT, SOLUTIONS_DIR, STARTER_DIR


def test_labs_are_the_folders_with_a_lab_toml():
    assert "increment" in lab_ids()
    assert lab_ids() == sorted(p.parent.name for p in (KIT_ROOT / "labs").glob("*/lab.toml"))


@pytest.mark.parametrize("lab_id", lab_ids())
def test_lab_loads_and_its_trees_belong_together(lab_id):
    lab = load_lab(lab_id)
    assert lab.programs, f"starter/{lab_id} has no .c files"
    assert lab.cases, f"testcases/{lab_id}/cases.toml has no cases"
    assert any(c.group == "public" for c in lab.cases)
    starter = sorted(p.name for p in (STARTER_DIR / lab_id).glob("*.c"))
    solution = sorted(p.name for p in (SOLUTIONS_DIR / lab_id).glob("*.c"))
    assert starter == solution, "solutions/<lab> must have the same file names as starter/<lab>"
    assert (KIT_ROOT / "handouts" / f"{lab_id}.md").exists()
    for run in lab.bench:
        assert run[0] in lab.programs


def test_unknown_lab_names_the_labs():
    with pytest.raises(ConfigError, match="no lab named 'nope'; the labs are: .*increment"):
        load_lab("nope")


def test_makefrag_prints_every_lab_settings():
    out = subprocess.run([sys.executable, "-m", "grader.makefrag", *lab_ids()], cwd=KIT_ROOT,
                         capture_output=True, text=True, check=True).stdout
    for lab_id in lab_ids():
        assert f"LAB_{lab_id}_LDLIBS :=" in out


def test_make_check_without_lab_says_which_labs_exist():
    proc = subprocess.run(["make", "-s", "check"], cwd=KIT_ROOT, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "say which lab: LAB=<lab>, one of:" in proc.stderr and "increment" in proc.stderr


def test_make_check_with_unknown_lab():
    proc = subprocess.run(["make", "-s", "check", "LAB=nope"], cwd=KIT_ROOT, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "LAB=nope names no lab" in proc.stderr


def test_make_help_lists_targets():
    out = subprocess.run(["make", "-s", "help"], cwd=KIT_ROOT, capture_output=True, text=True).stdout
    for target in ("make check LAB=<lab>", "make bench LAB=<lab>", "make submit LAB=<lab>", "make test", "EMU=1"):
        assert target in out


def test_missing_nvcc_says_what_to_do():
    proc = subprocess.run(["make", "-s", "increment", "EMU=0", "NVCC=/nonexistent/nvcc"], cwd=KIT_ROOT,
                          capture_output=True, text=True)
    assert proc.returncode != 0
    assert "nvcc not found (NVCC=/nonexistent/nvcc)" in proc.stderr
    assert "EMU=1" in proc.stderr
