"""The nbody lab's program under the CPU emulator: the harness's errors for bad bodies files and
options, the text and binary forms giving the same bodies, a step written with --state-out read
back for the next, --bench at a small n, and the untouched starter stopping at its first TODO."""

import struct

import pytest

from grader.testing import lab_program, run

FIVE = "testcases/nbody/five-bodies.txt"


@pytest.fixture(scope="module")
def nbody():
    return lab_program("nbody", "nbody")


def bodies_file(path, n, k, values):
    path.write_bytes(struct.pack("<ii", n, k) + struct.pack(f"<{len(values)}f", *values))
    return path


@pytest.mark.parametrize("content, message", [
    (struct.pack("<i", 3), "is truncated"),
    (struct.pack("<ii", 2, 5), "k = 5 floats a body; a bodies file has 4"),
    (struct.pack("<ii", 0, 4), "n = 0 bodies; the lab takes 1 to"),
    (struct.pack("<ii", 2, 4) + struct.pack("<4f", 0, 0, 0, 1), "bytes; n = 2 bodies of 4 floats make 40"),
    (struct.pack("<ii", 1, 4) + struct.pack("<4f", 0, 0, 0, -1), "body 0: mass -1.000000 is negative"),
])
def test_bad_bodies_files_are_named_and_explained(nbody, tmp_path, content, message):
    path = tmp_path / "bad.bin"
    path.write_bytes(content)
    done = run([nbody, path])
    assert done.returncode == 2 and message in done.stderr and "bad.bin" in done.stderr


def test_a_bad_text_line_is_named(nbody, tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("0 0 0 1\n1 2 3\n")
    done = run([nbody, path])
    assert done.returncode == 2 and "bad.txt:2: 3 numbers; a body's line is 'x y z mass'" in done.stderr


@pytest.mark.parametrize("args, message", [
    (["--kernel", "fast"], "--kernel fast names no kernel; the kernels are: naive, tiled"),
    (["--softening", "0"], "--softening 0 is out of range"),
    (["--dt", "x"], "--dt x is not a number"),
    (["--block", "2048"], "--block"),
    (["--n", "10"], "--n goes with --bench"),
])
def test_bad_options_say_what_to_do(nbody, args, message):
    done = run([nbody, FIVE, *args])
    assert done.returncode == 2 and message in done.stderr


def test_the_text_and_binary_forms_agree(nbody, tmp_path):
    """The five bodies as text and as a binary file with k = 8 give the same accelerations."""
    rows = [line.split("#")[0].split() for line in open(FIVE).read().splitlines()]
    rows = [[float(v) for v in row] + [0.0] * (7 - len(row)) for row in rows if row]
    values = [v for row in rows for v in row[:4]] + [v for row in rows for v in row[4:] + [0.0]]
    binary = bodies_file(tmp_path / "five.bin", len(rows), 8, values)
    outs = []
    for source in (FIVE, binary):
        out = tmp_path / f"acc{len(outs)}"
        done = run([nbody, source, "--kernel", "tiled", "--block", "4", "--out", out])
        assert done.returncode == 0, done.stdout + done.stderr
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and len(outs[0]) == 5 * 16


def test_a_step_read_back_steps_again(nbody, tmp_path):
    state = tmp_path / "state1.bin"
    done = run([nbody, FIVE, "--state-out", state])
    assert done.returncode == 0 and "CORRECT (step)" in done.stdout
    n, k = struct.unpack("<ii", state.read_bytes()[:8])
    assert (n, k) == (5, 8)
    again = run([nbody, state, "--kernel", "tiled", "--block", "2", "--state-out", tmp_path / "state2.bin"])
    assert again.returncode == 0 and "CORRECT (tiled forces)" in again.stdout and "CORRECT (step)" in again.stdout


def test_bench_under_the_emulator_checks_every_kernel(nbody):
    done = run([nbody, "--bench", "--n", "40"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no FP32 peak to measure" in done.stdout
    assert all(kernel in done.stdout for kernel in ("naive_256", "tiled_32", "tiled_1024"))
    assert "WRONG" not in done.stdout


def test_the_untouched_starter_names_its_first_todo():
    starter = lab_program("nbody", "nbody", flavor="starter")
    done = run([starter, FIVE])
    assert done.returncode == 4
    assert "TODO not done: compute the grid and launch forces_naive_kernel in nbody_forces_naive" in done.stderr
    tiled = run([starter, FIVE, "--kernel", "tiled", "--block", "4"])
    assert tiled.returncode == 4 and "forces_tiled_kernel with its shared tile" in tiled.stderr
