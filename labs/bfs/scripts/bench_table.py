"""Summarizes `make bench LAB=bfs`: one table of every graph by both programs (R-MAT scale 24
and 26 by frontier alone), the speedup of frontier over edge relaxation, and the targets on
R-MAT scale 22: issue 7's (frontier at least 10x faster than edge relaxation, at least 3 GTEPS)
and issue 19's (frontier at least 250 GTEPS).

    python3 labs/bfs/scripts/bench_table.py bench.txt      (the saved output of make bench)
"""

import sys

TARGET_GRAPH, TARGET_SPEEDUP, TARGET_GTEPS = "rmat-22", 10.0, 250.0


def rows(text: str) -> dict[tuple[str, str], list[str]]:
    """(graph, program) -> the row's cells, from the lines each bench run ends with."""
    found = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 8:
            found[(cells[0], cells[1])] = cells
    return found


def main(path: str) -> int:
    table = rows(open(path).read())
    graphs = list(dict.fromkeys(graph for graph, _ in table))
    print("| graph | n | m | bfs iterations | bfs ms | bfs GTEPS | frontier iterations | frontier ms "
          "| frontier GTEPS | speedup |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    status, verdicts = 0, []
    for graph in graphs:
        edge, front = table.get((graph, "bfs")), table.get((graph, "frontier"))
        if front and not edge and graph != TARGET_GRAPH:  # a graph only frontier runs
            print(f"| {graph} | {front[2]} | {front[3]} | | | | {front[4]} | {float(front[5]):.3f} | {front[6]} | |")
            continue
        if not edge or not front:
            print(f"| {graph} | missing a program's row |")
            status = 1
            continue
        speedup = float(edge[5]) / float(front[5])
        print(f"| {graph} | {edge[2]} | {edge[3]} | {edge[4]} | {float(edge[5]):.3f} | {edge[6]} "
              f"| {front[4]} | {float(front[5]):.3f} | {front[6]} | {speedup:.1f}x |")
        if graph == TARGET_GRAPH:
            gteps = float(front[6])
            ok = speedup >= TARGET_SPEEDUP and gteps >= TARGET_GTEPS
            verdicts.append(f"target on {graph}: frontier {speedup:.1f}x edge relaxation (>= {TARGET_SPEEDUP:g}), "
                            f"{gteps:.1f} GTEPS (>= {TARGET_GTEPS:g}): {'MET' if ok else 'NOT MET'}")
            status |= 0 if ok else 1
    print("\n".join(verdicts))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "build/verify/bfs/bench.txt"))
