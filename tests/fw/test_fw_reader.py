"""The graph text reader (labs/fw/graph_text.cpp), case by case: every bad file is refused with
exit code 2 and a message naming the file, the line and what is wrong; every good one is read
with the module's semantics. Runs the solution built for the CPU emulator."""

from array import array

import pytest

from grader.testing import lab_program, run

INF = 1073741823


@pytest.fixture(scope="module")
def fw():
    return lab_program("fw", "fw")


def read(fw, tmp_path, text: bytes, *args):
    graph = tmp_path / "g.txt"
    graph.write_bytes(text)
    return run([fw, graph, "--version", "cpu", *args], cwd=tmp_path)


ERRORS = [
    # (file, the message's place, words it must contain)
    (b"A B 1\nB C\n--END--\n", "g.txt:2:", "found 2 fields: 'B C'"),
    (b"A B 1 2\n--END--\n", "g.txt:1:", "found 4 fields"),
    (b"A\n--END--\n", "g.txt:1:", "found 1 field"),
    (b"A B 1\n--end--\n", "g.txt:2:", "exactly '--END--'"),
    (b"A B x\n--END--\n", "g.txt:1:", "length 'x' is not a whole number"),
    (b"A B 2.5\n--END--\n", "g.txt:1:", "length '2.5' is not a whole number"),
    (b"A B 1e3\n--END--\n", "g.txt:1:", "not a whole number"),
    (b"A B -\n--END--\n", "g.txt:1:", "not a whole number"),
    (b"A B 1\nB C -3\n--END--\n", "g.txt:2:", "length -3 is negative"),
    (b"A B 99999999999999999999\n--END--\n", "g.txt:1:", "too large"),
    (b"A B 1073741823\n--END--\n", "g.txt:1:", "at most 1073741822"),
    (b"A B 536870912\nB C 1\n--END--\n", "g.txt:1:", "too large for a graph of 3 vertices"),
    (b"A B 1\nB C 2\n", "g.txt:", "without the closing line '--END--'"),
    (b"", "'", "is empty"),
    (b"\n \t\n", "'", "is empty"),
    (b"--END--\n", "g.txt:", "the graph has no edges"),
    (b"\n\n--END--\n", "g.txt:", "'--END--' (line 3) comes before any"),
    (b"A B 1\n--END--\nC D 2\n", "g.txt:3:", "text after the line '--END--' (line 2)"),
    (b"A B 1\n--END-- now\n", "g.txt:2:", "must be alone on its line"),
    (b"A --END-- 1\n--END--\n", "g.txt:1:", "cannot name a vertex"),
    (b"\xef\xbb\xbfA B 1\n--END--\n", "g.txt:1:", "byte-order mark"),
    (b"A B 1\nC\xc3\xa9 D 1\n--END--\n", "g.txt:2:", "byte 0xC3 at column 2 is not ASCII"),
    (b"A B 1\nC\x01 D 1\n--END--\n", "g.txt:2:", "control character 0x01"),
    (b"A B 1\x00\n--END--\n", "g.txt:1:", "control character 0x00"),
]


@pytest.mark.parametrize("text,where,words", ERRORS, ids=[f"error{i}" for i in range(len(ERRORS))])
def test_bad_file_is_refused_with_its_line(fw, tmp_path, text, where, words):
    proc = read(fw, tmp_path, text)
    assert proc.returncode == 2, proc.stdout
    message = proc.stderr.strip()
    assert message.startswith("fw: error: ") and where in message and words in message, message
    assert "Alignment" not in proc.stdout  # nothing is printed for a graph that was not read


def test_missing_and_unreadable_files(fw, tmp_path):
    proc = run([fw, tmp_path / "nope.txt"], cwd=tmp_path)
    assert proc.returncode == 2 and "cannot open graph file" in proc.stderr and "nope.txt" in proc.stderr
    proc = run([fw, tmp_path], cwd=tmp_path)
    assert proc.returncode == 2 and "not a regular file" in proc.stderr


def distances(fw, tmp_path, text: bytes):
    proc = read(fw, tmp_path, text, "-o", tmp_path / "d.bin")
    assert proc.returncode == 0, proc.stderr
    return list(array("i", (tmp_path / "d.bin").read_bytes())), proc.stdout


def test_repeated_edge_keeps_its_last_length(fw, tmp_path):
    assert distances(fw, tmp_path, b"A B 5\nA B 2\n--END--\n")[0] == [0, 2, INF, 0]
    assert distances(fw, tmp_path, b"A B 2\nA B 5\n--END--\n")[0] == [0, 5, INF, 0]  # last, not least


def test_self_loop_never_beats_zero(fw, tmp_path):
    assert distances(fw, tmp_path, b"A A 7\nA B 1\n--END--\n")[0] == [0, 1, INF, 0]


def test_vertices_are_numbered_by_first_appearance(fw, tmp_path):
    d, out = distances(fw, tmp_path, b"z y 1\nx z 2\n--END--\n")
    # z = 0, y = 1, x = 2: row x is [2, 3, 0]; the printout lists them by name: x y z
    assert d == [0, 1, INF, INF, 0, INF, 2, 3, 0]
    assert "\tx\ty\tz\n" in out


def test_lengths_zero_plus_sign_and_blank_lines(fw, tmp_path):
    d, _ = distances(fw, tmp_path, b"\nA B +4\r\n\n  B\tC   -0  \r\n\n--END--")  # CRLF, no final newline
    assert d == [0, 4, 4, INF, 0, 0, INF, INF, 0]


def test_the_largest_lengths_that_fit(fw, tmp_path):
    assert distances(fw, tmp_path, b"A B 1073741822\n--END--\n")[0][1] == 1073741822
    d, _ = distances(fw, tmp_path, b"A B 536870911\nB C 536870911\n--END--\n")
    assert d[2] == 1073741822  # two hops: the largest distance there is
    # an overwritten length does not count against the graph
    assert distances(fw, tmp_path, b"A B 900000000\nB C 1\nA B 1\n--END--\n")[0][2] == 2


@pytest.mark.parametrize("n,padded", [(1, 64), (64, 64), (65, 128), (130, 192)])
def test_rows_are_padded_to_the_alignment(fw, tmp_path, n, padded):
    text = "".join(f"v{i} v{(i + 1) % n} 1\n" for i in range(n)) + "--END--\n"
    proc = read(fw, tmp_path, text.encode())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"Alignment = 64\nKernel: Just read g.txt with {n} vertices, Na = {padded}\n")
