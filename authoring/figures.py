"""Makes the handouts' figures: `make figures`, or python3 -m authoring.figures [--out DIR] [NAME ...].

Every figure is listed in handouts/figures/figures.toml and made from what the kit itself holds,
never pasted: a testcase's graph drawn with Graphviz, the blocked algorithm's phases drawn with
Graphviz, a plot of a CSV that a lab's own script wrote (on a GPU, committed beside the manifest,
or made by a command the manifest names, e.g. a run under the CPU emulator). Each becomes
<out>/<name>.svg; a handout shows it as ![caption](figures/<name>.svg).

Kinds and their keys (besides name, kind, caption):
    graph           input = "testcases/<lab>/<file>" or case = "<lab>/<case name>" (its input,
                    generated if need be); format = "graph-text" | "apsp-binary" | "edge-list";
                    engine = "dot" | "neato" | "circo" | ... (default dot); directed (default:
                    what the format says)
    blocked-phases  blocks = B (a B x B grid of blocks), pivot = k (the round's pivot block)
    plot            csv = "path.csv" (committed) or command = [argv...] with "{csv}" where the
                    command writes it; x = column; y = [columns] (one line each) or y = column
                    with series = column (one line per value); labels = {column or value =
                    "legend text"}; xlabel, ylabel, title, logx, logy.
                    A committed CSV names the command that wrote it, made_by = [argv...]; with
                    rerun_in_tests = true (data that do not depend on the machine, e.g. counts
                    from an EMU run) tests/handouts remakes it and compares.
    dot             source = "path.dot": a hand-written Graphviz file
"""

from __future__ import annotations

import argparse
import csv
import math
import shutil
import struct
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from grader.paths import BUILD_DIR, KIT_ROOT

MANIFEST = KIT_ROOT / "handouts" / "figures" / "figures.toml"
DEFAULT_OUT = BUILD_DIR / "handouts" / "figures"
MAX_DRAWN_VERTICES = 80  # past this a drawing is a hairball: pick a smaller testcase
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")  # Okabe-Ito


class FigureError(Exception):
    """A figure that cannot be made; the message names the figure and what to fix."""


# ---- graphs from testcase files ----------------------------------------------------------------

@dataclass
class DrawnGraph:
    names: list[str]
    edges: list[tuple[int, int, int | None]]  # (from, to, weight or None)
    directed: bool


def _int32s(data: bytes, what: str) -> list[int]:
    if len(data) % 4:
        raise FigureError(f"{what}: {len(data)} bytes is not a whole number of int32s")
    return list(struct.unpack(f"<{len(data) // 4}i", data))


def read_graph_text(path: Path) -> DrawnGraph:
    """The fw lab's text format: `V W l` a line, names numbered by first appearance, --END--."""
    names: dict[str, int] = {}
    weights: dict[tuple[int, int], int] = {}
    for line in path.read_text().splitlines():
        fields = line.split()
        if fields == ["--END--"]:
            break
        if len(fields) != 3:
            continue
        v, w = (names.setdefault(name, len(names)) for name in fields[:2])
        weights[(v, w)] = int(fields[2])  # a repeated edge keeps its last weight
    return DrawnGraph(list(names), [(u, v, w) for (u, v), w in weights.items()], True)


def read_apsp_binary(path: Path) -> DrawnGraph:
    """The APSP binary input: int32 n, int32 m, then m triples (src, dst, w)."""
    values = _int32s(path.read_bytes(), str(path))
    n, m = values[0], values[1]
    triples = values[2:2 + 3 * m]
    return DrawnGraph([str(v) for v in range(n)],
                      [tuple(triples[i:i + 3]) for i in range(0, len(triples), 3)], True)


def read_edge_list(path: Path) -> DrawnGraph:
    """The bfs lab's edge list: int32 n, int32 m, then m undirected pairs (u, v)."""
    values = _int32s(path.read_bytes(), str(path))
    n, m = values[0], values[1]
    pairs = {tuple(sorted(values[i:i + 2])) for i in range(2, 2 + 2 * m, 2)}
    return DrawnGraph([str(v) for v in range(n)], [(u, v, None) for u, v in sorted(pairs)], False)


READERS = {"graph-text": read_graph_text, "apsp-binary": read_apsp_binary, "edge-list": read_edge_list}


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def graph_dot(graph: DrawnGraph, *, directed: bool | None = None) -> str:
    directed = graph.directed if directed is None else directed
    arrow = "->" if directed else "--"
    lines = [f"{'digraph' if directed else 'graph'} G {{",
             '  graph [bgcolor="transparent", pad=0.2];',
             '  node [shape=circle, style=filled, fillcolor="#E8F1FA", color="#0072B2", '
             'fontname="Helvetica", fontsize=12, width=0.35];',
             '  edge [color="#444444", fontname="Helvetica", fontsize=10];']
    lines += [f"  {i} [label={_quote(name)}];" for i, name in enumerate(graph.names)]
    drawn = set()
    for u, v, weight in graph.edges:
        if not directed:  # an undirected edge stored both ways is one line
            if (min(u, v), max(u, v), weight) in drawn:
                continue
            drawn.add((min(u, v), max(u, v), weight))
        label = f" [label={_quote(str(weight))}]" if weight is not None else ""
        lines.append(f"  {u} {arrow} {v}{label};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _graph_input(spec: dict) -> Path:
    if "input" in spec:
        path = KIT_ROOT / spec["input"]
        if not path.exists():
            raise FigureError(f"figure {spec['name']}: input {spec['input']} does not exist")
        return path
    if "case" in spec:
        from grader.cases import prepare
        from grader.labs import load_lab
        lab_id, _, case_name = spec["case"].partition("/")
        lab = load_lab(lab_id)
        case = next((c for c in lab.cases if c.name == case_name), None)
        if case is None:
            raise FigureError(f"figure {spec['name']}: lab {lab_id} has no case {case_name!r}")
        ready = prepare(lab, case)
        if ready.input_path is None:
            raise FigureError(f"figure {spec['name']}: case {spec['case']} has no input file to draw")
        return ready.input_path
    raise FigureError(f"figure {spec['name']}: a graph needs input = \"path\" or case = \"lab/case\"")


def make_graph(spec: dict) -> str:
    reader = READERS.get(spec.get("format", ""))
    if reader is None:
        raise FigureError(f"figure {spec['name']}: format must be one of {', '.join(READERS)}")
    graph = reader(_graph_input(spec))
    if len(graph.names) > MAX_DRAWN_VERTICES:
        raise FigureError(f"figure {spec['name']}: {len(graph.names)} vertices is too many to draw "
                          f"(at most {MAX_DRAWN_VERTICES}); pick a smaller testcase")
    return graph_dot(graph, directed=spec.get("directed"))


# ---- the blocked algorithm's three phases ------------------------------------------------------

PIVOT_COLOR, CROSS_COLOR, REST_COLOR, IDLE_COLOR = "#D55E00", "#F0B98D", "#9CC3E6", "#F4F4F4"


def _phase_role(i: int, j: int, pivot: int, phase: int) -> tuple[str, str]:
    """(colour, text) of block (i, j) in a phase: what it computes, reads, or neither."""
    on_cross = (i == pivot) != (j == pivot)
    if i == pivot and j == pivot:
        return PIVOT_COLOR, f"({i},{j})" if phase == 1 else ("read" if phase == 2 else "")
    if on_cross:
        return (CROSS_COLOR, f"({i},{j})") if phase == 2 else \
               (CROSS_COLOR, "read") if phase == 3 else (IDLE_COLOR, "")
    return (REST_COLOR, f"({i},{j})") if phase == 3 else (IDLE_COLOR, "")


def _phase_table(blocks: int, pivot: int, phase: int) -> str:
    """One panel: the B x B blocks of the matrix; the blocks this phase computes carry their
    (row, column), the blocks it only reads say so."""
    rows = []
    for i in range(blocks):
        cells = []
        for j in range(blocks):
            color, text = _phase_role(i, j, pivot, phase)
            if phase == 3 and i == pivot and j == pivot:
                color = IDLE_COLOR
            label = f'<FONT POINT-SIZE="10">{text}</FONT>' if text else " "
            cells.append(f'<TD WIDTH="46" HEIGHT="46" BGCOLOR="{color}">{label}</TD>')
        rows.append("<TR>" + "".join(cells) + "</TR>")
    return '<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" COLOR="#666666">' + "".join(rows) + "</TABLE>"


def make_blocked_phases(spec: dict) -> str:
    blocks, pivot = int(spec.get("blocks", 4)), int(spec.get("pivot", 1))
    if not 0 <= pivot < blocks:
        raise FigureError(f"figure {spec['name']}: pivot must be in 0..{blocks - 1}")
    titles = (f"phase 1: the pivot block ({pivot},{pivot})",
              f"phase 2: pivot row {pivot} and column {pivot}",
              "phase 3: every other block")
    lines = ["digraph phases {", '  graph [rankdir=LR, bgcolor="transparent", nodesep=0.4];',
             '  node [shape=plaintext, fontname="Helvetica"];',
             '  edge [color="#666666", fontname="Helvetica", fontsize=10];']
    for phase, title in enumerate(titles, start=1):
        label = (f'<<TABLE BORDER="0" CELLSPACING="4"><TR><TD><B>{title}</B></TD></TR>'
                 f"<TR><TD>{_phase_table(blocks, pivot, phase)}</TD></TR></TABLE>>")
        lines.append(f"  p{phase} [label={label}];")
    lines.append('  p1 -> p2 [label="then"];')
    lines.append('  p2 -> p3 [label="then"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---- plots of a lab's CSV ----------------------------------------------------------------------

def _csv_rows(spec: dict, work: Path) -> list[dict]:
    if "csv" in spec:
        path = KIT_ROOT / spec["csv"]
        if not path.exists():
            raise FigureError(f"figure {spec['name']}: {spec['csv']} does not exist")
    elif "command" in spec:
        path = work / f"{spec['name']}.csv"
        argv = [str(a).replace("{csv}", str(path)).replace("{python}", sys.executable)
                for a in spec["command"]]
        proc = subprocess.run(argv, cwd=KIT_ROOT, capture_output=True, text=True,
                              timeout=float(spec.get("timeout_s", 300)))
        if proc.returncode != 0 or not path.exists():
            raise FigureError(f"figure {spec['name']}: {' '.join(argv)} failed "
                              f"(exit {proc.returncode}): {(proc.stderr or proc.stdout).strip()[-400:]}")
    else:
        raise FigureError(f"figure {spec['name']}: a plot needs csv = \"path\" or command = [...]")
    with path.open(newline="") as f:
        return list(csv.DictReader(row for row in f if not row.startswith("#")))


def _number(value: str, where: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise FigureError(f"{where}: {value!r} is not a number") from None


def plot_series(spec: dict, rows: list[dict]) -> dict[str, list[tuple[float, float]]]:
    """{line label: [(x, y), ...]} from the rows, by the spec's x, y and series keys."""
    x = spec["x"]
    series: dict[str, list[tuple[float, float]]] = {}
    if "series" in spec:
        for row in rows:
            where = f"figure {spec['name']}, column {spec['y']}"
            series.setdefault(row[spec["series"]], []).append(
                (_number(row[x], f"figure {spec['name']}, column {x}"), _number(row[spec["y"]], where)))
    else:
        for column in ([spec["y"]] if isinstance(spec["y"], str) else spec["y"]):
            series[column] = [(_number(r[x], f"figure {spec['name']}, column {x}"),
                               _number(r[column], f"figure {spec['name']}, column {column}"))
                              for r in rows if r.get(column) not in (None, "")]
    for points in series.values():
        points.sort()
    names = spec.get("labels", {})
    series = {names.get(label, label): points for label, points in series.items()}
    if not any(series.values()):
        raise FigureError(f"figure {spec['name']}: the CSV has no rows to plot")
    return series


def _ticks(low: float, high: float, log: bool) -> list[float]:
    if log:
        base = 2 if high / low <= 1e3 else 10  # sizes that double read best in powers of two
        first, last = math.floor(math.log(low, base) + 1e-9), math.ceil(math.log(high, base) - 1e-9)
        stride = max(1, math.ceil((last - first + 1) / 10))
        return [float(base) ** e for e in range(first, last + stride, stride)]
    if high == low:
        return [low]
    raw = (high - low) / 5
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 2.5, 5, 10) if m * step >= raw)
    start = math.floor(low / step) * step
    return [start + i * step for i in range(int(math.ceil((high - start) / step - 1e-9)) + 1)]


def _fmt(value: float) -> str:
    if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-3):
        return f"{value:.0e}".replace("e+0", "e").replace("e-0", "e-")
    return f"{value:g}"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg_plot(series: dict[str, list[tuple[float, float]]], *, title: str = "", xlabel: str = "",
             ylabel: str = "", logx: bool = False, logy: bool = False) -> str:
    """A line plot as SVG, with no dependency: axes, ticks, grid, one coloured line per series."""
    legend_width = 12 + 7 * max(len(label) for label in series)
    width, height, left, right, top, bottom = 560 + legend_width, 380, 70, 30 + legend_width, 40 if title else 20, 55
    xs = [x for pts in series.values() for x, _ in pts]
    ys = [y for pts in series.values() for _, y in pts]
    for log, values, axis in ((logx, xs, "x"), (logy, ys, "y")):
        if log and min(values) <= 0:
            raise FigureError(f"a log {axis} axis needs positive values")
    if not logy:
        ys.append(0.0)  # a linear y axis starts at zero, so heights compare honestly
    xticks, yticks = _ticks(min(xs), max(xs), logx), _ticks(min(ys), max(ys), logy)
    x_low, x_high = min(xticks + xs), max(xticks + xs)
    y_low, y_high = min(yticks + ys), max(yticks + ys)

    def scale(value, low, high, log, size):
        if log:
            value, low, high = math.log10(value), math.log10(low), math.log10(high)
        return (value - low) / (high - low) * size if high > low else size / 2

    def px(x):
        return left + scale(x, x_low, x_high, logx, width - left - right)

    def py(y):
        return height - bottom - scale(y, y_low, y_high, logy, height - top - bottom)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    if title:
        out.append(f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="14" '
                   f'font-weight="bold">{_escape(title)}</text>')
    for t in xticks:
        out.append(f'<line x1="{px(t):.1f}" y1="{top}" x2="{px(t):.1f}" y2="{height - bottom}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{px(t):.1f}" y="{height - bottom + 16}" text-anchor="middle">{_fmt(t)}</text>')
    for t in yticks:
        out.append(f'<line x1="{left}" y1="{py(t):.1f}" x2="{width - right}" y2="{py(t):.1f}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{left - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{_fmt(t)}</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{height - top - bottom}" '
               f'fill="none" stroke="#444"/>')
    out.append(f'<text x="{(left + width - right) / 2}" y="{height - 12}" text-anchor="middle">{_escape(xlabel)}</text>')
    out.append(f'<text transform="translate(16 {(top + height - bottom) / 2}) rotate(-90)" '
               f'text-anchor="middle">{_escape(ylabel)}</text>')
    for index, (label, points) in enumerate(series.items()):
        color = PALETTE[index % len(PALETTE)]
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
        if len(points) <= 40:  # markers on a dense curve only blur it
            out += [f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{color}"/>' for x, y in points]
        lx, ly = width - right + 12, top + 12 + 18 * index
        out.append(f'<line x1="{lx}" y1="{ly - 4}" x2="{lx + 20}" y2="{ly - 4}" stroke="{color}" stroke-width="2"/>')
        out.append(f'<text x="{lx + 26}" y="{ly}">{_escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def make_plot(spec: dict, work: Path) -> str:
    for key in ("x", "y"):
        if key not in spec:
            raise FigureError(f"figure {spec['name']}: a plot needs {key} = ...")
    rows = _csv_rows(spec, work)
    try:
        series = plot_series(spec, rows)
    except KeyError as e:
        raise FigureError(f"figure {spec['name']}: the CSV has no column {e}") from None
    return svg_plot(series, title=spec.get("title", ""), xlabel=spec.get("xlabel", spec["x"]),
                    ylabel=spec.get("ylabel", ""), logx=bool(spec.get("logx")), logy=bool(spec.get("logy")))


# ---- the manifest and the driver ---------------------------------------------------------------

def load_manifest(path: Path = MANIFEST) -> list[dict]:
    try:
        with path.open("rb") as f:
            figures = tomllib.load(f).get("figure", [])
    except FileNotFoundError:
        return []
    except tomllib.TOMLDecodeError as e:
        raise FigureError(f"{path}: {e}") from None
    names = [f.get("name") for f in figures]
    for spec, name in zip(figures, names):
        if not name or "kind" not in spec:
            raise FigureError(f"{path}: every [[figure]] needs a name and a kind ({spec})")
    if len(set(names)) != len(names):
        raise FigureError(f"{path}: two figures share a name")
    return figures


def render_dot(dot_text: str, out: Path, engine: str = "dot") -> None:
    if shutil.which(engine) is None:
        raise FigureError(f"Graphviz's {engine} is not installed: sudo apt-get install graphviz (or make deps)")
    proc = subprocess.run([engine, "-Tsvg", "-o", str(out)], input=dot_text, capture_output=True, text=True)
    if proc.returncode != 0:
        raise FigureError(f"{engine} failed on {out.name}: {proc.stderr.strip()}")


def make_figure(spec: dict, out_dir: Path, work: Path) -> Path:
    out = out_dir / f"{spec['name']}.svg"
    kind = spec["kind"]
    if kind == "graph":
        render_dot(make_graph(spec), out, spec.get("engine", "dot"))
    elif kind == "blocked-phases":
        render_dot(make_blocked_phases(spec), out)
    elif kind == "dot":
        source = KIT_ROOT / spec.get("source", "")
        if not source.is_file():
            raise FigureError(f"figure {spec['name']}: source {spec.get('source')} does not exist")
        render_dot(source.read_text(), out, spec.get("engine", "dot"))
    elif kind == "plot":
        out.write_text(make_plot(spec, work))
    else:
        raise FigureError(f"figure {spec['name']}: unknown kind {kind!r} "
                          f"(graph, blocked-phases, dot or plot)")
    return out


def make_figures(out_dir: Path = DEFAULT_OUT, names: list[str] | None = None,
                 manifest: Path = MANIFEST) -> list[Path]:
    figures = load_manifest(manifest)
    if names:
        unknown = set(names) - {f["name"] for f in figures}
        if unknown:
            raise FigureError(f"no figure named {', '.join(sorted(unknown))} in {manifest}")
        figures = [f for f in figures if f["name"] in names]
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        return [make_figure(spec, out_dir, Path(work)) for spec in figures]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m authoring.figures", description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", help="only these figures (default: all)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"default: {DEFAULT_OUT.relative_to(KIT_ROOT)}")
    args = p.parse_args(argv)
    try:
        for path in make_figures(args.out, args.names):
            print(f"figure: {path.relative_to(KIT_ROOT) if path.is_relative_to(KIT_ROOT) else path}")
    except FigureError as e:
        print(f"figures: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
