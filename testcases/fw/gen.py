"""The fw lab's graphs and expected outputs, independent of the code under test.

The graph text format is that of Hochberg's module ([Hochberg 2012], section 2.2.1):
one edge `V W l` a line, vertex names any non-whitespace ASCII, numbered in order of first
appearance, a repeated edge keeps its last weight, the last line `--END--`.

Expected distances come from Dijkstra's algorithm from every source (not Floyd-Warshall), or,
for cycles, from their closed form (tests/fw/test_fw_gen.py checks the two agree). Unreachable is
1073741823 in the APSP binary output format (docs/design.md).

As a module the grader calls make_input and make_expected (testcases/fw/cases.toml). As a
program it is the lab's generator and converter:

    python3 testcases/fw/gen.py dircycle N                  directed N-cycle, as makeDirCycle N
    python3 testcases/fw/gen.py undircycle N                undirected N-cycle, as makeUndirCycle N
    python3 testcases/fw/gen.py random N [--degree D] [--max-weight W] [--seed S]
                                                            the graph of `fw --random N ...`
    python3 testcases/fw/gen.py to-apsp GRAPH.txt OUT.bin   text -> APSP binary input
    python3 testcases/fw/gen.py from-apsp IN.bin GRAPH.txt  APSP binary input -> text
    python3 testcases/fw/gen.py expected GRAPH.txt OUT.bin  all distances (APSP binary output)
    python3 testcases/fw/gen.py printout GRAPH.txt          the first ten vertices, as fw prints them
"""

from __future__ import annotations

import argparse
import heapq
import os
import struct
import sys
from array import array
from pathlib import Path

if __package__ in (None, "") and "grader" not in sys.modules:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a program: find grader/

from grader.seeded import splitmix64  # noqa: E402  (the twin of labs/common/seeded.h)

END = "--END--"
UNREACHABLE = 1073741823  # 2^30 - 1, the APSP binary output format's "no path"
APSP_MAX_WEIGHT = 1000    # the APSP binary input format allows 0 <= w <= 1000
ALIGNMENT = 64            # fwHelpers.h's default; the printout's header names it
PRINTED = 10              # printArray shows the first ten vertices


# ---- the text format -----------------------------------------------------------------------

class Graph:
    """Vertex names by number (order of first appearance) and the edge weights, last one kept."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.number: dict[str, int] = {}
        self.weight: dict[tuple[int, int], int] = {}

    @property
    def n(self) -> int:
        return len(self.names)

    def vertex(self, name: str) -> int:
        if name not in self.number:
            self.number[name] = len(self.names)
            self.names.append(name)
        return self.number[name]

    def add_edge(self, v: str, w: str, weight: int) -> None:
        self.weight[(self.vertex(v), self.vertex(w))] = weight

    def adjacency(self) -> list[list[tuple[int, int]]]:
        """Out-edges per vertex; a self-loop never shortens a path, so it is left out."""
        out: list[list[tuple[int, int]]] = [[] for _ in range(self.n)]
        for (u, v), w in self.weight.items():
            if u != v:
                out[u].append((v, w))
        return out


def parse_text(text: str) -> Graph:
    """Reads a valid graph file. The harness's reader (labs/fw/graph_text.cpp) is the one that
    explains bad files; this one only refuses them."""
    graph = Graph()
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields:
            continue
        if fields == [END]:
            return graph
        if len(fields) != 3 or not fields[2].isdigit():
            raise ValueError(f"line {number}: not an edge 'V W l': {line!r}")
        graph.add_edge(fields[0], fields[1], int(fields[2]))
    raise ValueError(f"no {END} line")


def read_text(path) -> Graph:
    return parse_text(Path(path).read_text(encoding="ascii"))


def edge_lines(edges) -> str:
    """The text of a graph given as (V, W, l) triples, in order, with the closing line."""
    return "".join(f"{v} {w} {l}\n" for v, w, l in edges) + END + "\n"


def dir_cycle(n: int) -> str:
    """makeDirCycle N: vertices 0..N-1, an edge of length 1 from each to the next."""
    return edge_lines((i, (i + 1) % n, 1) for i in range(n))


def undir_cycle(n: int) -> str:
    """makeUndirCycle N: each edge of the cycle both ways, length 1."""
    def edges():
        for i in range(n):
            j = (i + 1) % n
            yield i, j, 1
            yield j, i, 1
    return edge_lines(edges())


def random_graph(n: int, degree: int = 8, max_weight: int = 100, seed: int = 1) -> str:
    """The seeded random graph of `fw --random N` (labs/fw/graph_text.cpp, random_graph_text):
    vertex v<i> gets `degree` edges, each to v<t> with t and the weight 1..max_weight drawn in
    that order from SplitMix64. Self-loops and repeated edges are kept in the text on purpose:
    the reader must ignore the one and keep the last weight of the other."""
    draws = splitmix64(seed)
    lines = []
    for i in range(n):
        for _ in range(degree):
            target = next(draws) % n
            weight = 1 + next(draws) % max_weight
            lines.append(f"v{i} v{target} {weight}\n")
    return "".join(lines) + END + "\n"


# ---- the oracle ----------------------------------------------------------------------------

def dijkstra_rows(adjacency, sources) -> bytes:
    """Rows of the distance matrix for `sources`, int32, UNREACHABLE for no path."""
    n = len(adjacency)
    out = array("i")
    for source in sources:
        dist = [UNREACHABLE] * n
        dist[source] = 0
        heap = [(0, source)]
        while heap:
            d, u = heapq.heappop(heap)
            if d > dist[u]:
                continue
            for v, w in adjacency[u]:
                nd = d + w
                if nd < dist[v]:
                    dist[v] = nd
                    heapq.heappush(heap, (nd, v))
        out.extend(dist)
    return out.tobytes()


def workers_for(n: int) -> int:
    """Worker processes for an n-vertex oracle: one for small graphs, all cores for big ones."""
    if n < 1024 or not hasattr(os, "fork"):
        return 1
    return max(1, min(os.cpu_count() or 1, 32))


def write_distances(graph: Graph, path: Path) -> None:
    """All distances of `graph` into `path` (APSP binary output), Dijkstra from every source,
    the sources split over forked worker processes for big graphs."""
    adjacency = graph.adjacency()
    n = graph.n
    workers = workers_for(n)
    if workers == 1:
        Path(path).write_bytes(dijkstra_rows(adjacency, range(n)))
        return
    chunk = (n + workers - 1) // workers
    parts, children = [], []
    for w in range(workers):
        part = Path(f"{path}.part{w}")
        parts.append(part)
        pid = os.fork()
        if pid == 0:  # the child writes its rows and leaves without running anything else
            status = 1
            try:
                part.write_bytes(dijkstra_rows(adjacency, range(w * chunk, min(n, (w + 1) * chunk))))
                status = 0
            finally:
                os._exit(status)
        children.append(pid)
    failed = [pid for pid in children if os.waitpid(pid, 0)[1] != 0]
    try:
        if failed:
            raise RuntimeError(f"{len(failed)} Dijkstra worker(s) failed")
        with open(path, "wb") as out:
            for part in parts:
                out.write(part.read_bytes())
    finally:
        for part in parts:
            part.unlink(missing_ok=True)


def write_cycle_distances(n: int, directed: bool, path: Path) -> None:
    """The closed form: from i to j, (j - i) mod n steps around a directed cycle, the shorter
    way round an undirected one. Each row is the first row rotated."""
    first = array("i", (j if directed else min(j, n - j) for j in range(n))).tobytes()
    with open(path, "wb") as out:
        for i in range(n):
            cut = 4 * ((n - i) % n)
            out.write(first[cut:] + first[:cut])


# ---- the printout (fwHelpers.cpp's printArray and fw.c's messages) -------------------------

def print_array(names: list[str], dist_of) -> str:
    """printArray: the first ten vertices (by number) in the order of their names, a tab before
    each column name and after each entry, `--` for no path. dist_of(i, j) gives d(i, j)."""
    shown = sorted(range(min(len(names), PRINTED)), key=lambda v: names[v].encode("ascii"))
    text = "".join("\t" + names[v] for v in shown) + "\n"
    for i in shown:
        text += names[i] + "\t"
        for j in shown:
            d = dist_of(i, j)
            text += ("--" if d >= UNREACHABLE else str(d)) + "\t"
        text += "\n"
    return text


def printout(graph: Graph, distances: bytes, file_name: str) -> str:
    """What `fw GRAPH` prints (without --steps): the module's messages, then printArray."""
    n = graph.n
    padded = ALIGNMENT * ((n + ALIGNMENT - 1) // ALIGNMENT)
    rows = array("i")
    rows.frombytes(distances)
    return (f"Alignment = {ALIGNMENT}\n"
            f"Kernel: Just read {file_name} with {n} vertices, Na = {padded}\n"
            "Malloc device rules: no error\n"
            "Pre-kernel copy memory onto device: no error\n"
            "Post-kernel copy memory off of device: no error\n"
            + print_array(graph.names, lambda i, j: rows[i * n + j]))


# ---- the APSP binary input format (lab apsp) -----------------------------------------------

def to_apsp(graph: Graph) -> bytes:
    """int32 n, int32 m, then m (src, dst, w): the graph's edges, self-loops left out."""
    edges = [(u, v, w) for (u, v), w in graph.weight.items() if u != v]
    for u, v, w in edges:
        if w > APSP_MAX_WEIGHT:
            raise ValueError(f"edge {graph.names[u]} -> {graph.names[v]} has weight {w}; the APSP "
                             f"binary format allows 0..{APSP_MAX_WEIGHT}")
    out = array("i", [graph.n, len(edges)])
    for edge in edges:
        out.extend(edge)
    return out.tobytes()


def from_apsp(data: bytes) -> str:
    """The text of an APSP binary input. Vertex i is named i; a line `i i 0` for every vertex
    first, so that first appearance numbers them 0..n-1 as the binary does (and a vertex with no
    edges still exists: the text format has no other way to name it)."""
    if len(data) < 8:
        raise ValueError("an APSP binary input starts with int32 n and int32 m")
    n, m = struct.unpack_from("<ii", data)
    if n < 1 or m < 0 or len(data) != 8 + 12 * m:
        raise ValueError(f"bad APSP binary input: n = {n}, m = {m}, {len(data)} bytes "
                         f"(expected {8 + 12 * max(m, 0)})")
    lines = [f"{i} {i} 0\n" for i in range(n)]
    for k in range(m):
        u, v, w = struct.unpack_from("<iii", data, 8 + 12 * k)
        if not (0 <= u < n and 0 <= v < n and 0 <= w <= APSP_MAX_WEIGHT):
            raise ValueError(f"edge {k}: ({u}, {v}, {w}) is out of range for n = {n}")
        lines.append(f"{u} {v} {w}\n")
    return "".join(lines) + END + "\n"


# ---- the grader's interface (cases.toml params) --------------------------------------------
#
# params.graph: "dircycle" | "undircycle" | "random" (made here) or a committed `input` file;
# params.n, and for random degree, max_weight, seed; params.output: "matrix" | "printout".

def graph_text(params: dict) -> str:
    kind = params["graph"]
    if kind == "dircycle":
        return dir_cycle(params["n"])
    if kind == "undircycle":
        return undir_cycle(params["n"])
    if kind == "random":
        return random_graph(params["n"], params.get("degree", 8), params.get("max_weight", 100),
                            params.get("seed", 1))
    raise ValueError(f"unknown graph kind {kind!r}")


def make_input(params: dict, path: Path) -> None:
    Path(path).write_text(graph_text(params), encoding="ascii")


def make_expected(params: dict, input_path, path: Path) -> None:
    graph = read_text(input_path)
    kind = params.get("graph")
    if params.get("output", "matrix") == "printout":
        # printout files are named after the case's input (what fw prints is its base name)
        scratch = Path(f"{path}.distances")
        try:
            write_distances(graph, scratch)
            text = printout(graph, scratch.read_bytes(), params.get("file_name", Path(input_path).name))
        finally:
            scratch.unlink(missing_ok=True)
        Path(path).write_text(text, encoding="ascii")
    elif kind in ("dircycle", "undircycle"):
        write_cycle_distances(graph.n, kind == "dircycle", path)
    else:
        write_distances(graph, path)


# ---- the command line ----------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="gen.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    for name in ("dircycle", "undircycle"):
        sub.add_parser(name).add_argument("n", type=int)
    rnd = sub.add_parser("random")
    rnd.add_argument("n", type=int)
    rnd.add_argument("--degree", type=int, default=8)
    rnd.add_argument("--max-weight", type=int, default=100)
    rnd.add_argument("--seed", type=int, default=1)
    for name in ("to-apsp", "from-apsp", "expected"):
        cmd = sub.add_parser(name)
        cmd.add_argument("source")
        cmd.add_argument("target")
    sub.add_parser("printout").add_argument("source")
    args = p.parse_args(argv)

    try:
        if args.command in ("dircycle", "undircycle", "random") and args.n < 1:
            raise ValueError("N must be at least 1")
        if args.command == "dircycle":
            sys.stdout.write(dir_cycle(args.n))
        elif args.command == "undircycle":
            sys.stdout.write(undir_cycle(args.n))
        elif args.command == "random":
            if args.degree < 1 or args.max_weight < 1:
                raise ValueError("--degree and --max-weight must be at least 1")
            sys.stdout.write(random_graph(args.n, args.degree, args.max_weight, args.seed))
        elif args.command == "to-apsp":
            Path(args.target).write_bytes(to_apsp(read_text(args.source)))
        elif args.command == "from-apsp":
            Path(args.target).write_text(from_apsp(Path(args.source).read_bytes()), encoding="ascii")
        elif args.command == "expected":
            write_distances(read_text(args.source), Path(args.target))
        elif args.command == "printout":
            graph = read_text(args.source)
            distances = dijkstra_rows(graph.adjacency(), range(graph.n))
            sys.stdout.write(printout(graph, distances, Path(args.source).name))
    except (OSError, ValueError, UnicodeDecodeError) as e:
        print(f"gen.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
