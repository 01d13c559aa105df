"""Helpers for each lab's own pytest suite (tests/<lab>/test_*.py): build a lab's program,
under the CPU emulator by default, so the suite runs in CI without a GPU."""

import subprocess
from pathlib import Path

import pytest

from grader.build import build_lab
from grader.build import Source, build_dir_for
from grader.gpu import has_gpu
from grader.labs import load_lab
from grader.paths import BUILD_DIR, KIT_ROOT, SOLUTIONS_DIR, STARTER_DIR

EMU_READY = (KIT_ROOT / "labs/emu/include/cuda_runtime.h").exists()


def lab_program(lab_id: str, program: str, *, flavor: str = "solution", emu: bool = True) -> Path:
    """Builds <flavor> of the lab (solution or starter) and returns the program's path."""
    if emu and not EMU_READY:
        pytest.skip("the CPU emulator (labs/emu) is not in this tree")
    if not emu and not has_gpu():
        pytest.skip("GPU test: no CUDA GPU on this machine")
    source = Source(flavor, SOLUTIONS_DIR if flavor == "solution" else STARTER_DIR)
    result = build_lab(load_lab(lab_id), src_root=source.root, build_dir=build_dir_for(source, emu, False), emu=emu)
    assert result.ok, result.log
    return result.programs[program]


def run(argv, **kw) -> subprocess.CompletedProcess:
    """Runs a program, capturing text output; never raises on a non-zero exit."""
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=kw.pop("timeout", 300), **kw)


def seed_kit_build(kit: Path) -> None:
    """Copies this kit's built emulator runtime and harness objects into another copy of the kit
    (an LMS bundle's kit/, unpacked by a test), with their times, so its first grading does not
    spend minutes building them again; make finds them up to date (the bundle's sources carry
    an older fixed time). A test that checks the first grading's own build does not call this."""
    import shutil
    for folder in ("emu", "harness"):
        source = BUILD_DIR / folder
        if source.is_dir():
            shutil.copytree(source, kit / "build" / folder, copy_function=shutil.copy2, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("tests", "bench", "locks"))
