"""Whether this machine has a CUDA GPU to run on."""

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
