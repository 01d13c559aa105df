#!/usr/bin/env bash
# The developer tools that share code through headers beside them (labs/matmul/scripts/
# tune_product.cuh, labs/apsp/scripts/sweep_check.h, labs/common/timed_runs.h), built and run on
# a machine with an NVIDIA GPU, from the kit's root: each tool's check of every candidate against
# its reference, and one timed size of each, so that a change to a shared header is seen to work
# in every tool.
#
#   bash labs/common/scripts/gpu_verify_tools.sh [LOG_DIR]        (default build/tools-verify)
#
# Each step's output goes to LOG_DIR/<step>.txt and to the terminal; a failed step is reported
# at the end and does not stop the others.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
source labs/common/scripts/gpu_verify_steps.sh
verify_begin "developer tools" "${1:-build/tools-verify}"
mkdir -p build/tools
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d .)
matmul=(-std=c++17 -O3 -arch="$arch" -Ilabs/common -Ilabs/matmul -Isolutions/matmul)
apsp=(-std=c++17 -O3 -arch="$arch" -Ilabs/common -Ilabs/apsp)

step build-tune-fast 600 nvcc "${matmul[@]}" labs/matmul/scripts/tune_fast.cu -o build/tools/tune_fast -lcublas
step build-tune-tensor 600 nvcc "${matmul[@]}" labs/matmul/scripts/tune_tensor.cu labs/matmul/reference.cpp \
    -o build/tools/tune_tensor -lcublas
step build-phase3-sweep 300 nvcc "${apsp[@]}" labs/apsp/scripts/phase3_sweep.cu -o build/tools/phase3_sweep
step build-band-sweep 300 nvcc "${apsp[@]}" labs/apsp/scripts/band_sweep.cu -o build/tools/band_sweep

step tune-fast-check 300 build/tools/tune_fast check
step tune-fast-2048 300 build/tools/tune_fast 2048
step tune-tensor-check 300 build/tools/tune_tensor check
step tune-tensor-2048 300 build/tools/tune_tensor 2048
# The first size is timed, the others only checked; at n <= 1024 the reference itself is checked
# against a plain Floyd-Warshall on the CPU.
step phase3-sweep 300 build/tools/phase3_sweep 4096 1024
step band-sweep 300 build/tools/band_sweep 4096 1024

verify_end
