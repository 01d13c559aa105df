"""CMake's CUDA language with the kit's compiler: tests/emu/cmake_project (separate compilation,
a device link, a C++ file, a C++ program linking CUDA::cudart) configured with -DCMAKE_CUDA_COMPILER=labs/emu/bin/nvcc-emu, built and
run. CMake identifies nvcc-emu as NVIDIA's nvcc (its --version and -v output), finds its
include and library folders and links with the host compiler."""

import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NVCC_EMU = os.path.join(ROOT, "labs", "emu", "bin", "nvcc-emu")
PROJECT = os.path.join(ROOT, "tests", "emu", "cmake_project")


def _cmake_version():
    if shutil.which("cmake") is None:
        return None
    output = subprocess.run(["cmake", "--version"], capture_output=True, text=True).stdout
    match = re.search(r"(\d+)\.(\d+)", output)
    return (int(match.group(1)), int(match.group(2))) if match else None


@pytest.mark.skipif((_cmake_version() or (0, 0)) < (3, 18), reason="needs CMake 3.18 or later (the CUDA language "
                    "with CMAKE_CUDA_ARCHITECTURES); install cmake")
def test_a_cmake_cuda_project_configures_builds_and_runs(tmp_path):
    configured = subprocess.run(["cmake", "-S", PROJECT, "-B", str(tmp_path), f"-DCMAKE_CUDA_COMPILER={NVCC_EMU}"],
                                capture_output=True, text=True)
    assert configured.returncode == 0, configured.stdout + configured.stderr
    assert "The CUDA compiler identification is NVIDIA 13.0" in configured.stdout
    built = subprocess.run(["cmake", "--build", str(tmp_path)], capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    ran = subprocess.run([str(tmp_path / "vector_add")], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0 and ran.stdout.strip() == "PASSED: 0 wrong", ran.stdout + ran.stderr
    counted = subprocess.run([str(tmp_path / "device_count")], capture_output=True, text=True, timeout=60)
    assert counted.returncode == 0 and counted.stdout.strip() == "1 device(s): no error", counted.stdout + counted.stderr
