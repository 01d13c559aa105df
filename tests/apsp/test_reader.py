"""The apsp harness's input reader: every malformed file stops the program with exit code 2 and
a message that names the file and what is wrong (labs/apsp/graph_io.cpp). The harness is the
same in all three programs; these run the cpu one, built for the CPU emulator."""

import struct

import pytest

from grader.testing import lab_program, run

EXIT_USAGE = 2


@pytest.fixture(scope="module")
def cpu():
    return lab_program("apsp", "cpu")


def graph_bytes(n, m, triples=()):
    values = [v for t in triples for v in t]
    return struct.pack(f"<2i{len(values)}i", n, m, *values)


def rejected(program, tmp_path, data: bytes) -> str:
    path = tmp_path / "bad.in"
    path.write_bytes(data)
    result = run([program, path, tmp_path / "out.bin"])
    assert result.returncode == EXIT_USAGE, result.stdout + result.stderr
    assert not (tmp_path / "out.bin").exists()
    assert str(path) in result.stderr
    return result.stderr


def test_a_header_cut_short_is_truncated(cpu, tmp_path):
    message = rejected(cpu, tmp_path, struct.pack("<i", 5) + b"\x01")
    assert "truncated" in message and "m" in message


def test_missing_edges_are_truncated_with_the_count(cpu, tmp_path):
    message = rejected(cpu, tmp_path, graph_bytes(4, 3, [(0, 1, 5), (1, 2, 5)]))
    assert "truncated" in message
    assert "m = 3 edges" in message and "44 bytes" in message and "the file has 32 bytes" in message


def test_bytes_past_the_last_edge_make_m_inconsistent(cpu, tmp_path):
    message = rejected(cpu, tmp_path, graph_bytes(4, 1, [(0, 1, 5), (1, 2, 5)]))
    assert "m is inconsistent with the file size" in message and "12 bytes past the last edge" in message


@pytest.mark.parametrize("n", [0, -7])
def test_n_must_be_positive(cpu, tmp_path, n):
    message = rejected(cpu, tmp_path, graph_bytes(n, 0))
    assert f"n = {n} vertices; n must be at least 1" in message


def test_n_too_large_for_memory_says_how_much_it_needs(cpu, tmp_path):
    message = rejected(cpu, tmp_path, graph_bytes(2_000_000_000, 0))
    assert "n = 2000000000 vertices needs an n x n distance matrix of" in message
    assert "GiB" in message and "more than this machine's" in message


def test_m_must_not_be_negative(cpu, tmp_path):
    assert "m = -1 edges" in rejected(cpu, tmp_path, graph_bytes(3, -1))


@pytest.mark.parametrize("edge, what", [
    ((0, 4, 1), "dst = 4 is not a vertex; with n = 4 vertices are 0..3"),
    ((-1, 2, 1), "src = -1 is not a vertex"),
])
def test_vertices_out_of_range_name_the_edge(cpu, tmp_path, edge, what):
    message = rejected(cpu, tmp_path, graph_bytes(4, 2, [(0, 1, 3), edge]))
    assert "edge 1 of 2 (bytes 20..31" in message and what in message


def test_negative_weight(cpu, tmp_path):
    message = rejected(cpu, tmp_path, graph_bytes(3, 1, [(0, 1, -2)]))
    assert "the weight -2 is negative" in message


def test_weight_over_the_format_limit(cpu, tmp_path):
    message = rejected(cpu, tmp_path, graph_bytes(3, 1, [(0, 1, 1001)]))
    assert "the weight 1001 is over 1000" in message


def test_missing_input_file(cpu, tmp_path):
    result = run([cpu, tmp_path / "nowhere.in", tmp_path / "out.bin"])
    assert result.returncode == EXIT_USAGE
    assert "cannot open input file" in result.stderr and "nowhere.in" in result.stderr


@pytest.mark.parametrize("argv", [[], ["only-one"], ["a", "b", "c"], ["a", "b", "--bogus", "1"]])
def test_usage_errors(cpu, argv):
    result = run([cpu, *argv])
    assert result.returncode == EXIT_USAGE
    assert "usage: apsp-cpu INPUT OUTPUT" in result.stderr


def test_repeated_edges_keep_the_smallest_and_self_loops_never_lower_zero(cpu, tmp_path):
    path = tmp_path / "g.in"
    path.write_bytes(graph_bytes(3, 5, [(0, 1, 9), (0, 1, 4), (0, 1, 6), (2, 2, 0), (1, 1, 3)]))
    result = run([cpu, path, tmp_path / "out.bin"])
    assert result.returncode == 0, result.stderr
    inf = 1073741823
    assert struct.unpack("<9i", (tmp_path / "out.bin").read_bytes()) == (0, 4, inf, inf, 0, inf, inf, inf, 0)
