#!/usr/bin/env bash
# GPU verification of lab bfs (issue 7's "done when"), from the kit's root on a machine with a GPU:
#     bash labs/bfs/scripts/gpu_verify.sh [LOG_FOLDER]
# Prints: the reference solutions' verdicts on every case (public and large), the untouched
# starter's, the benchmark (make bench LAB=bfs), the frontier solution's steps on R-MAT scale 22,
# what each of its parts buys, and last a table of both programs on every bench graph with the
# speedup of frontier over edge relaxation and the issues' targets.
set -uo pipefail
LOG=${1:-build/verify/bfs}
mkdir -p "$LOG"
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
make -s -j8 bfs SOL=1 && make -s -j8 bfs || exit 1

echo "== reference solutions, every case"
make -s check LAB=bfs SOL=1 GRADER_ARGS="--cases all --quiet --json $LOG/check.json" 2>&1 | tee "$LOG/check.txt"
echo "== untouched starter"
make -s check LAB=bfs GRADER_ARGS="--quiet" 2>&1 | tail -4

echo "== bench"
make -s bench LAB=bfs 2>&1 | tee "$LOG/bench.txt"

echo "== frontier on R-MAT scale 22, step by step (BFS_TRACE=1)"
FRONTIER=build/solution/bfs/frontier
BFS_TRACE=1 $FRONTIER --bench --graph rmat --scale 22 --runs 1 2>&1 | grep -E "trace|search:" | tail -12
echo "== the bottom-up changes one at a time (labs/bfs/scripts/frontier_steps.sh)"
bash labs/bfs/scripts/frontier_steps.sh $FRONTIER 2>&1 | tee "$LOG/steps.txt"
echo "== what each part of frontier buys (search times)"
for variant in "BFS_DIRECTION=top-down:rmat --scale 22" "BFS_SMALL=0:chain --n 100000" "BFS_SMALL=0:grid --rows 2048 --cols 2048"; do
    setting=${variant%%:*}
    graph=${variant#*:}
    echo "-- $setting, --graph $graph"
    env "$setting" $FRONTIER --bench --graph $graph --runs 1 2>&1 | grep -E "^\|" | tee -a "$LOG/variants.txt"
done

python3 labs/bfs/scripts/bench_table.py "$LOG/bench.txt"
