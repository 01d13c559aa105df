"""Builds and runs untrusted code inside bubblewrap (Debian's `bubblewrap`, the `bwrap` command).

Both sandboxes show the system read-only and hide the kit's own folder under an empty tmpfs, in
which only the Mounts a caller names appear: the build (build.py) sees the Makefile, the lab's
harness, the toolchain and the student's files; a run sees what follows.

What a program sees: the system's programs and libraries read-only (/usr and the /bin, /lib
links), a few files of /etc that the dynamic loader needs, its own /proc (own PID namespace),
a minimal /dev (plus /dev/nvidia* and /sys read-only when there is a GPU), a private /tmp, the
kit's labs/ folder read-only, its own program and this testcase's input read-only, and one
writable work folder for the case's output. It has no network (its own empty network
namespace), no capabilities, and dies with the grader. What it never sees: the rest of the
kit (solutions/, testcases/, build/ with every expected output and hidden input), the
instructor's secret, the home folders, and the grader's environment: only the variables in
ENV_KEEP reach it, so LABKIT_SECRET does not.

Whether bubblewrap works is found by trying it once (user namespaces may be off, or the grader
may itself run in a container that forbids them). Modes: "auto" (use it when it works),
"require" (refuse to grade without it), "off" (limits only); LABKIT_SANDBOX sets the default.
"""

from __future__ import annotations

import atexit
import functools
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.paths import KIT_ROOT, LABS_DIR
from grader.verdict import EXIT_MEMCHECK

MODES = ("auto", "require", "off")
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/passwd", "/etc/group",
             "/etc/nsswitch.conf", "/etc/localtime", "/etc/alternatives")
# Variables the program may see; everything else (a secret, tokens, the grader's paths) is dropped.
ENV_KEEP = re.compile(r"^(PATH|LANG|LC_[A-Z]+|TZ|TERM|CUDA_[A-Z_]+|NVIDIA_[A-Z_]+|LD_LIBRARY_PATH|"
                      r"LABKIT_EMU[A-Z_]*|EMU_[A-Z_]+|OMP_[A-Z_]+|(ASAN|UBSAN|LSAN|TSAN)_OPTIONS)$")


class SandboxError(Exception):
    """The sandbox was required but cannot run here; the message says why and what to do."""


def clean_env(env: dict[str, str], **extra: str) -> dict[str, str]:
    """The environment a lab program gets: ENV_KEEP's variables, HOME in /tmp, and extra."""
    kept = {k: v for k, v in env.items() if ENV_KEEP.match(k)}
    kept.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    # An ASAN=1 build reports leaks at exit with a failing status; a kernel's out-of-bounds access
    # is what grading with ASan is for, not memory a program never freed. Stack use after return
    # is off as GCC 12's libasan has it (GCC 13's has it on, and runs emulated kernels several
    # times slower), so that a grade does not depend on the grading machine's compiler.
    kept.setdefault("ASAN_OPTIONS", f"detect_leaks=0:detect_stack_use_after_return=0:exitcode={EXIT_MEMCHECK}")
    return {**kept, "HOME": "/tmp", **extra}


def gpu_device_nodes() -> list[str]:
    return sorted(glob.glob("/dev/nvidia*"))


def _library_dirs() -> list[str]:
    """Folders outside /usr that the CUDA runtime or driver libraries may come from."""
    dirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d]
    cuda = os.environ.get("CUDA_PATH") or os.environ.get("CUDA_HOME")
    if cuda:
        dirs.append(cuda)
    nvcc = shutil.which("nvcc")
    if nvcc:
        dirs.append(str(Path(nvcc).resolve().parent.parent))
    out = []
    for d in dirs:
        path = os.path.realpath(d)
        if os.path.isdir(path) and not any(_under(path, s) for s in SYSTEM_DIRS) \
                and not _under(path, str(KIT_ROOT)) and path not in out and path != "/":
            out.append(path)
    return out


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


@functools.lru_cache(maxsize=None)
def _empty_file() -> str:
    """An empty file to mount over a secret file (/dev/null would be a device the sandbox's
    nodev mounts refuse to open, which tells the program something is there)."""
    fd, path = tempfile.mkstemp(prefix="labkit-empty-")
    os.close(fd)
    os.chmod(path, 0o444)
    atexit.register(os.unlink, path)
    return path


@dataclass(frozen=True)
class Mount:
    """One path the sandboxed command sees: source shown at target (itself by default)."""
    source: Path
    target: Path | None = None
    writable: bool = False


def toolchain_dirs() -> list[str]:
    """Folders outside the system's that a build needs: the CUDA toolkit and this Python (the
    emulator's rewriter runs on it; pyenv and venv installs live under /root or /opt)."""
    python = os.path.realpath(sys.base_prefix)
    return [d for d in [python] if os.path.isdir(d) and not any(_under(d, s) for s in SYSTEM_DIRS)]


@dataclass(frozen=True)
class Sandbox:
    """How untrusted code is built and run: inside bwrap (active) or not (why_off says why)."""
    active: bool
    why_off: str = ""
    bwrap: str = ""
    tmpfs_size: bool = False  # this bwrap knows --size

    def wrap(self, argv: list[str], *, work: Path, view: list[Mount] = (), hide: list[Path] = (),
             gpu: bool = False, tmp_bytes: int | None = None, status_fd: int | None = None,
             chdir: Path | None = None, toolchain: bool = False) -> list[str]:
        """The bwrap command line that runs argv seeing only the system, `view` and `work`
        (writable). The kit's own folder is an empty tmpfs in which only `view` appears."""
        if not self.active:
            return list(argv)
        cmd = [self.bwrap, "--unshare-all", "--die-with-parent", "--hostname", "labkit"]
        if os.geteuid() == 0:
            cmd += ["--cap-drop", "ALL"]
        extra_dirs = _library_dirs() + (toolchain_dirs() if toolchain else [])
        for folder in SYSTEM_DIRS + tuple(extra_dirs):
            if os.path.islink(folder):
                cmd += ["--symlink", os.readlink(folder), folder]
            elif os.path.isdir(folder):
                cmd += ["--ro-bind", folder, folder]
        for path in ETC_FILES:
            if os.path.exists(path):
                cmd += ["--ro-bind", path, path]
        cmd += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm"]
        if gpu:
            for node in gpu_device_nodes():
                cmd += ["--dev-bind", node, node]
            cmd += ["--ro-bind", "/sys", "/sys"]
        if tmp_bytes and self.tmpfs_size:
            cmd += ["--size", str(tmp_bytes)]
        cmd += ["--tmpfs", "/tmp"]
        # The kit (solutions, testcases, build/ with expected outputs and hidden inputs) is
        # hidden under an empty tmpfs, whatever binds above reached it; so are other secrets.
        cmd += ["--tmpfs", str(KIT_ROOT)]
        for path in hide:
            path = Path(path)
            if path.is_dir():
                cmd += ["--tmpfs", str(path)]
            elif path.exists():
                cmd += ["--ro-bind", _empty_file(), str(path)]
        work = Path(work).resolve()
        mounts = list(view) + [Mount(work, writable=True)]
        # Parents before children, so a read-only mount inside the writable folder stays on top.
        for mount in sorted(mounts, key=lambda m: len(Path(m.target or m.source).resolve().parts)):
            source = Path(mount.source).resolve()
            target = Path(mount.target).resolve() if mount.target else source
            cmd += ["--bind" if mount.writable else "--ro-bind", str(source), str(target)]
        cmd += ["--chdir", str(Path(chdir).resolve() if chdir else work)]
        if status_fd is not None:
            cmd += ["--json-status-fd", str(status_fd)]
        return cmd + ["--", *argv]


def run_view(program: Path, input_path: Path | None) -> list[Mount]:
    """What a lab program sees of the kit: labs/ (its harness's data), itself and its input."""
    return [Mount(LABS_DIR), Mount(program)] + ([Mount(input_path)] if input_path else [])


def _has_size_option(bwrap: str) -> bool:
    try:
        text = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--size" in text


@functools.lru_cache(maxsize=None)
def _probe() -> Sandbox:
    """Tries bwrap once with the options real runs use; the first error line says why not."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Sandbox(False, "bubblewrap is not installed (Debian: apt-get install bubblewrap)")
    candidate = Sandbox(True, bwrap=bwrap, tmpfs_size=_has_size_option(bwrap))
    with tempfile.TemporaryDirectory(prefix="labkit-probe-") as work:
        argv = candidate.wrap(["/bin/sh", "-c", "test -w . && ! test -e /etc/shadow"], work=Path(work),
                              gpu=bool(gpu_device_nodes()), tmp_bytes=1 << 20, toolchain=True)
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as e:
            return Sandbox(False, f"bubblewrap did not run: {e}")
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[0]
        return Sandbox(False, f"bubblewrap cannot make its namespaces here ({first}); user namespaces "
                              f"may be disabled (sysctl kernel.unprivileged_userns_clone, "
                              f"user.max_user_namespaces) or forbidden by a container")
    return candidate


def sandbox_for(mode: str | None = None) -> Sandbox:
    """The sandbox for a grading run; mode None takes LABKIT_SANDBOX (default auto)."""
    mode = (mode or os.environ.get("LABKIT_SANDBOX") or "auto").lower()
    if mode in ("0", "no", "false"):
        mode = "off"
    if mode not in MODES:
        raise SandboxError(f"LABKIT_SANDBOX={mode!r}: use one of {', '.join(MODES)}")
    if mode == "off":
        return Sandbox(False, "turned off (--no-sandbox or LABKIT_SANDBOX=off)")
    sandbox = _probe()
    if mode == "require" and not sandbox.active:
        raise SandboxError(f"the sandbox is required but {sandbox.why_off}")
    return sandbox
