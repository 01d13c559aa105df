"""The fw lab's generators, converter and oracle (testcases/fw/gen.py), and the committed
testcase files they vouch for. Pure Python: no program is built."""

import importlib.util
import subprocess
import sys
from array import array

import pytest

from grader.paths import KIT_ROOT

CASES = KIT_ROOT / "testcases" / "fw"
INF = 1073741823


def load_gen():
    spec = importlib.util.spec_from_file_location("fw_gen_under_test", CASES / "gen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = load_gen()


def floyd_warshall_steps(graph):
    """M_1 .. M_N of the textbook algorithm, for checking the committed Spot Check 4 transcript."""
    n = graph.n
    d = [[0 if i == j else graph.weight.get((i, j), INF) for j in range(n)] for i in range(n)]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if d[i][k] < INF and d[k][j] < INF and d[i][k] + d[k][j] < d[i][j]:
                    d[i][j] = d[i][k] + d[k][j]
        yield [row[:] for row in d]


def distances(graph):
    return array("i", gen.dijkstra_rows(graph.adjacency(), range(graph.n)))


def test_graph1_is_figure_1_2_and_reproduces_spot_check_4():
    graph = gen.read_text(CASES / "graph1.txt")
    assert graph.names == list("ABCDEF")  # "using 0 as intermediate" is A, 1 is B, ...
    text = ("Alignment = 64\nKernel: Just read graph1.txt with 6 vertices, Na = 64\n"
            "Malloc device rules: no error\nPre-kernel copy memory onto device: no error\n")
    matrices = list(floyd_warshall_steps(graph))
    for k, m in enumerate(matrices):
        text += f"Kernel: using {k} as intermediate: error = no error\n"
        text += gen.print_array(graph.names, lambda i, j, m=m: m[i][j])
    text += "Post-kernel copy memory off of device: no error\n"
    text += gen.print_array(graph.names, lambda i, j: matrices[-1][i][j])
    assert (CASES / "graph1.steps.txt").read_text() == text
    # Spot Check 2's answer: M_1 differs from M_0 only in (D, B) = 11 and (E, B) = 6.
    assert matrices[0][3][1] == 11 and matrices[0][4][1] == 6
    assert sum(1 for i in range(6) for j in range(6) if matrices[0][i][j] != (
        0 if i == j else graph.weight.get((i, j), INF))) == 2
    # Spot Check 3: in M_5 only C's row still lacks paths, to A, B, D and E.
    m5 = matrices[4]
    assert [(i, j) for i in range(6) for j in range(6) if m5[i][j] == INF] == [(2, 0), (2, 1), (2, 3), (2, 4)]


def test_graph2_is_the_dag_of_section_1_2():
    graph = gen.read_text(CASES / "graph2.txt")
    d = distances(graph)
    at = lambda a, b: d[graph.number[a] * graph.n + graph.number[b]]
    assert (at("A", "W"), at("A", "X"), at("A", "Y"), at("A", "Z")) == (76, 63, 52, 85)
    assert at("A", "B") == 102  # through Y, "the shortest length is 102"
    order = "A C F E D G I H Y X J W K Z B".split()  # Spot Check 1's answer: a topological order
    for (u, v) in graph.weight:
        assert order.index(graph.names[u]) < order.index(graph.names[v])


@pytest.mark.parametrize("name", ["graph2", "dircycle10", "undircycle10", "names"])
def test_committed_printouts_come_from_the_oracle(name):
    graph = gen.read_text(CASES / f"{name}.txt")
    expected = gen.printout(graph, distances(graph).tobytes(), f"{name}.txt")
    assert (CASES / f"{name}.printout.txt").read_text() == expected


def test_names_printout_follows_the_modules_map_order():
    graph = gen.read_text(CASES / "names.txt")
    header = (CASES / "names.printout.txt").read_text().splitlines()[5]
    shown = header.split("\t")[1:]
    assert shown == sorted(graph.names[:10])  # byte order: "10" before "9", capitals first
    assert shown[:2] == ["10", "9"] and "late1" not in shown


def test_names_semantics():
    graph = gen.read_text(CASES / "names.txt")
    assert graph.weight[(graph.number["apple"], graph.number["10"])] == 6  # the last of two
    d = distances(graph)
    bob = graph.number["Bob"]
    assert d[bob * graph.n + bob] == 0  # the self-loop of length 5 never beats 0


def test_cycle_generators_match_the_module():
    assert gen.dir_cycle(3) == "0 1 1\n1 2 1\n2 0 1\n--END--\n"
    assert gen.undir_cycle(3) == "0 1 1\n1 0 1\n1 2 1\n2 1 1\n2 0 1\n0 2 1\n--END--\n"
    assert (CASES / "dircycle10.txt").read_text() == gen.dir_cycle(10)
    assert (CASES / "undircycle10.txt").read_text() == gen.undir_cycle(10)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 33])
@pytest.mark.parametrize("directed", [True, False])
def test_cycle_closed_form_agrees_with_dijkstra(n, directed, tmp_path):
    text = gen.dir_cycle(n) if directed else gen.undir_cycle(n)
    graph = gen.parse_text(text)
    assert graph.names == [str(i) for i in range(n)]
    gen.write_cycle_distances(n, directed, tmp_path / "closed")
    assert (tmp_path / "closed").read_bytes() == distances(graph).tobytes()


def test_random_graph_is_seeded_and_complete():
    a = gen.random_graph(50, degree=3, max_weight=9, seed=4)
    assert a == gen.random_graph(50, degree=3, max_weight=9, seed=4)
    assert a != gen.random_graph(50, degree=3, max_weight=9, seed=5)
    lines = a.splitlines()
    assert len(lines) == 50 * 3 + 1 and lines[-1] == "--END--"
    graph = gen.parse_text(a)
    assert graph.n == 50  # every vertex has out-edges, so every vertex appears
    assert all(1 <= w <= 9 for w in graph.weight.values())


def test_oracle_marks_unreachable():
    graph = gen.parse_text("a b 3\nc a 1\n--END--\n")
    assert list(distances(graph)) == [0, 3, INF, INF, 0, INF, 1, 4, 0]


def test_parallel_oracle_matches_serial(tmp_path, monkeypatch):
    graph = gen.parse_text(gen.random_graph(120, degree=2, seed=9))
    gen.write_distances(graph, tmp_path / "serial")
    monkeypatch.setattr(gen, "workers_for", lambda n: 3)
    gen.write_distances(graph, tmp_path / "forked")
    assert (tmp_path / "forked").read_bytes() == (tmp_path / "serial").read_bytes()
    assert not list(tmp_path.glob("*.part*"))


def test_apsp_round_trip_keeps_every_distance():
    graph = gen.read_text(CASES / "names.txt")
    back = gen.parse_text(gen.from_apsp(gen.to_apsp(graph)))
    assert back.n == graph.n and back.names == [str(i) for i in range(graph.n)]
    assert distances(back) == distances(graph)


def test_from_apsp_keeps_isolated_vertices_and_numbering():
    data = array("i", [4, 1, 3, 0, 7]).tobytes()  # 4 vertices, one edge 3 -> 0
    text = gen.from_apsp(data)
    graph = gen.parse_text(text)
    assert graph.names == ["0", "1", "2", "3"]
    assert list(distances(graph))[12:16] == [7, INF, INF, 0]


def test_apsp_conversion_errors():
    heavy = gen.parse_text("a b 1001\n--END--\n")
    with pytest.raises(ValueError, match="1000"):
        gen.to_apsp(heavy)
    with pytest.raises(ValueError, match="bad APSP binary input"):
        gen.from_apsp(array("i", [3, 2, 0, 1, 5]).tobytes())
    with pytest.raises(ValueError, match="out of range"):
        gen.from_apsp(array("i", [2, 1, 0, 2, 5]).tobytes())


def test_make_expected_printout_and_matrix(tmp_path):
    gen.make_expected({"output": "printout"}, CASES / "graph2.txt", tmp_path / "p")
    assert (tmp_path / "p").read_text() == (CASES / "graph2.printout.txt").read_text()
    params = {"graph": "undircycle", "n": 12}
    gen.make_input(params, tmp_path / "in")
    gen.make_expected(params, tmp_path / "in", tmp_path / "out")
    assert (tmp_path / "out").read_bytes() == distances(gen.read_text(tmp_path / "in")).tobytes()


def run_gen(*args, **kw):
    return subprocess.run([sys.executable, str(CASES / "gen.py"), *map(str, args)],
                          capture_output=True, text=True, **kw)


def test_command_line(tmp_path):
    assert run_gen("dircycle", 4).stdout == gen.dir_cycle(4)
    assert run_gen("undircycle", 4).stdout == gen.undir_cycle(4)
    assert run_gen("random", 30, "--degree", 2, "--seed", 3).stdout == gen.random_graph(30, 2, 100, 3)
    assert run_gen("to-apsp", CASES / "graph1.txt", tmp_path / "g.bin").returncode == 0
    assert run_gen("from-apsp", tmp_path / "g.bin", tmp_path / "g.txt").returncode == 0
    assert run_gen("expected", tmp_path / "g.txt", tmp_path / "d.bin").returncode == 0
    assert array("i", (tmp_path / "d.bin").read_bytes()) == distances(gen.read_text(CASES / "graph1.txt"))
    assert run_gen("printout", CASES / "graph2.txt").stdout == (CASES / "graph2.printout.txt").read_text()
    bad = run_gen("to-apsp", tmp_path / "missing.txt", tmp_path / "x")
    assert bad.returncode == 2 and "gen.py: error:" in bad.stderr
    assert run_gen("dircycle", 0).returncode == 2
