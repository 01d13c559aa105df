#!/usr/bin/env bash
# The tensor kernels' GPU checks and timings in one go (labs/matmul/NOTES.md, "The tensor
# kernel"), on a machine with an NVIDIA GPU of compute capability 8.0 or later:
# tune_tensor's candidates against float64 on odd sizes and timed against cuBLAS at n = 2048 and
# 4096, compute-sanitizer on both tensor kernels, and `make bench LAB=matmul`.
#
#   labs/matmul/scripts/gpu_tensor.sh [LOG_DIR]      (default build/matmul-tensor)
#   RECORD=1 labs/matmul/scripts/gpu_tensor.sh       the bench as `make bench LAB=matmul RECORD=1`:
#                                                    handouts/figures/matmul-bench.toml rewritten
#                                                    (a copy goes to LOG_DIR)
#   SIZES="4096" SANITIZE=0 ...                      tune_tensor at those sizes only (default
#                                                    "2048 4096"); no compute-sanitizer step
#
# Each step's output goes to LOG_DIR/<step>.txt and to the terminal; a failed step is reported
# at the end and does not stop the others. Seven files in all, so that a remote runner that
# brings back a few files gets every one.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. labs/common/scripts/gpu_verify_steps.sh  # step, verify_begin, verify_end
verify_begin "matmul tensor" "${1:-build/matmul-tensor}"
mkdir -p build
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d .)

# tune_tensor (one translation unit: one core) while make builds the lab on the others.
step build 300 bash -c "make -j\$(nproc) matmul SOL=1 >/dev/null & lab=\$!
    nvcc -std=c++17 -O3 -arch=$arch -Xptxas -v -Ilabs/common -Ilabs/matmul -Isolutions/matmul \
        labs/matmul/scripts/tune_tensor.cu labs/matmul/reference.cpp -o build/tune_tensor -lcublas 2>&1 |
        grep -E 'spill|Used' | sort | uniq -c
    tune=\${PIPESTATUS[0]}; wait \$lab && [ \$tune -eq 0 ] && echo built"
program=build/solution/matmul/matmul

step tensor-check 180 build/tune_tensor check
step tensor-tune 240 build/tune_tensor ${SIZES:-2048 4096}
if [ "${SANITIZE:-1}" != 0 ] && command -v compute-sanitizer >/dev/null; then
    step sanitizer 240 bash -c "for k in tensor tensor_1xtf32; do for n in 129 132; do
        compute-sanitizer --tool memcheck --error-exitcode 9 $program --n \$n --kernel \$k --reps 1 | grep -E 'CORRECT|WRONG|ERROR SUMMARY' || exit 1
        done; compute-sanitizer --tool racecheck --error-exitcode 9 $program --n 129 --kernel \$k --reps 1 | grep -E 'CORRECT|WRONG|RACECHECK SUMMARY' || exit 1
    done"
fi
step bench 240 make --no-print-directory bench LAB=matmul ${RECORD:+RECORD=1}
[ -n "${RECORD:-}" ] && cp handouts/figures/matmul-bench.toml "$log/"

verify_end
