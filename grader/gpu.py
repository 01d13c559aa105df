"""Whether this machine has a CUDA GPU to run on."""

import os
import shutil
import subprocess


def has_gpu() -> bool:
    if not shutil.which("nvidia-smi"):
        return False
    try:
        proc = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0 and "GPU" in proc.stdout


def gpu_arch() -> str | None:
    """The first GPU's architecture as nvcc names it (sm_90 on an H100), or None without one.
    Found here, outside any sandbox: a build in the sandbox cannot ask nvidia-smi."""
    if not shutil.which("nvidia-smi"):
        return None
    try:
        proc = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = (proc.stdout.split() or [""])[0].replace(".", "")
    return f"sm_{first}" if proc.returncode == 0 and first.isdigit() else None


def gpu_ids() -> list[str]:
    """The GPUs this process may use: CUDA_VISIBLE_DEVICES when set, else all nvidia-smi lists."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return [g.strip() for g in visible.split(",") if g.strip() and g.strip() != "-1"]
    try:
        proc = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    lines = [line for line in proc.stdout.splitlines() if line.startswith("GPU ")] if proc.returncode == 0 else []
    return [str(i) for i in range(len(lines))]


def gpu_count() -> int:
    return len(gpu_ids())
