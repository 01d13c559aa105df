"""The library calls a student's code may make, checked on its compiled objects.

A lab asks for the student's own kernels; a call into cuBLAS, cuRAND, thrust or CUB, into the
harness's own reference code, or out of the process (system, exec, dlopen) would earn marks for
work the student did not do. The check reads the symbol table of each student object (what it
calls and what templates it instantiated), not the source text, so macros, aliases and
declarations written by hand do not hide a call. nm runs in the build sandbox: an object file
is untrusted input.

Kit-wide, FORBIDDEN below; a lab adds its own in lab.toml, and may allow one back:

    [symbols]
    forbid = ["make_reference", "check_product"]   # the harness's reference product
    allow = []                                     # patterns FORBIDDEN would refuse
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

from grader.labs import Lab
from grader.run import run_program
from grader.program_files import read_regular
from grader.sandbox import Mount, Sandbox, clean_env
from grader.text import one_line

# pattern (on the demangled name without its arguments) -> what it is, for the reason
FORBIDDEN = {
    "cublas*": "cuBLAS", "cublasLt*": "cuBLAS", "curand*": "cuRAND", "cusparse*": "cuSPARSE",
    "cufft*": "cuFFT", "cusolver*": "cuSOLVER", "cudnn*": "cuDNN", "nccl*": "NCCL", "npp*": "NPP",
    "thrust::*": "thrust", "cub::*": "CUB", "cuda::std::*sort*": "libcu++ algorithms",
    "dlopen": "the dynamic loader", "dlmopen": "the dynamic loader", "dlsym": "the dynamic loader",
    "dlvsym": "the dynamic loader", "dladdr*": "the dynamic loader", "dlinfo": "the dynamic loader",
    "dl_iterate_phdr": "the dynamic loader", "cuGetProcAddress*": "the driver's symbol lookup",
    "cudaGetDriverEntryPoint*": "the driver's symbol lookup",
    "system": "a shell", "popen": "a shell", "exec[lv]*": "another program", "fexecve": "another program",
    "fork": "another process", "vfork": "another process", "clone": "another process",
    "clone3": "another process", "__clone*": "another process",
    "posix_spawn*": "another program", "syscall": "raw system calls", "ptrace": "debugging another process",
    "process_vm_*": "another process's memory",
    # The grader passes its settings in the environment (CUDA_EMU_DEVICES, EMU_RACECHECK, and
    # CUDA_VISIBLE_DEVICES on a GPU node): a program that rewrote it could pick its own devices
    # or switch the emulator's checks off. Reading it (getenv) is fine.
    "setenv": "the environment the grader set", "putenv": "the environment the grader set",
    "unsetenv": "the environment the grader set", "clearenv": "the environment the grader set",
    "environ": "the environment the grader set", "__environ": "the environment the grader set",
    "_environ": "the environment the grader set",
    # The GPU record (grader/evidence/tracer.cpp) runs inside the program: its library, CUPTI, and
    # the profiler's controls are the grader's, not the student's.
    "cupti*": "CUPTI (the grader's GPU record)", "InitializeInjection": "the grader's GPU record",
    "cuProfiler*": "the profiler's controls", "cudaProfiler*": "the profiler's controls",
}
NM_TIME_LIMIT_S = 60
MAX_LISTING_BYTES = 64 << 20


def base_name(demangled: str) -> str:
    """'thrust::reduce<float*>(float*, float*)' -> 'thrust::reduce'; 'cublasSgemm_v2' as it is."""
    name = demangled.split("(", 1)[0]
    depth, out = 0, []
    for char in name:
        depth += char == "<"
        if depth == 0:
            out.append(char)
        depth -= char == ">" and depth > 0
    return "".join(out).strip()


def forbidden_calls(nm_output: str, lab: Lab) -> list[tuple[str, str]]:
    """(symbol, what it is) for each symbol of `nm -P -C` output that the lab does not allow:
    a call (undefined, U), or a library template the code instantiated (weak, W/V: thrust, CUB).
    The student's own functions (defined, T) are theirs to name as they like."""
    rules = dict(FORBIDDEN)
    rules.update({pattern: "the lab's harness (its reference code)" for pattern in lab.symbols.get("forbid", [])})
    allowed = lab.symbols.get("allow", [])
    found: dict[str, str] = {}
    for line in nm_output.splitlines():
        # nm -P: "name type [value size]"; a demangled name may hold spaces, the type is one letter.
        match = re.match(r"^(.*?) ([A-Za-z])(?: [0-9a-fA-F]*){0,2}\s*$", line)
        if not match:
            continue
        base, kind = base_name(match.group(1)), match.group(2)
        if kind not in "UWVwv" or any(fnmatch.fnmatchcase(base, a) for a in allowed):
            continue
        for pattern, what in rules.items():
            if (kind == "U" or "::" in pattern) and fnmatch.fnmatchcase(base, pattern):
                found.setdefault(base, what)
                break
    return sorted(found.items())


def check(lab: Lab, objects: dict[str, Path], *, sandbox: Sandbox, view: list[Mount]) -> tuple[str, bool]:
    """('', False) when every object calls only what the lab allows; else the reason, and
    whether the failure is the grader's (the listing could not be made) rather than a CE."""
    for program, obj in objects.items():
        if not obj.is_file():
            continue
        # The listing goes to a file, not a pipe: the grader keeps only the first 64 KiB of a
        # pipe, and a forbidden call must not hide behind thousands of padding symbols.
        listing = obj.with_suffix(".symbols")
        argv = ["/bin/sh", "-c", 'exec nm -P -C "$1" > "$2"', "nm", str(obj), str(listing)]
        confined = dict(wrap=lambda argv, fd: sandbox.wrap(argv, work=obj.parent, view=view, status_fd=fd),
                        own_pid_namespace=sandbox.own_pid_namespace, cleanup=sandbox.cleanup) if sandbox.active else {}
        outcome = run_program(argv, time_limit_s=NM_TIME_LIMIT_S, env=clean_env(os.environ), **confined)
        text = read_regular(listing, MAX_LISTING_BYTES) if outcome.exit_code == 0 else None
        if text is None:
            return (f"grader error, not yours: could not list the symbols of {program}.o "
                    f"({one_line(outcome.stderr)[:200] or 'the listing is missing or too large'})"), True
        calls = forbidden_calls(text.decode("utf-8", "replace"), lab)
        if calls:
            named = ", ".join(f"{name} ({what})" for name, what in calls[:4])
            more = f" and {len(calls) - 4} more" if len(calls) > 4 else ""
            return one_line(f"{program}.c calls {named}{more}: this lab asks for your own kernels and code, "
                            f"not a library's or the harness's; remove the call"), False
    return "", False
