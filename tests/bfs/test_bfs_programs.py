"""The bfs lab's programs under the CPU emulator: the harness's errors for bad inputs and
options, every path of the frontier solution (forced directions, with and without the one-block
kernel) against the oracle, the harness's own check catching wrong depths, and --bench."""

import shutil
import struct
from pathlib import Path

import pytest

from grader.build import build_lab
from grader.cases import load_generator
from grader.labs import load_lab
from grader.paths import SOLUTIONS_DIR
from grader.testing import lab_program, run

LAB = load_lab("bfs")
GEN = load_generator(LAB)


def edge_file(path: Path, words: list[int]) -> Path:
    path.write_bytes(struct.pack(f"<{len(words)}i", *words))
    return path


@pytest.fixture(scope="module")
def bfs():
    return lab_program("bfs", "bfs")


@pytest.fixture(scope="module")
def frontier():
    return lab_program("bfs", "frontier")


@pytest.mark.parametrize("words, message", [
    ([3], "is truncated: it has 4 bytes, but the header alone"),
    ([3, 2, 0, 1, 1], "is truncated: its header says m = 2 edges (24 bytes in all), but the file has 20 bytes, room for 1 whole edges"),
    ([3, 1, 0, 1, 2], "has 4 bytes after the m = 1 edges its header announces"),
    ([3, 2, 0, 1, 1, 3], "edge 1 (1, 3) names vertex 3, out of range: the header says n = 3, so vertices are 0..2"),
    ([3, 1, -1, 0], "edge 0 (-1, 0) names vertex -1, out of range"),
    ([0, 0], "n = 0 vertices; it must be between 1 and"),
    ([4, -2], "m = -2 edges; it must be between 0 and"),
])
def test_bad_input_files_are_named_and_explained(bfs, tmp_path, words, message):
    graph = edge_file(tmp_path / "bad.bin", words)
    done = run([bfs, graph, "--source", "0"])
    assert done.returncode == 2
    assert message in done.stderr and "bad.bin" in done.stderr


@pytest.mark.parametrize("args, message", [
    (["--source", "4"], "--source 4 is out of range: 'G' has n = 4 vertices, numbered 0..3"),
    (["--source", "-1"], "--source -1 is out of range"),
    ([], "give one input file and --source S"),
    (["--source", "0", "--graph", "chain"], "--graph describes a generated graph: it goes with --bench"),
    (["--source", "0", "--sorce", "1"], "unknown option --sorce"),
])
def test_bad_options_say_what_to_do(bfs, tmp_path, args, message):
    graph = edge_file(tmp_path / "g.bin", [4, 2, 0, 1, 1, 2])
    done = run([bfs, graph, *args])
    assert done.returncode == 2
    assert message.replace("G", str(graph)) in done.stderr


def test_missing_file(bfs, tmp_path):
    done = run([bfs, tmp_path / "nope.bin", "--source", "0"])
    assert done.returncode == 2 and "cannot open input file" in done.stderr


def test_bench_needs_a_graph_and_no_output(bfs):
    assert "say which graph" in run([bfs, "--bench"]).stderr
    assert "drop --out" in run([bfs, "--bench", "--graph", "chain", "--n", "5", "--out", "x"]).stderr
    assert "not a generator" in run([bfs, "--bench", "--graph", "ring", "--n", "5"]).stderr


@pytest.mark.parametrize("program", ["bfs", "frontier"])
def test_bench_prints_a_checked_row(program):
    done = run([lab_program("bfs", program), "--bench", "--graph", "grid", "--rows", "6", "--cols", "7",
                "--runs", "2"])
    assert done.returncode == 0, done.stderr
    assert "CORRECT" in done.stdout and "iterations: 12" in done.stdout
    row = [line for line in done.stdout.splitlines() if line.startswith("| grid-6x7")]
    assert len(row) == 1 and f"| {program}" in row[0]


GRAPHS = {
    "rmat": {"graph": "rmat", "scale": 12, "edge_factor": 16, "seed": 3},
    "uniform": {"graph": "uniform", "n": 8000, "m": 16000, "self_loops": 20, "duplicates": 300, "seed": 2},
    "pieces": {"graph": "pieces", "n": 5000, "pieces": 4, "isolated": 30, "seed": 4},
    "star": {"graph": "star", "n": 3000},
    "grid": {"graph": "grid", "rows": 40, "cols": 60, "shuffle": 1},
}


@pytest.mark.parametrize("graph", sorted(GRAPHS))
@pytest.mark.parametrize("direction", ["top-down", "bottom-up", "switching"])
@pytest.mark.parametrize("small", ["1", "0"])
def test_every_path_of_the_frontier_solution(frontier, tmp_path, graph, direction, small):
    """The reference frontier.c picks its kernels by frontier size: forcing each direction, with
    and without the one-block kernel, runs every kernel on every kind of graph."""
    params = {**GRAPHS[graph], "source": 1}
    graph_path, expected, output = tmp_path / "g.bin", tmp_path / "g.depths", tmp_path / "out.bin"
    GEN.make_input(params, graph_path)
    GEN.make_expected(params, graph_path, expected)
    env = {"PATH": "/usr/bin:/bin", "BFS_SMALL": small}
    if direction != "switching":
        env["BFS_DIRECTION"] = direction
    done = run([frontier, graph_path, "--source", "1", "--out", output], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert output.read_bytes() == expected.read_bytes()


def test_the_harness_catches_wrong_depths(bfs, tmp_path):
    """A planted bug (one depth off after the copy back) is reported by the harness's own check,
    with the rule it breaks, and the program exits 1."""
    # The solution's harness objects, copied with their times, spare a rebuild of the harness.
    shutil.copytree(bfs.parent.parent / "obj", tmp_path / "build" / "obj")
    sub = tmp_path / "sub" / "bfs"
    sub.mkdir(parents=True)
    shutil.copy(SOLUTIONS_DIR / "bfs" / "frontier.c", sub / "frontier.c")
    source = (SOLUTIONS_DIR / "bfs" / "bfs.c").read_text()
    copy_back = "cudaMemcpyDeviceToHost));\n}"
    assert source.count(copy_back) == 1
    (sub / "bfs.c").write_text(source.replace(copy_back, copy_back[:-1] + "    depth[graph->n - 1] += 1;\n}"))
    build = build_lab(LAB, src_root=tmp_path / "sub", build_dir=tmp_path / "build", emu=True, submission=True)
    assert build.ok, build.log
    lecture = LAB.testcases_dir / "lecture.bin"
    done = run([build.programs["bfs"], lecture, "--source", "2"])
    assert done.returncode == 1
    assert "WRONG: edge 3 joins vertex 2 (depth 0) and vertex 6 (depth 2): the depths of two neighbours differ by at most 1" in done.stdout
