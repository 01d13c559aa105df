"""The fw program end to end under the CPU emulator: the module's printout, the outputs, every
version against the oracles, the explorations' options, and the starter's TODO messages."""

import importlib.util
import json
import os
from array import array

import pytest

from grader.paths import KIT_ROOT
from grader.testing import lab_program, run

CASES = KIT_ROOT / "testcases" / "fw"
INF = 1073741823
# The solution's own versions, then the given ones of labs/fw/paper_versions.cu (001 III.B-E).
VERSIONS = ["rows", "cpu", "pitch", "columns", "module", "wide", "one-thread", "parallel", "grid-sync",
            "grid-sync-reg"]

spec = importlib.util.spec_from_file_location("fw_gen_for_program", CASES / "gen.py")
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)


@pytest.fixture(scope="module")
def fw():
    return lab_program("fw", "fw")


def oracle(text: str) -> list[int]:
    graph = gen.parse_text(text)
    return list(array("i", gen.dijkstra_rows(graph.adjacency(), range(graph.n))))


def test_spot_check_4_byte_for_byte(fw, tmp_path):
    proc = run([fw, CASES / "graph1.txt", "--steps", "--print-to", tmp_path / "p.txt"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    expected = (CASES / "graph1.steps.txt").read_text()
    assert (tmp_path / "p.txt").read_text() == expected
    assert proc.stdout.startswith(expected)  # the screen shows the same, then a timing line


def test_default_printout_is_the_modules(fw, tmp_path):
    proc = run([fw, CASES / "graph2.txt", "--print-to", tmp_path / "p.txt"], cwd=tmp_path)
    assert proc.returncode == 0
    assert (tmp_path / "p.txt").read_text() == (CASES / "graph2.printout.txt").read_text()


def test_print_to_unwritable_file(fw, tmp_path):
    proc = run([fw, CASES / "graph1.txt", "--print-to", tmp_path / "no" / "p.txt"], cwd=tmp_path)
    assert proc.returncode == 2 and "cannot create --print-to file" in proc.stderr


def test_output_is_the_apsp_binary_format(fw, tmp_path):
    proc = run([fw, CASES / "names.txt", "-o", tmp_path / "d.bin"], cwd=tmp_path)
    assert proc.returncode == 0
    d = list(array("i", (tmp_path / "d.bin").read_bytes()))
    assert d == oracle((CASES / "names.txt").read_text())
    assert len(d) == 13 * 13 and INF in d


def test_random_graph_is_gen_pys_twin(fw, tmp_path):
    proc = run([fw, "--random", "40", "--degree", "3", "--max-weight", "20", "--seed", "5", "-o", tmp_path / "d.bin"],
               cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert list(array("i", (tmp_path / "d.bin").read_bytes())) == oracle(gen.random_graph(40, 3, 20, 5))


@pytest.mark.parametrize("version", VERSIONS)
def test_every_version_agrees_with_both_oracles(fw, tmp_path, version):
    text = gen.random_graph(45, degree=2, max_weight=30, seed=7)  # sparse: some pairs have no path
    (tmp_path / "g.txt").write_text(text)
    proc = run([fw, tmp_path / "g.txt", "--version", version, "--check", "-o", tmp_path / "d.bin"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "CHECK: all 2025 distances agree with Dijkstra" in proc.stdout
    assert list(array("i", (tmp_path / "d.bin").read_bytes())) == oracle(text)


@pytest.mark.parametrize("version", ["cpu", "parallel", "pitch", "columns", "module"])
def test_steps_of_other_versions_match_the_module(fw, tmp_path, version):
    proc = run([fw, CASES / "graph1.txt", "--steps", "--version", version, "--print-to", tmp_path / "p.txt"],
               cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    expected = (CASES / "graph1.steps.txt").read_text()
    if version == "cpu":  # no device: the copy messages are left out
        expected = "".join(line for line in expected.splitlines(keepends=True)
                           if "device" not in line)
    assert (tmp_path / "p.txt").read_text() == expected


def test_versions_by_name_and_number(fw, tmp_path):
    listing = run([fw, "--list"]).stdout.splitlines()
    assert [line.split()[1] for line in listing] == VERSIONS
    by_number = run([fw, CASES / "graph1.txt", "--version", "1"], cwd=tmp_path)
    assert "version cpu" in by_number.stdout
    bad = run([fw, CASES / "graph1.txt", "--version", "fastest"], cwd=tmp_path)
    assert bad.returncode == 2 and "0 rows, 1 cpu" in bad.stderr and f"{VERSIONS.index('grid-sync-reg')} grid-sync-reg" in bad.stderr
    assert "(given: labs/fw/paper_versions.cu)" in listing[VERSIONS.index("one-thread")]


def test_the_starter_runs_the_papers_versions_it_is_given(tmp_path):
    """The student edition has no solutions/: Table II runs on the student's own build, whose
    fw.c lists rows and cpu; the paper's versions come with the harness."""
    from grader.build import build_lab
    from grader.labs import load_lab
    from grader.paths import BUILD_DIR, STARTER_DIR
    from grader.testing import EMU_READY
    if not EMU_READY:
        pytest.skip("the CPU emulator is not ready here")
    build = build_lab(load_lab("fw"), src_root=STARTER_DIR, build_dir=BUILD_DIR / "emu-starter", emu=True,
                      submission=False)
    assert build.ok, build.reason
    fw = build.programs["fw"]
    listing = run([fw, "--list"]).stdout.split()
    for version in ("one-thread", "parallel", "grid-sync", "grid-sync-reg"):
        assert version in listing
        proc = run([fw, "--random", "70", "--version", version, "--check"], cwd=tmp_path)
        assert proc.returncode == 0 and "CHECK: all" in proc.stdout, proc.stdout + proc.stderr


def test_one_kernel_versions_have_no_steps(fw, tmp_path):
    proc = run([fw, CASES / "graph1.txt", "--steps", "--version", "grid-sync"], cwd=tmp_path)
    assert proc.returncode == 2 and "runs every step in one kernel" in proc.stderr


def test_path_exploration_8(fw, tmp_path):
    proc = run([fw, CASES / "graph2.txt", "--path", "A", "G", "--next-out", tmp_path / "next.bin",
                "--print-to", tmp_path / "p.txt"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Shortest path from A to G (length 29): A -> C -> F -> D -> G" in proc.stdout
    graph = gen.read_text(CASES / "graph2.txt")
    nxt = list(array("i", (tmp_path / "next.bin").read_bytes()))
    at = lambda a, b: nxt[graph.number[a] * graph.n + graph.number[b]]
    assert graph.names[at("A", "G")] == "C"  # section 2.4: "the (A,G)-entry ... would be C"
    assert at("B", "A") == -1 and graph.names[at("A", "A")] == "A"
    assert "Next hop" in (tmp_path / "p.txt").read_text()


def test_path_without_one(fw, tmp_path):
    proc = run([fw, CASES / "graph2.txt", "--path", "B", "A"], cwd=tmp_path)
    assert proc.returncode == 0 and "No path from B to A" in proc.stdout
    proc = run([fw, CASES / "graph2.txt", "--path", "A", "Q"], cwd=tmp_path)
    assert proc.returncode == 2 and "no vertex named 'Q'" in proc.stderr


def test_runs_report_copy_only_and_per_run_figures(fw, tmp_path):
    result = tmp_path / "r.json"
    proc = run([fw, CASES / "undircycle10.txt", "--runs", "3"], cwd=tmp_path,
               env={**os.environ, "LABKIT_RESULT": str(result)})
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(result.read_text())
    for key in ("kernel_ms", "total_ms", "copy_only_ms", "corrected_ms", "kernel_ms_1", "kernel_ms_3"):
        assert key in figures
    assert figures["runs"] == 3 and figures["version"] == "rows"


def test_bench_runs(fw, tmp_path):
    proc = run([fw, "--random", "40", "--bench"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "device-to-device copy" in proc.stdout and "ratio" in proc.stdout
    cpu = run([fw, "--random", "40", "--bench", "--version", "cpu"], cwd=tmp_path)
    assert cpu.returncode == 2 and "measures a GPU version" in cpu.stderr


@pytest.mark.parametrize("args,words", [
    ([], "say which graph"),
    (["a.txt", "b.txt"], "expected one graph file"),
    (["g", "--path", "A"], "--path takes two vertex names"),
    (["g", "--steps", "--runs", "2"], "do not go together"),
    (["g", "--next-out", "x"], "add --path"),
    (["g", "--rep", "2"], "unknown option --rep"),
    (["g", "-o"], "needs a value"),
])
def test_usage_errors(fw, tmp_path, args, words):
    proc = run([fw, *args], cwd=tmp_path)
    assert proc.returncode == 2 and words in proc.stderr, proc.stderr


def test_starter_stops_at_its_todos(tmp_path):
    starter = lab_program("fw", "fw", flavor="starter")
    proc = run([starter, CASES / "graph1.txt"], cwd=tmp_path)
    assert proc.returncode == 4 and "TODO not done: the loop of N launches in fw_solve" in proc.stderr
    proc = run([starter, CASES / "graph1.txt", "--steps"], cwd=tmp_path)
    assert proc.returncode == 4 and "TODO not done: launch fwStepK" in proc.stderr
    proc = run([starter, CASES / "graph1.txt", "--version", "cpu", "-o", tmp_path / "d.bin"], cwd=tmp_path)
    assert proc.returncode == 0  # the given CPU version already works
