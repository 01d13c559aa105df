#!/usr/bin/env bash
# The students' timing thresholds (lab.toml [timing] slow_factor), measured: on a machine with an
# NVIDIA GPU, from the kit's root,
#
#   bash tests/students/timing_gpu.sh            logs to $OUT (default build/students-timing)
#
# grades the corpus's correct submissions whose speed is in question on each lab's timed cases,
# against the reference solution in the same run, and prints each case's figure, limit and
# verdict. Each timed case compares with the reference's program of the same name and, in matmul,
# the same --kernel: fw's with version 0 of solutions/fw/fw.c (rows, fwStepK); matmul's naive-n2048
# with solutions' matmul_naive; apsp's cpu-p05k with solutions/apsp/cpu.c, its gpu-* and
# multigpu-* with gpu.c and multigpu.c; bfs's bfs-* and frontier-* with bfs.c and frontier.c. The
# lab.toml comments quote these figures. Timings only: --no-checks (compute-sanitizer does not change them).
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/students-timing}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
grade() { python3 tests/students/grade_all.py --gpu --no-checks "$@" 2>&1 | tee -a "$OUT/timing.log"; }

# fw: the module's kernel with one wait at the end (what the starter asks), and with the
# module's wait after every launch.
grade --case random-2048 --case random-4096 --case undircycle-8192 --case random-8192 \
    hochberg_fwstepk hochberg_sync_each_step
# apsp: the NTHU report's OpenMP loops (hw3-1) against the reference's cpu.c, and its three
# phases (hw3-2, hw3-3) against the reference's gpu.c (four pivots a round) and multigpu.c.
grade --case cpu-p05k --case gpu-p05k-dense --case gpu-p11k --case gpu-p20k --case gpu-p30k \
    --case multigpu-p11k --case multigpu-p30k nthu_hw3
# bfs: the stretch done as the starter's TODOs say (top-down queue) against the reference's
# frontier.c (direction-optimizing), and cs344's edge relaxation against the reference's bfs.c.
grade --case frontier-rmat-20 --case frontier-uniform-1m --case frontier-grid-1000 --case frontier-chain-100k \
    --case bfs-rmat-20 --case bfs-uniform-1m --case bfs-grid-1000 --case bfs-chain-100k starter_frontier
# matmul: the coalesced naive kernel, and the slides' matMul as printed (row from .x).
grade --case naive-n2048 baden_matmul baden_matmul_slides_indices
