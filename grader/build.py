"""Stage 2, build: compiles one lab's programs from student files, in the build sandbox.

A build happens in two steps, so that untrusted code is never compiled where it can see the kit:

1. The trusted part, once per flavor (emulated or GPU architecture, ASan or not): the lab's
   harness, labs/common and the emulator's runtime, built by make outside any sandbox into
   build/harness/<flavor>/, under a lock (batch workers build side by side).
2. The student's part: make runs inside the sandbox (grader/sandbox.py) with the build's limits
   (grader/limits.py: wall time for the whole process tree, memory, processes, output kept).
   It sees the toolchain, the Makefile, the lab's harness sources and headers, the harness
   objects of step 1 (read-only, mounted where make looks for them), the student's files
   (read-only) and its own output folder, and nothing else of the kit: no solutions/, no
   testcases or expected outputs, no other build folder, no secret, no network.

Then the student's objects are checked for library calls the lab does not allow (symbols.py).
Where the sandbox cannot run, step 2 runs with the limits alone and the report says so.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import weakref
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.gpu import compute_capabilities, gpu_arch
from grader.intake import Source
from grader.labs import Lab
from grader.limits import Limits, MB
from grader.makefrag import make_variables
from grader.paths import BUILD_DIR, KIT_ROOT, LABS_DIR, STARTER_DIR
from grader.program_files import remove_tree
from grader.run import run_program
from grader.sandbox import Mount, Sandbox, clean_env, sandbox_for
from grader.shared_files import exclusive_lock
from grader import symbols
from grader.text import one_line, shorten_paths

BUILD_TIME_LIMIT_S = 600
BUILD_LIMITS = dict(processes=128, memory_bytes=4096 * MB, data_bytes=2048 * MB,
                    file_bytes=512 * MB, disk_bytes=1024 * MB)
_ERROR_LINE = re.compile(r"(error|Error|ERROR)\b")
# Runtime functions CUDA removed (the seeds predate the change): a CE that names one says what
# replaced it, under nvcc ("identifier ... is undefined") and the emulator alike.
REMOVED_API = {
    "cudaThreadSynchronize": "cudaDeviceSynchronize",
    "cudaThreadExit": "cudaDeviceReset",
    "cudaThreadSetLimit": "cudaDeviceSetLimit",
    "cudaThreadGetLimit": "cudaDeviceGetLimit",
    "cudaThreadSetCacheConfig": "cudaDeviceSetCacheConfig",
    "cudaThreadGetCacheConfig": "cudaDeviceGetCacheConfig",
}


@dataclass
class BuildResult:
    ok: bool
    programs: dict[str, Path]
    log: str
    reason: str  # why not ok, one line, as the student reads it: the compiler's first error, a limit, a forbidden call
    grader_error: bool = False  # the build could not be tried (the grader's fault, not the student's)


# On a GPU node the emulator runs what one GPU cannot show (several devices, its race detector):
# a submission must build there too, or a #error under CUDA_EMULATION would skip those runs.
EMULATED_BUILD_FAILED = "the emulated build (EMU=1) failed, and every submission must build under the emulator too"


def build_dir_for(source: Source, emu: bool, asan: bool, root: Path = BUILD_DIR) -> Path:
    return root / f"{'emu-' if emu else ''}{source.name}{'-asan' if asan else ''}"


@dataclass
class SourceBuilds:
    """The builds of one source a grading runs: the graded one (GPU or emulator, as graded), and
    on a GPU node the emulated ones the plans ask for (run_plan: EMULATED, EMULATED_ASAN), each
    made once, the first time a plan needs it.
    private: the builds go in a folder of their own under build/grading, made by the first build
    and removed with this object. A submission is built from nothing for each grading: a second
    grading of the same submission at once must not clear the programs this one runs. The kit's
    own trees share one build in build/ (make finds it up to date)."""
    lab: Lab
    source: Source
    emu: bool = field(kw_only=True)
    asan: bool = field(kw_only=True)
    sandbox: Sandbox | None = field(kw_only=True)
    private: bool = field(default=False, kw_only=True)
    _made: dict[tuple[bool, bool], BuildResult] = field(default_factory=dict, init=False, repr=False)
    _root: Path | None = field(default=None, init=False, repr=False)

    def get(self, emu: bool, asan: bool) -> BuildResult:
        if (emu, asan) not in self._made:
            self._made[emu, asan] = build_lab(self.lab, src_root=self.source.root, emu=emu, asan=asan,
                                              build_dir=build_dir_for(self.source, emu, asan, self.root()),
                                              submission=self.source.submission, sandbox=self.sandbox)
        return self._made[emu, asan]

    def root(self) -> Path:
        """The folder the builds go in (see the class's docstring)."""
        if not self.private:
            return BUILD_DIR
        if self._root is None:
            (BUILD_DIR / "grading").mkdir(parents=True, exist_ok=True)
            self._root = Path(tempfile.mkdtemp(prefix=f"{self.source.name}-{self.lab.id}.builds.",
                                               dir=BUILD_DIR / "grading"))
            weakref.finalize(self, remove_tree, self._root)
        return self._root

    def graded(self) -> BuildResult:
        return self.get(self.emu, self.asan)

    def set_graded(self, build: BuildResult) -> None:
        """A build made by the caller (one build for several gradings, case by case)."""
        self._made[self.emu, self.asan] = build


def first_error(log: str, *, emu: bool = False) -> str:
    """The line a student should read first: the compiler's first error, the linker's missing or
    doubled function, else the last line (never a compiler's command line). A runtime function
    CUDA removed gets its replacement named under nvcc (which says only that the identifier is
    undefined); the emulator's own error names it already (cuda_emu/removed_api.h)."""
    lines = [line.strip() for line in log.splitlines() if line.strip() and not line.startswith("make")]
    link = re.search(r"undefined reference to [`'](.+?)'", log)
    if link:
        return (f"link error: {link.group(1)} is not defined: the harness calls it; define it in your file "
                f"with exactly the signature the lab's header declares")
    missing = re.search(r"ld: cannot find (-l\S+?):?\s", log)
    if missing:  # whose failure it is, the harness's link check (build_harness) has said already
        return f"the linker cannot find {missing.group(1)} (a library is not installed)"
    double = re.search(r"multiple definition of [`'](.+?)'", log)
    if double:
        return f"link error: {double.group(1)} is defined twice (in your file and the harness?): rename yours"
    lines = [line for line in lines if not re.match(r"^\S*(g\+\+|gcc|nvcc|c\+\+)\s", line)]
    for line in lines:
        if _ERROR_LINE.search(line):
            return line if emu else _with_replacement(line)
    if lines:
        return lines[-1]
    made = [line.strip() for line in log.splitlines() if line.startswith("make")]  # make's own, last
    return made[-1] if made else "the build failed without a message"


def _with_replacement(line: str) -> str:
    for removed, replacement in REMOVED_API.items():
        if re.search(rf"\b{removed}\b", line):
            return f"{line} ({removed} was removed from CUDA; use {replacement})"
    return line


def flavor(emu: bool, asan: bool, arch: str | None) -> str:
    return ("emu" if emu else f"gpu-{arch or 'default'}") + ("-asan" if asan else "")


def make_args(lab: Lab, *, emu: bool, asan: bool, arch: str | None, python: str | None = None) -> list[str]:
    # A venv's python is a link into a folder the sandbox hides: the real one, or the sandbox's.
    python = python or os.path.realpath(sys.executable)
    found = compute_capabilities()
    args = [f"PYTHON={python}", f"EMU_PYTHON={python}", f"GPU_CC={found[0] if found else ''}"]
    # The lab's [build] settings from the lab.toml already read, not build/labs.mk (see the Makefile).
    args += ["LAB_SETTINGS=given", *(f"{name}={value}" for name, value in make_variables(lab).items())]
    # EMU=0, not nothing: where no GPU is found, make would otherwise build for the emulator.
    args += ["EMU=1"] if emu else ["EMU=0"] + ([f"ARCH={arch}"] if arch else [])
    return args + (["ASAN=1"] if asan else [])


def build_lock(name: str):
    """An exclusive lock between grading processes (batch workers side by side), by name."""
    return exclusive_lock(BUILD_DIR / "locks" / f"{name}.lock")


def build_harness(lab: Lab, *, emu: bool, asan: bool, arch: str | None) -> tuple[Path, BuildResult | None]:
    """Step 1: the lab's trusted objects, built by make outside the sandbox. Returns their
    folder and, when that build failed, why (a broken kit or toolchain, not the student)."""
    folder = BUILD_DIR / "harness" / flavor(emu, asan, arch)
    cmd = ["make", "--no-print-directory", "-C", str(KIT_ROOT), f"{lab.id}-harness", f"BUILD={folder}",
           *make_args(lab, emu=emu, asan=asan, arch=arch)]
    with build_lock(f"harness-{folder.name}"):
        outcome = run_program(cmd, time_limit_s=BUILD_TIME_LIMIT_S, env=dict(os.environ))
    if outcome.exit_code != 0:
        log = outcome.stdout + outcome.stderr
        return folder, BuildResult(False, {}, log, f"grader error, not yours: the lab's harness did not build "
                                   f"({first_error(log)}): install what is missing (make deps lists it) and "
                                   f"grade again", grader_error=True)
    return folder, None


def _view(lab: Lab, src_dir: Path, harness: Path, build_dir: Path, emu: bool) -> list[Mount]:
    """What the sandboxed build sees of the kit."""
    view = [Mount(KIT_ROOT / "Makefile"), Mount(LABS_DIR / "common"), Mount(LABS_DIR / lab.id), Mount(LABS_DIR / "emu"),
            Mount(STARTER_DIR / lab.id), Mount(src_dir),
            Mount(harness / "obj", build_dir / "obj")]
    if emu:  # the emulator's runtime, whichever variant emu.mk picks here (ASan, Boost or ucontext fibers)
        view.append(Mount(BUILD_DIR / "emu"))
    return view


def build_lab(lab: Lab, *, src_root: Path, build_dir: Path, emu: bool, submission: bool, asan: bool = False,
              sandbox: Sandbox | None = None, check_symbols: bool = True) -> BuildResult:
    """Builds the lab's programs from src_root (its <lab>/ folder, or itself) into build_dir.
    submission: whether the code is untrusted (the caller's Source.submission, or True for any code
    that is not the kit's own starter or solution): it sets the sandbox's strictness and clears the
    build folder first. Never read from where src_root is."""
    arch = None if emu else os.environ.get("ARCH") or gpu_arch()
    harness, failed = build_harness(lab, emu=emu, asan=asan, arch=arch)
    if failed:
        result = failed
    else:
        src_root, build_dir = Path(src_root).resolve(), Path(build_dir).resolve()
        # Two gradings of one source at once (a TA's check beside a batch, the references of a
        # verification round) build it one after the other: two makes in one folder link each
        # other's half-written objects.
        with build_lock(f"build-{build_dir.name}-{lab.id}"):
            result = _build_programs(lab, src_root, build_dir, harness, arch=arch, emu=emu, asan=asan,
                                     submission=submission, sandbox=sandbox, check_symbols=check_symbols)
    # Why not, as the student reads it: one line, the grader's folders off the file names.
    return replace(result, reason=one_line(shorten_paths(result.reason, src_root)))


def _build_programs(lab: Lab, src_root: Path, build_dir: Path, harness: Path, *, arch: str | None, emu: bool,
                    asan: bool, submission: bool, sandbox: Sandbox | None, check_symbols: bool) -> BuildResult:
    src_dir = src_root / lab.id if (src_root / lab.id).is_dir() else src_root
    sandbox = sandbox or sandbox_for(None, submission=submission)
    if not submission and sandbox.kind == "user":
        # The kit's own code, built as root: no sandbox user needs to see the reference's
        # folders (and two graders building it at once never hand them to two users).
        sandbox = Sandbox(False, "the kit's own code")
    python = sandbox.python() if sandbox.active else None
    cmd = ["make", "--no-print-directory", "-C", str(KIT_ROOT), "-f", "Makefile", lab.id, f"SRC_ROOT={src_root}",
           f"BUILD={build_dir}", *make_args(lab, emu=emu, asan=asan, arch=arch, python=python)]
    limits = Limits(wall_s=BUILD_TIME_LIMIT_S, cpu_s=BUILD_TIME_LIMIT_S * 2, work_dir=build_dir, **BUILD_LIMITS)
    view = _view(lab, src_dir, harness, build_dir, emu)

    # A submission's part always from nothing: an object left by an earlier build (one made with
    # the sandbox off, or from other files of the same name) must never be linked into this one.
    # The kit's own trees (starter/, solutions/) keep make's timestamps.
    if submission:
        remove_tree(build_dir / lab.id)
    build_dir.mkdir(parents=True, exist_ok=True)
    (build_dir / "obj").mkdir(exist_ok=True)
    # make writes only build_dir/<lab>/; the harness's objects beside it are read-only.
    (build_dir / lab.id).mkdir(exist_ok=True)

    def wrap(argv: list[str], status_fd: int) -> list[str]:
        return sandbox.wrap(argv, work=build_dir / lab.id, view=view, hide=list(lab.instructor_only_files),
                            tmp_bytes=1024 * MB, status_fd=status_fd, chdir=KIT_ROOT, toolchain=True)

    confined = dict(own_pid_namespace=sandbox.own_pid_namespace, cleanup=sandbox.cleanup) if sandbox.active else {}
    outcome = run_program(cmd, time_limit_s=BUILD_TIME_LIMIT_S, env=clean_env(os.environ), limits=limits,
                          wrap=wrap if sandbox.active else None, **confined)
    log = outcome.stdout + outcome.stderr
    programs = {name: build_dir / lab.id / name for name in lab.programs}
    if outcome.sandbox_error:
        return BuildResult(False, programs, log, f"grader error, not yours: the build sandbox did not start "
                           f"({one_line(outcome.sandbox_error)})", grader_error=True)
    stopped = _limit_reason(outcome)
    if stopped:
        return BuildResult(False, programs, log, stopped)
    if outcome.exit_code != 0:
        return BuildResult(False, programs, log, first_error(outcome.stderr or outcome.stdout, emu=emu))
    if check_symbols:
        objects = {name: build_dir / lab.id / f"{name}.o" for name in lab.programs}
        refused, grader_error = symbols.check(lab, objects, sandbox=sandbox, view=[Mount(build_dir)])
        if refused:
            return BuildResult(False, programs, log, refused, grader_error=grader_error)
    return BuildResult(True, programs, log, "")


def _limit_reason(outcome) -> str:
    if outcome.timed_out:
        return (f"the build took longer than {BUILD_TIME_LIMIT_S} s and was stopped (a file that includes "
                f"itself, or a macro that expands without end?)")
    if outcome.limit_hit == "memory":
        return "the compiler used more than its 4 GB of memory and was stopped (a macro that expands without end?)"
    if outcome.limit_hit:
        return f"the build was stopped at its {outcome.limit_hit} limit"
    if outcome.signal is not None:
        return f"the compiler was killed by signal {outcome.signal} (out of memory on a runaway file?)"
    if "virtual memory exhausted" in outcome.stderr or "out of memory" in outcome.stderr.lower():
        return "the compiler ran out of its 2 GB of memory (a macro that expands without end, or a self-including file?)"
    return ""
