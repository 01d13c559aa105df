#!/usr/bin/env bash
# The reference frontier BFS one change at a time: each numbered step turns on one more of
# solutions/bfs/frontier.c's knobs (its header lists them) and times the search on one graph,
# the harness checking every depth as always. From the kit's root, on a machine with a GPU:
#
#     make bfs SOL=1
#     bash labs/bfs/scripts/frontier_steps.sh [FRONTIER [graph options]]
#
# FRONTIER defaults to build/solution/bfs/frontier, the graph to R-MAT scale 22, edge factor 16.
# Prints one row a step: the search's median time, GTEPS and levels. The figures of an H100
# are in handouts/bfs.md ("What the reference adds").
#
#   1  the first direction-optimizing version: bottom-up reads every vertex's depth to find the
#      unvisited ones, adjacency lists in the order the edges came, the host waits for every step
#   2  the unvisited bitmap: a warp reads one word for 32 vertices and skips the visited and
#      edgeless ones
#   3  hubs first: each adjacency list starts with its neighbours of highest degree
#   4  bottom-up steps in batches of 4, each deciding on the device whether it is still wanted
#   5  no way back to top-down: bottom-up to the last level
#   6  batches of 8: all of R-MAT's bottom-up levels behind one wait (the reference's defaults)
set -uo pipefail
FRONTIER=${1:-build/solution/bfs/frontier}
shift $(( $# > 0 ? 1 : 0 ))
GRAPH=("$@")
[ ${#GRAPH[@]} -gt 0 ] || GRAPH=(--graph rmat --scale 22 --edge-factor 16)
RUNS=${RUNS:-10}

steps=(
    "1 first version|BFS_SKIP=depth BFS_ORDER=placed BFS_BATCH=1 BFS_BETA=24"
    "2 + unvisited bitmap|BFS_SKIP=bits BFS_ORDER=placed BFS_BATCH=1 BFS_BETA=24"
    "3 + hubs first|BFS_SKIP=bits BFS_ORDER=hubs BFS_BATCH=1 BFS_BETA=24"
    "4 + batches of 4|BFS_SKIP=bits BFS_ORDER=hubs BFS_BATCH=4 BFS_BETA=24"
    "5 + bottom-up to the end|BFS_SKIP=bits BFS_ORDER=hubs BFS_BATCH=4 BFS_BETA=0"
    "6 + batches of 8|BFS_SKIP=bits BFS_ORDER=hubs BFS_BATCH=8 BFS_BETA=0"
)
echo "frontier steps on: ${GRAPH[*]} (median of $RUNS searches)"
echo "| step | knobs | search ms | GTEPS | levels | prepare ms |"
echo "|---|---|---:|---:|---:|---:|"
status=0
for step in "${steps[@]}"; do
    name=${step%%|*}
    settings=${step#*|}
    output=$(env $settings "$FRONTIER" --bench "${GRAPH[@]}" --runs "$RUNS" 2>&1)
    if ! grep -q "^CORRECT" <<<"$output"; then
        echo "| $name | $settings | failed: $(grep -E "WRONG|error" <<<"$output" | head -1) |"
        status=1
        continue
    fi
    # The harness's row: | graph | program | n | m | iterations | search ms | GTEPS | prepare ms |
    IFS='|' read -r _ _ _ _ _ levels ms gteps prepare _ <<<"$(grep "^| " <<<"$output" | tail -1)"
    echo "| $name | $settings | ${ms// /} | ${gteps// /} | ${levels// /} | ${prepare// /} |"
done
exit $status
