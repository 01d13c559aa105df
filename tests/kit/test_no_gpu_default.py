"""Where no GPU is found, make and the grader use the CPU emulator by themselves and say so in
one line; EMU=0 (make) and --gpu (the grader) force the GPU build."""

import argparse
import os
import subprocess

import pytest

from grader import cli
from grader.gpu import has_gpu
from grader.paths import KIT_ROOT

NOTE = "note: no CUDA GPU found: building for the CPU emulator (EMU=1); EMU=0 forces the GPU build"
no_gpu_here = pytest.mark.skipif(has_gpu(), reason="a GPU is here: make does not fall back to the emulator")


def make_dry_run(*args):
    """make as a user types it: at the top level, not inside `make test`'s own make (the note is
    said once, by the outermost make)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    return subprocess.run(["make", "-n", *args], cwd=KIT_ROOT, capture_output=True, text=True, env=env)


@no_gpu_here
def test_make_without_gpu_builds_for_the_emulator_and_says_so():
    proc = make_dry_run("increment", "BUILD=build/test-no-gpu")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == NOTE
    # The emulator's drop-in compiler (labs/emu/bin/nvcc-emu) builds it; CUDA's nvcc does not.
    assert "-DLABKIT_EMU=1" in proc.stdout and "nvcc" not in proc.stdout.replace("bin/nvcc-emu", "")


@no_gpu_here
def test_make_check_passes_the_emulator_to_the_grader():
    proc = make_dry_run("check", "LAB=increment", "SOL=1")
    assert NOTE in proc.stdout
    assert "python3 -m grader check increment --solution --emu" in proc.stdout


def test_emu_0_forces_the_gpu_build():
    proc = make_dry_run("increment", "EMU=0", "NVCC=/bin/true", "BUILD=build/test-emu0")
    assert proc.returncode == 0, proc.stderr
    assert "note: no CUDA GPU" not in proc.stdout
    assert "/bin/true -std=c++17" in proc.stdout and "-DLABKIT_EMU=1" not in proc.stdout
    assert "--gpu" in make_dry_run("check", "LAB=increment", "EMU=0").stdout


def test_emu_0_without_nvcc_says_what_to_do():
    proc = make_dry_run("increment", "EMU=0", "NVCC=/nonexistent/nvcc")
    assert proc.returncode != 0
    assert "nvcc not found (NVCC=/nonexistent/nvcc) for the GPU build that EMU=0 asks for" in proc.stderr
    assert "EMU=1" in proc.stderr


def test_help_and_tests_say_nothing_about_the_emulator():
    assert "note: no CUDA GPU" not in make_dry_run("help").stdout


def test_grader_emulates_where_no_gpu_is_found(monkeypatch, capsys):
    monkeypatch.setattr(cli, "has_gpu", lambda: False)
    assert cli.emulate_without_gpu(argparse.Namespace(emu=False, gpu=False)) is True
    assert "no CUDA GPU found: using the CPU emulator (--emu); --gpu forces the GPU" in capsys.readouterr().err
    assert cli.emulate_without_gpu(argparse.Namespace(emu=False, gpu=True)) is False
    assert capsys.readouterr().err == ""
    assert cli.main(["check", "increment", "--gpu"]) == 2
    assert "no CUDA GPU found on this machine" in capsys.readouterr().err


def test_grader_uses_the_gpu_where_there_is_one(monkeypatch, capsys):
    monkeypatch.setattr(cli, "has_gpu", lambda: True)
    assert cli.emulate_without_gpu(argparse.Namespace(emu=False, gpu=False)) is False
    assert cli.emulate_without_gpu(argparse.Namespace(emu=True, gpu=False)) is True
    assert capsys.readouterr().err == ""


def built_program(*args):
    out = make_dry_run("increment", *args).stdout
    return next(word for word in out.split() if word.endswith("/increment/increment") and "-o" not in word)


@no_gpu_here
def test_the_build_folder_is_the_one_the_handouts_show():
    """Without a GPU the emulator's build is what runs here: it goes where the handouts say
    (./build/starter/...); EMU=1 keeps its own folder; EMU=0 here never mixes with either."""
    assert built_program() == "build/starter/increment/increment"
    assert built_program("EMU=1", "-B") == "build/emu-starter/increment/increment"
    assert built_program("EMU=0", "NVCC=/bin/true") == "build/gpu-starter/increment/increment"


def test_asan_1_says_where_it_builds_or_refuses_the_gpu_build():
    proc = make_dry_run("increment", "EMU=1", "ASAN=1")
    assert proc.returncode == 0, proc.stderr
    assert "note: ASAN=1: the AddressSanitizer build, in build/emu-starter-asan/" in proc.stdout
    proc = make_dry_run("increment", "EMU=0", "ASAN=1", "NVCC=/bin/true")
    assert proc.returncode != 0
    assert "ASAN=1 is for the CPU emulator's build (make <lab> EMU=1 ASAN=1" in proc.stderr
    assert "compute-sanitizer" in proc.stderr


@no_gpu_here
def test_asan_1_without_emu_1_names_its_folder_where_no_gpu_is_found():
    proc = make_dry_run("increment", "ASAN=1")
    assert proc.returncode == 0, proc.stderr
    assert "note: ASAN=1: the AddressSanitizer build, in build/starter-asan/" in proc.stdout
