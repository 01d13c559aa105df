"""The machine's CUDA GPUs, asked of nvidia-smi once per grading process (every build's make is
told the answer: GPU_CC in build.make_args), never inside a sandbox, where nvidia-smi cannot run."""

import functools
import os
import shutil
import subprocess


@functools.lru_cache(maxsize=None)
def compute_capabilities() -> tuple[str, ...]:
    """Each GPU's compute capability as nvcc's digits ("90" on an H100); empty without one."""
    if not shutil.which("nvidia-smi"):
        return ()
    try:
        proc = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    if proc.returncode != 0:
        return ()
    return tuple(line.strip().replace(".", "") for line in proc.stdout.splitlines()
                 if line.strip().replace(".", "").isdigit())


def has_gpu() -> bool:
    return bool(compute_capabilities())


def gpu_arch() -> str | None:
    """The first GPU's architecture as nvcc names it (sm_90 on an H100), or None without one."""
    found = compute_capabilities()
    return f"sm_{found[0]}" if found else None


def gpu_ids() -> list[str]:
    """The GPUs this process may use: CUDA_VISIBLE_DEVICES when set, else all nvidia-smi lists."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return [g.strip() for g in visible.split(",") if g.strip() and g.strip() != "-1"]
    return [str(i) for i in range(len(compute_capabilities()))]


def gpu_count() -> int:
    return len(gpu_ids())
