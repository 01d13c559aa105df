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
