"""The bfs lab's graph generators and expected-depth oracle (testcases/bfs/gen.py and bfs_tool),
checked against plain Python: structure of each generator, determinism, and the oracle's depths
against a second, independent BFS. Needs g++ only, no GPU and no emulator."""

import struct
from collections import deque
from pathlib import Path

import pytest

from grader.cases import load_generator, prepare
from grader.labs import load_lab

LAB = load_lab("bfs")
GEN = load_generator(LAB)


def read_graph(path: Path) -> tuple[int, list[tuple[int, int]]]:
    data = path.read_bytes()
    n, m = struct.unpack_from("<2i", data)
    ends = struct.unpack_from(f"<{2 * m}i", data, 8)
    assert len(data) == 8 + 8 * m
    return n, list(zip(ends[0::2], ends[1::2]))


def read_depths(path: Path) -> list[int]:
    data = path.read_bytes()
    return list(struct.unpack(f"<{len(data) // 4}i", data))


def make(tmp_path: Path, name: str = "g.bin", **params) -> tuple[int, list[tuple[int, int]]]:
    path = tmp_path / name
    GEN.make_input(params, path)
    return read_graph(path)


def python_bfs(n: int, edges, source: int) -> list[int]:
    neighbours = [[] for _ in range(n)]
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)
    depth = [-1] * n
    depth[source] = 0
    queue = deque([source])
    while queue:
        v = queue.popleft()
        for w in neighbours[v]:
            if depth[w] < 0:
                depth[w] = depth[v] + 1
                queue.append(w)
    return depth


def test_chain_star_grid_have_their_shape(tmp_path):
    assert make(tmp_path, graph="chain", n=5) == (5, [(0, 1), (1, 2), (2, 3), (3, 4)])
    assert make(tmp_path, graph="star", n=4) == (4, [(0, 1), (0, 2), (0, 3)])
    n, edges = make(tmp_path, graph="grid", rows=3, cols=4)
    assert n == 12 and len(edges) == 3 * 3 + 4 * 2
    assert all(v - u in (1, 4) for u, v in edges)
    assert make(tmp_path, graph="chain", n=1) == (1, [])


def test_rmat_is_graph500_sized_and_skewed(tmp_path):
    n, edges = make(tmp_path, graph="rmat", scale=10, edge_factor=8, seed=3)
    assert n == 1024 and len(edges) == 8 * 1024
    degree = [0] * n
    for u, v in edges:
        degree[u] += 1
        degree[v] += 1
    mean = 2 * len(edges) / n
    assert max(degree) > 10 * mean          # hubs
    assert degree.count(0) > n // 10       # and many vertices with no edge at all


def test_same_seed_same_bytes_other_seed_other_graph(tmp_path):
    for params in ({"graph": "rmat", "scale": 8}, {"graph": "uniform", "n": 300, "m": 900},
                   {"graph": "pieces", "n": 300, "pieces": 4}):
        a = make(tmp_path, "a.bin", seed=5, **params)
        b = make(tmp_path, "b.bin", seed=5, **params)
        c = make(tmp_path, "c.bin", seed=6, **params)
        assert a == b and a != c


def test_modifiers_add_what_they_say(tmp_path):
    n0, base = make(tmp_path, graph="uniform", n=200, m=300, seed=9)
    n, edges = make(tmp_path, graph="uniform", n=200, m=300, seed=9, isolated=7, self_loops=11, duplicates=13)
    assert n == n0 + 7 and edges[:300] == base
    loops = edges[300:311]
    assert all(u == v for u, v in loops)
    originals = set(base) | {(v, u) for u, v in base}
    assert all(edge in originals for edge in edges[311:])
    assert len(edges) == 300 + 11 + 13
    touched = {x for edge in edges for x in edge}
    assert not touched & set(range(200, 207))  # the isolated vertices are the last ones


def test_permute_and_shuffle_keep_the_graph(tmp_path):
    n, plain = make(tmp_path, graph="grid", rows=5, cols=6)
    _, shuffled = make(tmp_path, graph="grid", rows=5, cols=6, shuffle=1, seed=2)
    assert sorted(tuple(sorted(e)) for e in shuffled) == sorted(tuple(sorted(e)) for e in plain)
    _, permuted = make(tmp_path, graph="grid", rows=5, cols=6, permute=1, seed=2)
    assert permuted != plain
    assert sorted(sum(1 for e in permuted for x in e if x == v) for v in range(n)) == \
        sorted(sum(1 for e in plain for x in e if x == v) for v in range(n))


def test_pieces_are_separate_components(tmp_path):
    n, edges = make(tmp_path, graph="pieces", n=400, pieces=5, isolated=10, seed=4)
    seen, components = [False] * n, 0
    for start in range(n):
        if not seen[start]:
            components += 1
            for v, d in enumerate(python_bfs(n, edges, start)):
                if d >= 0:
                    seen[v] = True
    assert components == 5 + 10


@pytest.mark.parametrize("params", [
    {"graph": "rmat", "scale": 9, "edge_factor": 8, "seed": 1, "source": 3},
    {"graph": "uniform", "n": 2000, "m": 2500, "self_loops": 30, "duplicates": 40, "shuffle": 1, "seed": 2,
     "source": 11},
    {"graph": "pieces", "n": 900, "pieces": 3, "isolated": 5, "seed": 3, "source": 0},
    {"graph": "grid", "rows": 17, "cols": 9, "shuffle": 1, "seed": 4, "source": 40},
    {"graph": "chain", "n": 333, "permute": 1, "shuffle": 1, "seed": 5, "source": 7},
])
def test_oracle_agrees_with_a_python_bfs(tmp_path, params):
    graph, expected = tmp_path / "g.bin", tmp_path / "g.depths"
    GEN.make_input(params, graph)
    GEN.make_expected(params, graph, expected)
    n, edges = read_graph(graph)
    assert read_depths(expected) == python_bfs(n, edges, params["source"])


def test_tool_errors_name_the_problem(tmp_path):
    graph = tmp_path / "g.bin"
    GEN.make_input({"graph": "chain", "n": 4}, graph)
    with pytest.raises(RuntimeError, match="--source 9 is out of range.*n = 4"):
        GEN.make_expected({"source": 9}, graph, tmp_path / "x")
    with pytest.raises(RuntimeError, match="--graph ring is not a generator"):
        GEN.make_input({"graph": "ring", "n": 4}, graph)
    with pytest.raises(RuntimeError, match="needs --scale"):
        GEN.make_input({"graph": "rmat"}, graph)


def test_public_cases_match_the_manifest():
    """The generators make, on this machine, the very bytes whose SHA-256 the manifest holds."""
    for case in LAB.cases:
        if case.group == "public":
            prepare(LAB, case)  # raises ConfigError on a mismatch
