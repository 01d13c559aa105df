"""Builds the tracer (tracer.cpp) into build/evidence/, and says how a GPU run loads it.

    build_tracer(out_dir=BUILD_DIR / "evidence", cxx="g++") -> TracerBuild
        Compiles the injection library once (again only when tracer.cpp is newer), against the
        CUPTI of the CUDA toolkit found (find_cupti). TracerBuild.path is the library, or None
        with .reason: what is missing and what to install or set. Trusted code, built by the
        grader outside any sandbox, before any submission runs.
    tracer_environment(library, record_path) -> dict[str, str]
        The variables to add to a GPU run's environment: the driver loads the library
        (CUDA_INJECTION64_PATH) and the library writes the record to record_path
        (LABKIT_GPU_RECORD). The library finds libcupti by its run path: nothing else to set.
    find_cupti(cuda_home=None) -> CuptiPaths | None
        cupti.h's folder and libcupti's, in the toolkit (CUDA_PATH, else nvcc's, else
        /usr/local/cuda): include/ and lib64/ (or targets/<arch>/lib), or extras/CUPTI/.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from grader.evidence.record import RECORD_VARIABLE
from grader.paths import BUILD_DIR
from grader.text import one_line

SOURCE = Path(__file__).with_name("tracer.cpp")
LIBRARY_NAME = "liblabkit_tracer.so"


@dataclass(frozen=True)
class CuptiPaths:
    include: Path
    lib: Path


@dataclass(frozen=True)
class TracerBuild:
    path: Path | None
    reason: str = ""


def cuda_home() -> Path:
    if os.environ.get("CUDA_PATH"):
        return Path(os.environ["CUDA_PATH"])
    nvcc = shutil.which("nvcc")
    return Path(nvcc).resolve().parent.parent if nvcc else Path("/usr/local/cuda")


def find_cupti(home: Path | None = None) -> CuptiPaths | None:
    home = home or cuda_home()
    includes = [home / "include", home / "extras" / "CUPTI" / "include"]
    libs = [home / "lib64", home / "extras" / "CUPTI" / "lib64", *sorted((home / "targets").glob("*/lib")), home / "lib"]
    include = next((d for d in includes if (d / "cupti.h").is_file()), None)
    lib = next((d for d in libs if any(d.glob("libcupti.so*"))), None)
    return CuptiPaths(include, lib) if include and lib else None


def build_tracer(out_dir: Path = BUILD_DIR / "evidence", cxx: str = "g++") -> TracerBuild:
    library = out_dir / LIBRARY_NAME
    if library.is_file() and library.stat().st_mtime >= SOURCE.stat().st_mtime:
        return TracerBuild(library)
    cupti = find_cupti()
    if cupti is None:
        return TracerBuild(None, f"no CUPTI in the CUDA toolkit at {cuda_home()} (cupti.h and libcupti.so): install "
                                 "the toolkit's CUPTI, or set CUDA_PATH to a toolkit that has it")
    out_dir.mkdir(parents=True, exist_ok=True)
    partial = library.with_suffix(".so.part")
    command = [cxx, "-std=c++17", "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-Wall", "-Wextra",
               f"-I{cupti.include}", str(SOURCE), f"-L{cupti.lib}", f"-Wl,-rpath,{cupti.lib}", "-lcupti", "-lpthread",
               "-o", str(partial)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as error:
        return TracerBuild(None, f"building the GPU tracer failed to start ({' '.join(command[:1])}): {error}; "
                                 "install g++ or pass cxx=")
    if done.returncode != 0:
        first = next((line for line in done.stderr.splitlines() if "error" in line), done.stderr[-300:])
        return TracerBuild(None, one_line(f"building the GPU tracer (grader/evidence/tracer.cpp) against {cupti.include} "
                                          f"failed: {first}"))
    partial.replace(library)  # whole or not at all: a grader killed mid-build leaves no half library
    return TracerBuild(library)


def tracer_environment(library: Path, record_path: Path) -> dict[str, str]:
    return {"CUDA_INJECTION64_PATH": str(library), RECORD_VARIABLE: str(record_path)}
