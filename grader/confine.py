"""The launcher that confines one command where bubblewrap cannot run (no user namespaces).

    python3 -I -S grader/confine.py SPEC -- argv...

SPEC is a JSON object written by grader/sandbox.py. In this order, before it execs argv:

1. as root, with "uid": RLIMIT_NPROC for that user, no supplementary groups, then the user's
   gid and uid (real, effective and saved): the command can neither read what is closed to
   that user (grader/sandbox_user.py closes the kit's answers) nor signal the grader's
   processes, and every process it leaves behind is found by its uid;
2. no new privileges (a set-uid program cannot give them back);
3. with "read"/"write" and Landlock in the kernel (Linux 5.13+): only those paths can be opened
   (read and execute; write), TCP is refused (Landlock ABI 4+), and signals and abstract unix
   sockets cannot reach outside (ABI 6+);
4. a seccomp filter: sockets other than AF_UNIX, io_uring, ptrace, reading or writing another
   process's memory, pidfds, and signals to any process but itself are refused with EPERM or
   EACCES (what Landlock 6 scopes, for kernels before it and where Landlock is absent);
5. "env" set, the status line {"child-pid": N, "exec": "labkit-confine"} written to the fd
   "status_fd" (the way bwrap's --json-status-fd says the command started), then exec.

Any step that fails ends here with status 125 and one line on stderr starting "labkit-confine:";
no status line is written, so the grader reports its own failure, never the student's.
This file imports nothing from the kit: it runs before the command it confines, with -I.
"""

import ctypes
import json
import os
import platform
import resource
import shutil
import signal
import struct
import sys

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2

# Landlock (include/uapi/linux/landlock.h)
SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446  # the same on every architecture
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_DIR_CHANGES = sum(1 << bit for bit in range(4, 13))  # remove dir/file, make char/dir/reg/sock/fifo/block/sym
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15  # ABI 2, 3, 5
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

# seccomp: (audit arch, syscall numbers) per machine
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
SYSCALLS = {
    "x86_64": dict(socket=41, kill=62, tkill=200, tgkill=234, rt_sigqueueinfo=129, rt_tgsigqueueinfo=297,
                   ptrace=101, process_vm_readv=310, process_vm_writev=311),
    "aarch64": dict(socket=198, kill=129, tkill=130, tgkill=131, rt_sigqueueinfo=138, rt_tgsigqueueinfo=240,
                    ptrace=117, process_vm_readv=270, process_vm_writev=271),
}
COMMON_SYSCALLS = dict(pidfd_send_signal=424, io_uring_setup=425, pidfd_open=434, pidfd_getfd=438)
AF_UNIX, EPERM, EACCES = 1, 1, 13
RET_ALLOW, RET_ERRNO, RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
BPF_LD_W_ABS, BPF_JEQ_K, BPF_JGE_K, BPF_RET_K = 0x20, 0x15, 0x35, 0x06

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


class Refused(Exception):
    pass


def _check(result: int, what: str) -> int:
    if result < 0:
        raise Refused(f"{what}: {os.strerror(ctypes.get_errno())}")
    return result


# ---- 1. the user ------------------------------------------------------------------------------

def become(uid: int, gid: int, nproc: int | None) -> None:
    if nproc:
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.getuid() != uid or os.geteuid() != uid or os.getgid() != gid:
        raise Refused(f"still running as uid {os.geteuid()} after dropping to {uid}")


# ---- 3. Landlock ------------------------------------------------------------------------------

def landlock_abi() -> int:
    abi = libc.syscall(SYS_CREATE_RULESET, None, 0, CREATE_RULESET_VERSION)
    return abi if abi > 0 else 0


def _fs_rights(abi: int) -> int:
    rights = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_READ_DIR | FS_DIR_CHANGES
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


def landlock(read: list[str], write: list[str], abi: int, listed: list[str] = (), devices: list[str] = ()) -> None:
    """Allows reading `read`, listing (names only) the folders `listed`, writing `write`, and
    reading, writing and ioctl on the device nodes `devices` (the sandbox names them: /dev/null,
    the GPU's), which are no one's files to change."""
    handled = _fs_rights(abi)
    net = NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    attr = struct.pack("<QQQ", handled, net, scoped)[:24 if abi >= 6 else 16 if abi >= 4 else 8]
    ruleset = _check(libc.syscall(SYS_CREATE_RULESET, attr, len(attr), 0), "landlock_create_ruleset")
    file_only = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | (FS_TRUNCATE | FS_IOCTL_DEV) & handled
    readable = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
    device = readable | (FS_WRITE_FILE | FS_IOCTL_DEV) & handled
    for paths, rights in ((read, readable), (devices, device), (listed, FS_READ_DIR), (write, handled)):
        for path in paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # what does not exist needs no rule
            try:
                is_dir = os.path.isdir(f"/proc/self/fd/{fd}")
                allowed = rights if is_dir else rights & file_only
                rule = struct.pack("<Qi", allowed, fd)
                _check(libc.syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, rule, 0), f"landlock_add_rule {path}")
            finally:
                os.close(fd)
    _check(libc.syscall(SYS_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    os.close(ruleset)


# ---- 4. seccomp -------------------------------------------------------------------------------

def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k & 0xFFFFFFFF)


def seccomp_filter(machine: str, own_pid: int) -> bytes:
    """The BPF program: each listed syscall either refused, or allowed only when its first
    argument is one of a few values (socket's family; a signal's target pid)."""
    numbers = {**SYSCALLS[machine], **COMMON_SYSCALLS}
    only_if = {  # syscall: (allowed values of its first argument, errno otherwise)
        "socket": ((AF_UNIX,), EACCES),
        "kill": ((own_pid, 0), EPERM),  # itself, or its own process group (its session is its own)
        "tkill": ((own_pid,), EPERM),
        "tgkill": ((own_pid,), EPERM),
        "rt_sigqueueinfo": ((own_pid,), EPERM),
        "rt_tgsigqueueinfo": ((own_pid,), EPERM),
    }
    body = b""
    for name, nr in numbers.items():
        allowed, errno = only_if.get(name, ((), EPERM))
        block = b""
        if allowed:
            block += _insn(BPF_LD_W_ABS, 16)  # the low 32 bits of args[0]
            for i, value in enumerate(allowed):
                block += _insn(BPF_JEQ_K, value, jt=len(allowed) - i, jf=0)
        block += _insn(BPF_RET_K, RET_ERRNO | errno)
        if allowed:
            block += _insn(BPF_RET_K, RET_ALLOW)  # where a matching compare jumps
        body += _insn(BPF_LD_W_ABS, 0) + _insn(BPF_JEQ_K, nr, jt=0, jf=len(block) // 8) + block
    head = _insn(BPF_LD_W_ABS, 4) + _insn(BPF_JEQ_K, AUDIT_ARCH[machine], jt=1, jf=0) + _insn(BPF_RET_K, RET_KILL_PROCESS)
    if machine == "x86_64":  # the x32 ABI's numbers have bit 30 set: refuse them all
        head += _insn(BPF_LD_W_ABS, 0) + _insn(BPF_JGE_K, 0x40000000, jt=0, jf=1) + _insn(BPF_RET_K, RET_ERRNO | EPERM)
    return head + body + _insn(BPF_RET_K, RET_ALLOW)


def seccomp(own_pid: int) -> None:
    machine = platform.machine()
    if machine not in SYSCALLS:
        raise Refused(f"no seccomp filter for this machine ({machine})")
    program = seccomp_filter(machine, own_pid)
    buffer = ctypes.create_string_buffer(program, len(program))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(program) // 8, ctypes.addressof(buffer))
    _check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "seccomp")


# ---- the whole sequence -----------------------------------------------------------------------

def confine(spec: dict) -> None:
    if spec.get("uid") is not None:
        become(spec["uid"], spec["gid"], spec.get("nproc"))
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
    if spec.get("landlock"):
        abi = landlock_abi()
        if abi < 1:
            raise Refused("Landlock is not available in this kernel")
        landlock(spec.get("read", []), spec.get("write", []), abi, spec.get("list", []), spec.get("devices", []))
    seccomp(os.getpid())


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print("labkit-confine: usage: confine.py SPEC -- argv...", file=sys.stderr)
        return 125
    spec, command = json.loads(argv[0]), argv[2:]
    env = {**os.environ, **spec.get("env", {})}
    # Found before confining: this Python's own files may be out of the command's reach after.
    program = shutil.which(command[0], path=env.get("PATH")) if "/" not in command[0] else command[0]
    if program is None:
        print(f"labkit-confine: {command[0]} is not on the PATH ({env.get('PATH')})", file=sys.stderr)
        return 125
    try:
        confine(spec)
    except (Refused, OSError) as e:
        print(f"labkit-confine: could not confine the command: {e}", file=sys.stderr)
        return 125
    if spec.get("chdir"):
        os.chdir(spec["chdir"])
    # Python ignores these two at start-up, and an ignored signal stays ignored across exec: a
    # program past its file size limit must die of SIGXFSZ, as it does outside this launcher.
    for number in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(number, signal.SIG_DFL)
    status_fd = spec.get("status_fd")
    if status_fd is not None:
        os.write(status_fd, json.dumps({"child-pid": os.getpid(), "exec": "labkit-confine"}).encode() + b"\n")
        os.close(status_fd)
    try:
        os.execve(program, command, env)
    except OSError as e:
        print(f"labkit-confine: cannot run {command[0]}: {e.strerror}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
