"""The testcase tools of the apsp lab (testcases/apsp/gen.py and oracle.cpp): the oracle agrees
with a plain Floyd-Warshall written here in Python, on sparse and dense graphs (its two
Dijkstra versions), and the committed hand-made cases are what gen.py makes."""

import importlib.util
import shutil
import struct

import pytest

from grader.paths import TESTCASES_DIR

INF = 1073741823

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="the oracle needs g++")


@pytest.fixture(scope="module")
def gen():
    spec = importlib.util.spec_from_file_location("apsp_gen", TESTCASES_DIR / "apsp" / "gen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def floyd_warshall(data: bytes) -> list[int]:
    n, m = struct.unpack_from("<2i", data)
    edges = struct.unpack_from(f"<{3 * m}i", data, 8)
    d = [[0 if i == j else INF for j in range(n)] for i in range(n)]
    for e in range(m):
        u, v, w = edges[3 * e: 3 * e + 3]
        if u != v:
            d[u][v] = min(d[u][v], w)
    for k in range(n):
        dk = d[k]
        for i in range(n):
            dik = d[i][k]
            if dik == INF:
                continue
            di = d[i]
            for j in range(n):
                if dik + dk[j] < di[j]:
                    di[j] = dik + dk[j]
    return [x for row in d for x in row]


@pytest.mark.parametrize("params", [
    dict(n=1, m=0, seed=1, cycle=False),
    dict(n=37, m=50, seed=2, cycle=False),     # sparse: unreachable pairs, heap Dijkstra
    dict(n=45, m=45, seed=3, cycle=True),      # just the cycle
    dict(n=30, m=600, seed=4, cycle=False),    # dense: the O(n^2) Dijkstra, repeated edges
    dict(n=66, m=300, seed=5, cycle=True),
])
def test_oracle_matches_floyd_warshall(gen, tmp_path, params):
    graph, expected = tmp_path / "g.in", tmp_path / "g.out"
    gen.make_input(params, graph)
    data = graph.read_bytes()
    assert len(data) == 8 + 12 * params["m"]
    gen.make_expected(params, graph, expected)
    got = list(struct.unpack(f"<{params['n'] ** 2}i", expected.read_bytes()))
    assert got == floyd_warshall(data)


def test_inputs_are_reproducible(gen, tmp_path):
    params = dict(n=500, m=4000, seed=9, cycle=True)
    gen.make_input(params, tmp_path / "a.in")
    gen.make_input(params, tmp_path / "b.in")
    assert (tmp_path / "a.in").read_bytes() == (tmp_path / "b.in").read_bytes()


def test_committed_cases_are_what_gen_makes(gen, tmp_path):
    folder = TESTCASES_DIR / "apsp"
    for name, (n, edges) in gen.HAND_MADE.items():
        made = tmp_path / f"{name}.in"
        gen.write_input(made, n, edges)
        assert made.read_bytes() == (folder / f"{name}.in").read_bytes(), name
        expected = tmp_path / f"{name}.out"
        gen.make_expected({}, made, expected)
        assert expected.read_bytes() == (folder / f"{name}.out").read_bytes(), name
        assert expected.stat().st_size < 100_000
