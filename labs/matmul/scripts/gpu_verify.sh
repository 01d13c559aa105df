#!/usr/bin/env bash
# The matmul lab's whole GPU verification in one go, on a machine with an NVIDIA GPU:
# builds, every fast-kernel candidate against float64 and timed against cuBLAS, `make bench`,
# the exploration tables, tiled against naive, compute-sanitizer on odd sizes, and the grader on every case.
#
#   labs/matmul/scripts/gpu_verify.sh [LOG_DIR]        (default build/matmul-verify)
#
# Each step's output goes to LOG_DIR/<step>.txt and to the terminal; a failed step is reported
# at the end and does not stop the others.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source labs/common/scripts/gpu_verify_steps.sh
verify_begin matmul "${1:-build/matmul-verify}"

step build 240 bash -c 'make -j8 matmul SOL=1 >/dev/null && make -j8 matmul >/dev/null &&
    { [ build/tune_fast -nt labs/matmul/scripts/tune_fast.cu ] && [ build/tune_fast -nt solutions/matmul/matmul.c ] &&
      [ build/tune_fast -nt labs/matmul/scripts/async_kernel.cuh ] &&
      [ build/tune_fast -nt labs/matmul/scripts/tune_product.cuh ] && [ build/tune_fast -nt labs/common/timed_runs.h ] ||
      nvcc -std=c++17 -O3 -arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d .) \
        -Ilabs/common -Ilabs/matmul -Isolutions/matmul labs/matmul/scripts/tune_fast.cu -o build/tune_fast -lcublas; } &&
    echo built'
program=build/solution/matmul/matmul

step tune-check 180 build/tune_fast check
step tune 180 build/tune_fast 1024 2048 4096
# The tensor kernel's shapes (NOTES.md, "The tensor kernel"): checked against float64 on odd
# sizes, then timed against cuBLAS SGEMM and cuBLAS's TF32 mode with each one's error.
step tensor-build 240 nvcc -std=c++17 -O3 -arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d .) \
    -Ilabs/common -Ilabs/matmul -Isolutions/matmul labs/matmul/scripts/tune_tensor.cu labs/matmul/reference.cpp \
    -o build/tune_tensor -lcublas
step tensor-check 180 build/tune_tensor check
step tensor-tune 180 build/tune_tensor 2048 4096
step bench 180 make --no-print-directory bench LAB=matmul
step geometry 180 python3 labs/matmul/scripts/geometry.py --n 2048 --program $program
step coalescing 120 python3 labs/matmul/scripts/coalescing.py --program $program
step occupancy 60 python3 labs/matmul/scripts/occupancy.py --file solutions/matmul/matmul.c
step tiled-vs-naive 120 bash -c "for n in 1024 2048 4096; do for t in 16 32; do
    $program --n \$n --kernel tiled --ntx \$t --nty \$t --baseline naive --reps 10 --no-check | grep baseline; done; done"
if command -v compute-sanitizer >/dev/null; then
    step sanitizer 240 bash -c "for k in naive tiled fast tensor tensor_1xtf32 tiled_uncoalesced; do for n in 129 132; do
        compute-sanitizer --tool memcheck --error-exitcode 9 $program --n \$n --kernel \$k --reps 1 | grep -E 'CORRECT|WRONG|ERROR SUMMARY' || exit 1
        done; compute-sanitizer --tool racecheck --error-exitcode 9 $program --n 129 --kernel \$k --reps 1 | grep -E 'CORRECT|WRONG|RACECHECK SUMMARY' || exit 1
    done"
fi
step check-solution 300 python3 -m grader check matmul --solution --cases all --quiet
# The solution graded as a submission: timed against itself in the same run, and the figure
# time_vs_baseline of the case tiled-beats-naive.
step check-as-submission 300 python3 -m grader check matmul --submission solutions/matmul --cases all --quiet \
    --json "$log/as-submission.json"
step margin 30 python3 -c "
import json
for case in json.load(open('$log/as-submission.json'))['cases']:
    f = case['figures']
    if 'time_vs_baseline' in f:
        print(case['case'], 'kernel_ms', f['kernel_ms'], 'baseline_ms', f['baseline_ms'], 'time_vs_baseline', f['time_vs_baseline'])"

verify_end
