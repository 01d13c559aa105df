#!/usr/bin/env bash
# GPU verification of lab spmv, from the kit's root on a machine with a GPU, in one go:
#     bash labs/spmv/scripts/gpu_verify.sh [LOG_FOLDER]
# Prints the GPU, builds the reference, runs the benchmark once and records it
# (make bench LAB=spmv RECORD=1: spmv-bench.toml in handouts/figures/, and the handout's quoted
# figures rewritten from it), then grades the reference on every case, public and large
# (python3 -m grader check spmv --solution --cases all). Logs and the record go to LOG_FOLDER.
set -uo pipefail
LOG=${1:-build/verify/spmv}
mkdir -p "$LOG"
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader | tee "$LOG/gpu.txt"
make -s -j"$(nproc)" spmv SOL=1 2>&1 | tail -20 || exit 1

echo "== bench (recorded)"
python3 labs/spmv/scripts/bench_table.py || exit 1
make -s bench LAB=spmv RECORD=1 2>&1 | tee "$LOG/bench.txt"
cp handouts/figures/spmv-bench.toml "$LOG/" 2>/dev/null  # the record
cp handouts/spmv.md "$LOG/spmv.md" 2>/dev/null

echo "== reference solution, every case"
python3 -m grader check spmv --solution --cases all --json "$LOG/check.json" 2>&1 | tee "$LOG/check.txt"
