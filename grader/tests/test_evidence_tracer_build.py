"""The tracer's build (grader/evidence/tracer_build.py): where CUPTI is found in a toolkit, and,
where this machine has one, that the library builds and exports the driver's entry point alone."""

import shutil
import subprocess

import pytest

from grader.evidence.tracer_build import build_tracer, find_cupti, tracer_environment


def test_cupti_is_found_in_either_layout(tmp_path):
    flat = tmp_path / "flat"
    (flat / "include").mkdir(parents=True)
    (flat / "include" / "cupti.h").write_text("")
    (flat / "lib64").mkdir()
    (flat / "lib64" / "libcupti.so.13").write_text("")
    assert find_cupti(flat).lib == flat / "lib64"
    extras = tmp_path / "extras-layout" / "extras" / "CUPTI"
    (extras / "include").mkdir(parents=True)
    (extras / "include" / "cupti.h").write_text("")
    (extras / "lib64").mkdir()
    (extras / "lib64" / "libcupti.so").write_text("")
    assert find_cupti(tmp_path / "extras-layout").include == extras / "include"
    assert find_cupti(tmp_path / "nothing") is None


def test_the_environment_names_the_library_and_the_record(tmp_path):
    env = tracer_environment(tmp_path / "lib.so", tmp_path / "record.jsonl")
    assert env == {"CUDA_INJECTION64_PATH": str(tmp_path / "lib.so"), "LABKIT_GPU_RECORD": str(tmp_path / "record.jsonl")}


@pytest.mark.skipif(find_cupti() is None or shutil.which("g++") is None, reason="no CUDA toolkit with CUPTI here")
def test_the_tracer_builds_and_exports_one_symbol(tmp_path):
    built = build_tracer(tmp_path)
    assert built.path is not None, built.reason
    exported = subprocess.run(["nm", "-D", "--defined-only", str(built.path)], capture_output=True, text=True).stdout
    assert [line.split()[-1] for line in exported.splitlines() if " T " in line] == ["InitializeInjection"]
    assert build_tracer(tmp_path).path == built.path  # not built again
