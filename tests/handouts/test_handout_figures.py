"""The handouts' figures (authoring/figures.py): every figure in handouts/figures/figures.toml is
made, every figure a handout shows is one of them, and the readers and the plotter are right."""

import shutil
import struct
import xml.etree.ElementTree as ET

import pytest

from authoring import figures
from authoring.handouts import HANDOUTS_DIR, handout_sources, link_targets, local_path, read_ast

needs_graphviz = pytest.mark.skipif(shutil.which("dot") is None,
                                    reason="Graphviz is not installed (make deps installs it)")
needs_pandoc = pytest.mark.skipif(shutil.which("pandoc") is None,
                                  reason="pandoc is not installed (make deps installs it)")
MANIFEST = figures.load_manifest()


@needs_graphviz
@pytest.mark.parametrize("spec", MANIFEST, ids=[f["name"] for f in MANIFEST])
def test_every_figure_is_made(spec, tmp_path):
    out = figures.make_figure(spec, tmp_path, tmp_path)
    root = ET.parse(out).getroot()
    assert root.tag.endswith("svg")
    assert out.stat().st_size > 500


@needs_pandoc
def test_every_figure_a_handout_shows_is_made_by_the_manifest():
    names = {f["name"] for f in MANIFEST}
    shown = set()
    for source in handout_sources():
        for kind, target in link_targets(read_ast(source)):
            if kind != "Image":
                continue
            path = local_path(source, target)
            assert path.parent == HANDOUTS_DIR / "figures" and path.suffix == ".svg", \
                f"{source.name} shows {target}: figures live in handouts/figures/ as <name>.svg"
            assert path.stem in names, f"{source.name} shows {target}, which figures.toml does not make"
            shown.add(path.stem)
    assert names <= shown, f"figures.toml makes figures no handout shows: {sorted(names - shown)}"


def test_graph_text_reader_keeps_the_last_weight(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("A B 4\nB C 7\nA B 2\n--END--\nignored 1 2\n")
    graph = figures.read_graph_text(path)
    assert graph.names == ["A", "B", "C"]
    assert sorted(graph.edges) == [(0, 1, 2), (1, 2, 7)]
    assert graph.directed


def test_binary_readers(tmp_path):
    apsp = tmp_path / "g.bin"
    apsp.write_bytes(struct.pack("<8i", 3, 2, 0, 1, 5, 1, 2, 0))
    graph = figures.read_apsp_binary(apsp)
    assert graph.names == ["0", "1", "2"] and graph.edges == [(0, 1, 5), (1, 2, 0)]
    edges = tmp_path / "e.bin"
    edges.write_bytes(struct.pack("<8i", 3, 3, 0, 1, 1, 0, 2, 1))  # (0,1) twice: drawn once
    graph = figures.read_edge_list(edges)
    assert graph.edges == [(0, 1, None), (1, 2, None)] and not graph.directed
    edges.write_bytes(b"\0\0\0")
    with pytest.raises(figures.FigureError, match="not a whole number of int32s"):
        figures.read_edge_list(edges)


def test_graph_dot_labels_weights_and_quotes_names():
    dot = figures.graph_dot(figures.DrawnGraph(['a"b', "c"], [(0, 1, 3)], True))
    assert 'label="a\\"b"' in dot and "0 -> 1 [label=\"3\"]" in dot
    undirected = figures.graph_dot(figures.DrawnGraph(["a", "b"], [(0, 1, None)], False))
    assert undirected.startswith("graph") and "0 -- 1;" in undirected


def test_too_big_a_graph_is_refused(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("".join(f"v{i} v{i + 1} 1\n" for i in range(200)) + "--END--\n")
    with pytest.raises(figures.FigureError, match="too many to draw"):
        figures.make_graph({"name": "big", "input": str(path), "format": "graph-text"})


def test_blocked_phases_colour_what_each_phase_computes():
    dot = figures.make_blocked_phases({"name": "p", "blocks": 3, "pivot": 0})
    assert dot.count("(0,0)") == 2           # phase 1 computes the pivot block only (and its title names it)
    assert dot.count("read") == 1 + 4        # phase 2 reads the pivot; phase 3 the row and column
    with pytest.raises(figures.FigureError, match="pivot must be in 0..2"):
        figures.make_blocked_phases({"name": "p", "blocks": 3, "pivot": 3})


def test_plot_from_csv(tmp_path):
    csv = tmp_path / "data.csv"
    csv.write_text("# made by a lab's script on some GPU\nn,variant,ms\n64,naive,4\n32,naive,2\n32,tiled,1\n64,tiled,1.5\n")
    spec = {"name": "p", "kind": "plot", "csv": str(csv), "x": "n", "y": "ms", "series": "variant",
            "logx": True, "title": "t <&>"}
    series = figures.plot_series(spec, figures._csv_rows(spec, tmp_path))
    assert series == {"naive": [(32, 2), (64, 4)], "tiled": [(32, 1), (64, 1.5)]}
    svg = figures.make_plot(spec, tmp_path)
    root = ET.fromstring(svg)
    assert len(root.findall("{http://www.w3.org/2000/svg}polyline")) == 2
    assert "t &lt;&amp;&gt;" in svg
    spec["labels"] = {"naive": "one thread an element"}
    assert "one thread an element" in figures.make_plot(spec, tmp_path)


def test_plot_from_a_command(tmp_path):
    spec = {"name": "p", "kind": "plot", "x": "a", "y": ["b"],
            "command": ["{python}", "-c", "open(r'{csv}', 'w').write('a,b\\n1,2\\n2,3\\n')"]}
    assert "<polyline" in figures.make_plot(spec, tmp_path)
    spec["command"] = ["{python}", "-c", "raise SystemExit('no data')"]
    with pytest.raises(figures.FigureError, match="no data"):
        figures.make_plot(spec, tmp_path)


def test_plot_errors_name_the_problem(tmp_path):
    csv = tmp_path / "d.csv"
    csv.write_text("n,ms\n1,x\n")
    with pytest.raises(figures.FigureError, match="'x' is not a number"):
        figures.make_plot({"name": "p", "csv": str(csv), "x": "n", "y": "ms"}, tmp_path)
    with pytest.raises(figures.FigureError, match="no column 'nope'"):
        figures.make_plot({"name": "p", "csv": str(csv), "x": "nope", "y": "ms"}, tmp_path)
    with pytest.raises(figures.FigureError, match="log y axis needs positive values"):
        figures.svg_plot({"s": [(1, 0)]}, logy=True)


def test_manifest_errors(tmp_path):
    bad = tmp_path / "f.toml"
    bad.write_text('[[figure]]\nname = "a"\nkind = "plot"\n[[figure]]\nname = "a"\nkind = "dot"\n')
    with pytest.raises(figures.FigureError, match="two figures share a name"):
        figures.load_manifest(bad)
    with pytest.raises(figures.FigureError, match="unknown kind 'pie'"):
        figures.make_figure({"name": "x", "kind": "pie"}, tmp_path, tmp_path)


RERUN = [f for f in MANIFEST if f.get("rerun_in_tests")]


@pytest.mark.parametrize("spec", RERUN, ids=[f["name"] for f in RERUN])
def test_committed_csv_is_what_its_script_makes_now(spec, tmp_path):
    """A CSV of machine-independent figures (counts from an EMU run) must still be what the
    command that made it makes: a changed lab shows up here, not as a stale figure."""
    import subprocess
    import sys
    from grader.paths import KIT_ROOT
    from grader.testing import EMU_READY
    if not EMU_READY:
        pytest.skip("the CPU emulator (labs/emu) is not in this tree")
    fresh = tmp_path / "fresh.csv"
    argv = [str(a).replace("{csv}", str(fresh)).replace("{python}", sys.executable) for a in spec["made_by"]]
    proc = subprocess.run(argv, cwd=KIT_ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert fresh.read_text() == (KIT_ROOT / spec["csv"]).read_text(), \
        f"{spec['csv']} is stale: remake it with {' '.join(map(str, spec['made_by']))}"
