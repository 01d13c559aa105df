"""Builds and runs untrusted code in a sandbox: bubblewrap where it works, else the floor this
grader can have without namespaces. Each grading names the kind it used in its report.

    bubblewrap  (Debian's `bubblewrap`, the `bwrap` command) where user namespaces work: the
                view below, its own PID and network namespaces;
    user        as root without namespaces (Gradescope's and PrairieLearn's containers): the
                command runs as a sandbox user that cannot open the answers or signal the
                grader (grader/sandbox_user.py), plus Landlock and seccomp where the kernel has
                them (grader/confine.py);
    landlock    as an ordinary user without namespaces (a cluster node), Linux 5.13+: Landlock
                lets the command open only its view, and seccomp keeps it from the network and
                from signalling anything but itself (grader/confine.py).

What a program sees in bubblewrap: the system's programs and libraries read-only (/usr and the
/bin, /lib links), a few files of /etc that the dynamic loader needs, its own /proc (own PID
namespace), a minimal /dev (plus /dev/nvidia* and /sys read-only when there is a GPU), a private
/tmp, the kit's labs/ folder read-only, its own program and this testcase's input read-only, and
one writable work folder for the case's output. It has no network (its own empty network
namespace), no capabilities, and dies with the grader. Landlock allows the same paths (with
/proc and /sys read-only, TMPDIR in the work folder). What it never sees: the rest of the kit
(solutions/, testcases/, build/ with every expected output and hidden input), the instructor's
secret, the home folders, and the grader's environment: only the variables in ENV_KEEP reach
it, so LABKIT_SECRET does not.

Which kinds work is found by trying each once. Modes: "auto" (the first that works, in the
order above; a submission is refused where none does), "require" (the same, for the kit's own
code too), a kind by name (that one or refuse), "off" (limits only, when a TA asks for it by
name); LABKIT_SANDBOX sets the default. LABKIT_BWRAP=none and LABKIT_LANDLOCK=off make those
unavailable (the tests grade every kind on one machine).
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
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grader import sandbox_user
from grader.limits import cgroups_available
from grader.paths import KIT_ROOT, LABS_DIR, STARTER_DIR
from grader.verdict import EXIT_MEMCHECK

KINDS = ("bubblewrap", "user", "landlock")
MODES = ("auto", "require", "off") + KINDS
CONFINE = Path(__file__).resolve().parent / "confine.py"
# What a command confined without namespaces may read besides its view (Landlock's allow-list),
# and write besides its work folder: its own /proc/<pid>, which the CUDA driver writes to (the
# rule resolves /proc/self in the launcher, whose pid the program keeps; a program started by a
# supervising tool, compute-sanitizer, has a pid of its own: then /proc, where a process may
# write only what its own user may).
SYSTEM_FILES = ("/proc", "/sys")
SYSTEM_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")  # written too
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
    """How untrusted code is built and run: confined (active, by `kind`) or not (why_off says why)."""
    active: bool
    why_off: str = ""
    bwrap: str = ""
    tmpfs_size: bool = False  # this bwrap knows --size
    kind: str = ""  # one of KINDS when active
    landlock_abi: int = 0  # Landlock's ABI version where the kind uses it (0: not used)
    user: sandbox_user.SandboxUser | None = field(default=None, compare=False)

    def describe(self) -> str:
        """The protection in a few words, for every report."""
        if not self.active:
            return "limits only"
        if self.kind == "bubblewrap":
            return "bubblewrap"
        parts = [f"sandbox user {self.user.uid}"] if self.kind == "user" else []
        parts.append(f"Landlock ABI {self.landlock_abi}" if self.landlock_abi else "no Landlock (kernel)")
        return " + ".join(parts + ["seccomp"])

    @property
    def own_pid_namespace(self) -> bool:
        """Whether the command's processes all die with it (bubblewrap's PID namespace)."""
        return self.kind == "bubblewrap"

    def cleanup(self) -> None:
        """After a build or run: nothing of the sandbox user's left running."""
        if self.kind == "user":
            sandbox_user.kill_all(self.user.uid)

    def python(self) -> str:
        """A Python the confined command can run (the emulator's rewriter): this one, unless the
        sandbox user cannot reach it (pyenv under /root), then the system's."""
        mine = os.path.realpath(sys.executable)
        if self.kind != "user" or _reachable_by_others(mine):
            return mine
        for folder in ("/usr/local/bin", "/usr/bin", "/bin"):
            candidate = os.path.realpath(os.path.join(folder, "python3"))
            if os.path.exists(candidate) and _reachable_by_others(candidate):
                return candidate
        raise SandboxError(f"the sandbox user cannot run {mine} (a folder above it is closed) and there is no "
                           f"python3 in /usr/bin: install one (Debian: apt-get install python3)")

    def wrap(self, argv: list[str], *, work: Path, view: list[Mount] = (), hide: list[Path] = (),
             gpu: bool = False, tmp_bytes: int | None = None, status_fd: int | None = None,
             chdir: Path | None = None, toolchain: bool = False, supervised: bool = False) -> list[str]:
        """The command line that runs argv seeing only the system, `view` and `work` (writable).
        supervised: argv is a tool (compute-sanitizer) that runs the program as its child."""
        if not self.active:
            return list(argv)
        if self.kind != "user":
            sandbox_user.reclaim(Path(work))
        if self.kind != "bubblewrap":
            return self._confine(list(argv), work=Path(work).resolve(), view=view, hide=[Path(p) for p in hide],
                                 gpu=gpu, status_fd=status_fd, chdir=chdir, toolchain=toolchain,
                                 supervised=supervised)
        # bubblewrap: the kit's own folder is an empty tmpfs in which only `view` appears.
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

    def _confine(self, argv: list[str], *, work: Path, view, hide: list[Path], gpu: bool,
                 status_fd: int | None, chdir: Path | None, toolchain: bool, supervised: bool) -> list[str]:
        """grader/confine.py's command line: Landlock's allow-list (read: the system and `view`;
        write: `work`), and for the user kind the files and folders handed to the sandbox user.
        A Mount shown elsewhere (target) is copied there first: no namespace can remap a path."""
        reads = [*SYSTEM_DIRS, *_library_dirs(), *(toolchain_dirs() if toolchain else []), *ETC_FILES,
                 *SYSTEM_FILES]
        devices = [*SYSTEM_DEVICES, *(gpu_device_nodes() if gpu else [])]
        writes = [work, "/proc" if supervised else "/proc/self"]
        user = self.user
        if user is not None:
            sandbox_user.close_kit(hide)
            sandbox_user.kill_all(user.uid)
            sandbox_user.give_folder(user, work)
        for mount in view:
            path = Path(mount.target or mount.source).resolve()
            if mount.target is not None and path != Path(mount.source).resolve():
                _copy_tree(Path(mount.source).resolve(), path)
            if mount.writable:
                writes.append(path)
                if user is not None:
                    sandbox_user.give_folder(user, path)
            elif user is not None and not sandbox_user.is_public(path):
                if path.is_dir():
                    sandbox_user.show_folder(user, path, besides=work)
                else:
                    link = sandbox_user.show_file(path, work)
                    argv = [str(link) if arg == str(path) else arg for arg in argv]
                    path = link
            # labs/ and starter/ whole: make lists them (labs/*/lab.toml), and they are public.
            reads.append(next((tree for tree in (LABS_DIR, STARTER_DIR) if tree in path.parents), path))
        readable, listed = _allowed(reads, hide)
        spec = {"read": [str(p) for p in readable], "list": [str(p) for p in listed],
                "write": [str(p) for p in writes], "devices": devices,
                "landlock": self.landlock_abi > 0, "env": {"TMPDIR": str(work)},
                "chdir": str(Path(chdir).resolve() if chdir else work), "status_fd": status_fd}
        if user is not None:
            spec.update(uid=user.uid, gid=user.gid)
        return [os.path.realpath(sys.executable), "-I", "-S", str(CONFINE), json.dumps(spec), "--", *argv]


def _allowed(paths: list, hide: list[Path]) -> tuple[list[Path], list[Path]]:
    """(readable, listed): paths, less every hidden one. A folder that holds a hidden path is
    replaced by its other entries (Landlock allows, it cannot deny inside what it allows), and
    stays listable: make's wildcards (labs/*/lab.toml) must still find its entries' names."""
    readable, listed = [], []
    for path in map(Path, paths):
        inner = [h for h in hide if path in h.parents]
        if not inner or not path.is_dir():
            if path not in hide:
                readable.append(path)
            continue
        listed.append(path)
        more_readable, more_listed = _allowed([child for child in path.iterdir() if child not in hide], inner)
        readable += more_readable
        listed += more_listed
    return readable, listed


def _copy_tree(source: Path, target: Path) -> None:
    """source's files at target, with their times (make must find them up to date)."""
    shutil.copytree(source, target, copy_function=shutil.copy2, dirs_exist_ok=True)


def _reachable_by_others(path: str) -> bool:
    """Whether a user with no rights of its own can run the file at path."""
    try:
        if not os.stat(path).st_mode & 0o001:
            return False
        return all(os.stat(parent).st_mode & 0o001 for parent in Path(path).parents)
    except OSError:
        return False


def run_view(program: Path, input_path: Path | None) -> list[Mount]:
    """What a lab program sees of the kit: labs/ (its harness's data), itself and its input."""
    return [Mount(LABS_DIR), Mount(program)] + ([Mount(input_path)] if input_path else [])


def _has_size_option(bwrap: str) -> bool:
    try:
        text = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--size" in text


# The probe: the work folder writable, and the kit's answers out of reach (build/ hides them all).
PROBE = "test -w . && ! head -c1 /etc/shadow >/dev/null 2>&1 && ! ls {build} >/dev/null 2>&1"


def _try(candidate: Sandbox, what: str) -> Sandbox:
    """candidate if a command runs in it as real runs do; otherwise an inactive Sandbox saying why."""
    from grader.paths import BUILD_DIR
    with tempfile.TemporaryDirectory(prefix="labkit-probe-") as work:
        argv = candidate.wrap(["/bin/sh", "-c", PROBE.format(build=BUILD_DIR)], work=Path(work),
                              gpu=bool(gpu_device_nodes()), tmp_bytes=1 << 20, toolchain=True)
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as e:
            return Sandbox(False, f"{what} did not run: {e}")
        finally:
            candidate.cleanup()
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[0]
        return Sandbox(False, f"{what} did not confine a test command ({first})")
    return candidate


def _landlock_abi() -> int:
    if os.environ.get("LABKIT_LANDLOCK", "").lower() in ("0", "off", "no", "false"):
        return 0
    from grader import confine
    return confine.landlock_abi()


@functools.lru_cache(maxsize=None)
def _probe(kind: str) -> Sandbox:
    """Tries one kind once with the options real runs use; why_off says why not."""
    if kind == "bubblewrap":
        bwrap = os.environ.get("LABKIT_BWRAP") or shutil.which("bwrap")
        if bwrap in (None, "none") or not os.path.exists(bwrap):
            return Sandbox(False, "bubblewrap is not installed (Debian: apt-get install bubblewrap)")
        found = _try(Sandbox(True, bwrap=bwrap, tmpfs_size=_has_size_option(bwrap), kind=kind), "bubblewrap")
        if not found.active:
            return Sandbox(False, found.why_off + "; user namespaces may be disabled (sysctl "
                           "kernel.unprivileged_userns_clone, user.max_user_namespaces) or forbidden by a container")
        return found
    abi = _landlock_abi()
    if kind == "landlock":
        if not abi:
            return Sandbox(False, "Landlock is not available (Linux 5.13 or later with landlock in its LSM list, "
                                  "and a container that allows its three system calls)")
        return _try(Sandbox(True, kind=kind, landlock_abi=abi), "Landlock")
    if os.geteuid() != 0:
        return Sandbox(False, "a sandbox user needs the grader to run as root")
    try:
        user = sandbox_user.acquire()
    except sandbox_user.SandboxUserError as e:
        return Sandbox(False, str(e))
    return _try(Sandbox(True, kind=kind, landlock_abi=abi, user=user), "the sandbox user")


WHAT_TO_ASK = ("ask the administrators for unprivileged user namespaces (bubblewrap), or Linux 5.13+ with "
               "Landlock, or run the grader as root (it then drops each program to a sandbox user)")


def add_arguments(parser) -> None:
    """--sandbox and --no-sandbox, the same on every command that builds or runs a submission."""
    parser.add_argument("--sandbox", choices=MODES, default=None,
                        help="run each build and case in a sandbox: auto (default, or LABKIT_SANDBOX: the "
                             "first of bubblewrap, user, landlock that works here; a submission is refused where "
                             "none does), require, a kind by name, or off (limits alone)")
    parser.add_argument("--no-sandbox", action="store_true", help="the same as --sandbox off")


def chosen_mode(args) -> str | None:
    return "off" if args.no_sandbox else args.sandbox


def sandbox_for(mode: str | None = None, *, submission: bool = False) -> Sandbox:
    """The sandbox for a grading run; mode None takes LABKIT_SANDBOX (default auto). Where no
    kind works, a submission (and mode require) is refused: SandboxError says what to ask for."""
    mode = (mode or os.environ.get("LABKIT_SANDBOX") or "auto").lower()
    if mode in ("0", "no", "false"):
        mode = "off"
    if mode not in MODES:
        raise SandboxError(f"LABKIT_SANDBOX={mode!r}: use one of {', '.join(MODES)}")
    if mode == "off":
        return Sandbox(False, "turned off by name (--sandbox off, --no-sandbox or LABKIT_SANDBOX=off)")
    if mode in KINDS:
        sandbox = _probe(mode)
        if not sandbox.active:
            raise SandboxError(f"the sandbox {mode} was asked for but {sandbox.why_off}")
        return sandbox
    reasons = []
    for kind in KINDS:
        sandbox = _probe(kind)
        if sandbox.active:
            return sandbox
        reasons.append(f"{kind}: {sandbox.why_off}")
    why = "no sandbox can run here (" + "; ".join(reasons) + ")"
    if mode == "require" or submission:
        raise SandboxError(f"refusing to grade a submission: {why}. To protect the grades, {WHAT_TO_ASK}; "
                           f"to grade with limits alone, ask for it by name: --sandbox off (LABKIT_SANDBOX=off)")
    return Sandbox(False, why)


def protection_notes(sandbox: Sandbox) -> list[str]:
    """What protects a grading run, said once in its report; loud when the sandbox is off."""
    cgroups = cgroups_available()
    limits = (f"limits on: wall time, CPU time, file size, stdout/stderr kept to 64 KiB, work folder "
              f"size, processes ({'pids cgroup' if cgroups['processes'] else 'watchdog count'}), "
              f"memory ({'memory cgroup' if cgroups['memory'] else 'OFF: no cgroup can be made here'})")
    if sandbox.kind == "bubblewrap":
        return [f"sandbox on (bubblewrap): no network, own PID namespace, only the case's input and "
                f"work folder in view; {limits}"]
    if sandbox.active:
        return [f"sandbox on ({sandbox.describe()}): no network, no signals to the grader, "
                f"only the case's input and work folder in reach; {limits}"]
    return [f"WARNING: SANDBOX OFF, {sandbox.why_off}. Protections OFF: the program can read "
            f"any file the grader can (expected outputs, solutions), use the network, and leave "
            f"behind processes that leave its session; {limits}"]
