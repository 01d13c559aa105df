"""Helpers for each lab's own pytest suite (tests/<lab>/test_*.py): build a lab's program,
under the CPU emulator by default, so the suite runs in CI without a GPU; make the emulator's
profile of a run by hand, for the work checks (grader/work.py, labs/<lab>/work_checks.py)."""

import atexit
import os
import shutil
import subprocess
from pathlib import Path

from grader.build import build_lab
from grader.build import build_dir_for
from grader.intake import Source
from grader.gpu import has_gpu
from grader.labs import load_lab
from grader.paths import BUILD_DIR, KIT_ROOT, SOLUTIONS_DIR, STARTER_DIR
from grader.program_files import remove_tree

EMU_READY = (KIT_ROOT / "labs/emu/include/cuda_runtime.h").exists()


def whole_run() -> bool:
    """Whether the checks that make test runs in a shorter form to stay within CI's time (a lab
    or two of all, a part of a corpus, a kit whose emulator is already built) run whole: bash
    tests/every_lab.sh sets LABKIT_EVERY_LAB=1 for that."""
    return bool(os.environ.get("LABKIT_EVERY_LAB"))


def lab_program(lab_id: str, program: str, *, flavor: str = "solution", emu: bool = True) -> Path:
    """Builds <flavor> of the lab (solution or starter) and returns the program's path."""
    # pytest here, not at the top: the corpora's scripts import this module (hand_in) where
    # pytest is not installed, as a TA's own account on a GPU node.
    import pytest

    if emu and not EMU_READY:
        pytest.skip("the CPU emulator (labs/emu) is not in this tree")
    if not emu and not has_gpu():
        pytest.skip("GPU test: no CUDA GPU on this machine")
    source = Source(flavor, SOLUTIONS_DIR if flavor == "solution" else STARTER_DIR)
    result = build_lab(load_lab(lab_id), src_root=source.root, build_dir=build_dir_for(source, emu, False), emu=emu,
                       submission=source.submission)
    assert result.ok, result.log
    return result.programs[program]


_HANDED_IN: set[Path] = set()


def hand_in(name: str, *folders: Path) -> Path:
    """A corpus's submission copied where the grader keeps handed-in folders, build/unpacked/<name>,
    each folder's files over the one's before (as intake does, without its checks: some entries
    are wrong in ways intake would refuse). A sandbox user is granted the folders above the
    sources it builds, so two gradings side by side must not share a kit folder above theirs:
    the folder is this process's own (two corpus scripts at once hand in the same entry), and
    goes when the process ends."""
    folder = BUILD_DIR / "unpacked" / f"{name}.{os.getpid()}"
    remove_tree(folder)
    if folder not in _HANDED_IN:  # removed once, at exit, however often it is handed in again
        _HANDED_IN.add(folder)
        atexit.register(remove_tree, folder)
    for source in folders:
        shutil.copytree(source, folder, symlinks=True, dirs_exist_ok=True)
    return folder


def run(argv, **kw) -> subprocess.CompletedProcess:
    """Runs a program, capturing text output; never raises on a non-zero exit."""
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=kw.pop("timeout", 300), **kw)


def seed_kit_build(kit: Path, folders: tuple[str, ...] = ("emu", "harness")) -> None:
    """Copies this kit's built emulator runtime and harness objects into another copy of the kit
    (an LMS bundle's kit/, unpacked or written by a test), all with one time newer than the
    bundle's files, so its first grading does not spend minutes building them again: make finds
    them up to date whatever time unpacking gave the sources (zipfile: the time of unpacking).
    A test that checks the first grading's own build does not call this; one that checks that the
    copy's own harness builds seeds ("emu",) alone."""
    import shutil
    import time
    for folder in folders:
        source = BUILD_DIR / folder
        if source.is_dir():
            shutil.copytree(source, kit / "build" / folder, copy_function=shutil.copy, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("tests", "bench", "locks"))
    now = time.time()  # one time for all: no seeded object newer than what it goes into
    for path in (kit / "build").rglob("*"):
        os.utime(path, (now, now), follow_symlinks=False)


# ---- Hand-made profiles (labs/emu/src/engine/profiler.h writes the real ones).
# The writers of a result's bytes: a kernel, the student's cudaMemcpy, the harness's upload.
KERNEL_WRITER, HOST_WRITER, HARNESS_WRITER = 1, 2, 3
PROFILE_WRITERS = [
    {"id": 0, "kind": "never"},
    {"id": KERNEL_WRITER, "kind": "kernel", "name": "k", "file": "sub/lab/lab.c", "line": 9, "device": 0},
    {"id": HOST_WRITER, "kind": "host_copy", "name": "cudaMemcpy", "file": "sub/lab/lab.c", "line": 40, "device": 0},
    {"id": HARNESS_WRITER, "kind": "host_copy", "name": "cudaMemcpy", "file": "labs/lab/main.cpp", "line": 140,
     "origin": "harness", "device": 0},
]


def profile_launch(kernel="k", threads=256, loads=None, shared_loads=0, file="sub/lab/x.c", device=0,
                   origin="program") -> dict:
    """One launch: a global load site (`loads`: requests, sectors, bytes, accesses), and a shared
    one where `shared_loads` requests are asked for; `origin` "harness" where the kit's harness made it."""
    sites = [{"file": file, "line": 3, "name": "A", "global_load": loads or {"requests": 1, "sectors": 4,
                                                                            "bytes": 128, "accesses": 32}}]
    if shared_loads:
        sites.append({"file": file, "line": 4, "name": "tile", "shared_load": {"requests": shared_loads}})
    return {"kernel": kernel, "file": file, "line": 1, "origin": origin, "device": device, "threads": threads,
            "sites": sites}


def result_part(writers, device=0, changed=False) -> dict:
    """A part of the result as the harness copied it back from `device` (-1: from the host):
    `writers` are (writer id, bytes) pairs."""
    return {"bytes": sum(b for _, b in writers), "device": device, "file": "labs/lab/main.cpp", "line": 157,
            "changed_on_host": changed, "writers": [list(w) for w in writers]}


def result_profile(parts, launches=(), devices=()) -> dict:
    """A profile whose one result, "C", is made of `parts`."""
    return {"launches": list(launches), "writers": PROFILE_WRITERS, "devices": list(devices),
            "outputs": [{"what": "C", "bytes": sum(p["bytes"] for p in parts), "parts": parts}]}
