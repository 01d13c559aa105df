"""The three apsp programs under the CPU emulator, beyond what the grader's public cases check:
multigpu on 2 and 3 emulated devices, with peer copies and through the host; the --timing
table; the result file; the benchmark modes; the output file when a run fails or the output is
not a regular file."""

import json
import os
import subprocess

import pytest

from grader.cases import prepare
from grader.labs import load_lab
from grader.testing import lab_program, run


@pytest.fixture(scope="module")
def public_cases():
    lab = load_lab("apsp")
    return [prepare(lab, c) for c in lab.cases if c.group == "public" and c.program == "multigpu"]


# "no-peer": the emulated devices have no peer access (CUDA_EMU_PEER_ACCESS=0), so multigpu finds
# the host path by itself, as the grader runs it on 3 devices (labs/apsp/lab.toml [devices]).
@pytest.mark.parametrize("devices", [2, 3])
@pytest.mark.parametrize("exchange", ["peer", "host", "no-peer"])
def test_multigpu_on_several_emulated_devices(public_cases, tmp_path, devices, exchange):
    program = lab_program("apsp", "multigpu")
    env = {**os.environ, "CUDA_EMU_DEVICES": str(devices)}
    env.update({"CUDA_EMU_PEER_ACCESS": "0"} if exchange == "no-peer" else {"APSP_EXCHANGE": exchange})
    for ready in public_cases:
        out = tmp_path / f"{ready.case.name}.out"
        result = run([program, ready.input_path, out], env=env)
        assert result.returncode == 0, result.stderr
        assert out.read_bytes() == ready.expected_path.read_bytes(), ready.case.name


@pytest.mark.parametrize("program_name", ["cpu", "gpu", "multigpu"])
def test_timing_table_and_result_file(tmp_path, program_name):
    program = lab_program("apsp", program_name)
    result_file = tmp_path / "result.json"
    env = {**os.environ, "LABKIT_RESULT": str(result_file), "CUDA_EMU_DEVICES": "2"}
    source = load_lab("apsp").testcases_dir / "c04-two-parts.in"
    result = run([program, source, tmp_path / "out.bin", "--timing"], env=env)
    assert result.returncode == 0, result.stderr
    for row in ("Time distribution (ms)", "compute", "copies", "I/O", "other", "total"):
        assert row in result.stdout
    figures = json.loads(result_file.read_text())
    assert figures["program"] == f"apsp-{program_name}"
    for name in ("kernel_ms", "total_ms", "copy_ms", "io_ms"):
        assert figures[name] >= 0
    if program_name == "multigpu":
        assert "pivot rows sent between GPUs" in result.stdout


def test_bench_modes_run_small(tmp_path):
    gpu = lab_program("apsp", "gpu")
    result = run([gpu, "--bench", "130", "--reps", "1"])
    assert result.returncode == 0, result.stderr
    assert "distance updates/s (n^3 / compute time)" in result.stdout
    result = run([gpu, "--bench-io", "100", "--m", "400", "--dir", tmp_path])
    assert result.returncode == 0, result.stderr
    assert "whole program, n = 100, m = 400, I/O included" in result.stdout
    assert list(tmp_path.iterdir()) == []  # the generated files are removed


def test_multigpu_solves_twice_in_one_process():
    """A benchmark solves more than once; peer access enabled by the first solve is no error."""
    multigpu = lab_program("apsp", "multigpu")
    result = run([multigpu, "--bench", "130", "--reps", "2"], env={**os.environ, "CUDA_EMU_DEVICES": "2"})
    assert result.returncode == 0, result.stderr
    assert "distance updates/s" in result.stdout


# The output file (labs/apsp/graph_io.h): the matrix is built in OUTPUT.partial, mapped, and
# renamed to OUTPUT when complete.

def test_a_failed_run_keeps_an_earlier_output_and_leaves_no_partial_file(tmp_path):
    starter = lab_program("apsp", "gpu", flavor="starter")  # stops at a LAB_TODO, inside exit()
    out = tmp_path / "out.bin"
    out.write_bytes(b"an earlier output")
    source = load_lab("apsp").testcases_dir / "c04-two-parts.in"
    result = run([starter, source, out])
    assert result.returncode == 4, result.stderr
    assert "TODO not done" in result.stderr
    assert out.read_bytes() == b"an earlier output"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin"]


def test_an_output_that_is_not_a_regular_file_is_written_in_one_pass(tmp_path):
    program = lab_program("apsp", "cpu")
    case = load_lab("apsp").testcases_dir / "c06-complete"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    result = run([program, case.with_suffix(".in"), fifo])
    data, _ = reader.communicate(timeout=60)
    assert result.returncode == 0, result.stderr
    assert data == case.with_suffix(".out").read_bytes()
    result = run([program, case.with_suffix(".in"), "/dev/null"])
    assert result.returncode == 0, result.stderr


def test_an_output_that_cannot_be_created_is_named(tmp_path):
    program = lab_program("apsp", "cpu")
    source = load_lab("apsp").testcases_dir / "c04-two-parts.in"
    result = run([program, source, tmp_path / "missing" / "out.bin"])
    assert result.returncode == 2
    assert f"cannot create output file '{tmp_path / 'missing' / 'out.bin'}'" in result.stderr
    assert "No such file or directory" in result.stderr
