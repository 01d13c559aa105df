"""Builds one lab through the Makefile, into a folder the grader chooses."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from grader.labs import Lab
from grader.paths import KIT_ROOT

BUILD_TIME_LIMIT_S = 600
_ERROR_LINE = re.compile(r"(error|Error|ERROR)\b")


@dataclass
class BuildResult:
    ok: bool
    programs: dict[str, Path]
    log: str
    reason: str  # the compiler's first error line, when not ok


# Runtime functions CUDA has removed, and what replaces each: nvcc 13 says only `identifier
# "cudaThreadSynchronize" is undefined`. The emulator's headers declare the same list
# (labs/emu/include/cuda_emu/removed_api.h); a test ties the two.
REMOVED_CUDA_FUNCTIONS = {
    "cudaThreadSynchronize": "cudaDeviceSynchronize",
    "cudaThreadExit": "cudaDeviceReset",
    "cudaThreadSetLimit": "cudaDeviceSetLimit",
    "cudaThreadGetLimit": "cudaDeviceGetLimit",
    "cudaThreadSetCacheConfig": "cudaDeviceSetCacheConfig",
    "cudaThreadGetCacheConfig": "cudaDeviceGetCacheConfig",
    "cudaConfigureCall": "kernel<<<...>>>(...) or cudaLaunchKernel",
    "cudaSetupArgument": "kernel<<<...>>>(...) or cudaLaunchKernel",
    "cudaLaunch": "kernel<<<...>>>(...) or cudaLaunchKernel",
    "cudaBindTexture": "texture objects (cudaCreateTextureObject)",
    "cudaBindTexture2D": "texture objects (cudaCreateTextureObject)",
    "cudaBindTextureToArray": "texture objects (cudaCreateTextureObject)",
    "cudaUnbindTexture": "texture objects (cudaDestroyTextureObject)",
    "cudaGetTextureReference": "texture objects (cudaCreateTextureObject)",
}
_REMOVED_NAME = re.compile(r"\b(" + "|".join(REMOVED_CUDA_FUNCTIONS) + r")\b")


def name_removed_function(reason: str) -> str:
    """The CE reason, with what replaces a removed CUDA function it mentions (once)."""
    match = _REMOVED_NAME.search(reason)
    if not match:
        return reason
    name, replacement = match.group(1), REMOVED_CUDA_FUNCTIONS[match.group(1)]
    if f"use {replacement}" in reason:
        return reason  # the emulator's own message says it already
    return f"{reason} ({name} was removed from CUDA; use {replacement})"


def first_error(log: str) -> str:
    """The line a student should read first: the compiler's first error, else the last line."""
    lines = [line.strip() for line in log.splitlines() if line.strip() and not line.startswith("make")]
    for line in lines:
        if _ERROR_LINE.search(line):
            return name_removed_function(line)
    return lines[-1] if lines else "the build failed without a message"


def build_lab(lab: Lab, *, src_root: Path, build_dir: Path, emu: bool, asan: bool = False) -> BuildResult:
    cmd = ["make", "--no-print-directory", "-C", str(KIT_ROOT), lab.id,
           f"SRC_ROOT={src_root}", f"BUILD={build_dir}"]
    if emu:
        cmd.append("EMU=1")
    if asan:
        cmd.append("ASAN=1")
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace", timeout=BUILD_TIME_LIMIT_S)
    except subprocess.TimeoutExpired:
        return BuildResult(False, {}, "", f"the build took longer than {BUILD_TIME_LIMIT_S} s")
    programs = {name: build_dir / lab.id / name for name in lab.programs}
    if proc.returncode != 0:
        return BuildResult(False, programs, proc.stdout, first_error(proc.stdout))
    return BuildResult(True, programs, proc.stdout, "")
