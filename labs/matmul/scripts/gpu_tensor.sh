#!/usr/bin/env bash
# The tensor kernels' GPU checks and timings in one go (labs/matmul/NOTES.md, "The tensor
# kernel"), on a machine with an NVIDIA GPU of compute capability 8.0 or later, in about two
# minutes and a half: tune_tensor's candidates against float64 on odd sizes and timed in turns
# with cuBLAS SGEMM, compute-sanitizer on both tensor kernels, `make bench LAB=matmul` (its
# kernels and cuBLAS timed in interleaved rounds) BENCH_RUNS times, then the bench at n = 4096
# in turns a fifth as long. The SM clock, power draw, temperature and the driver's reasons for
# holding the clock down are sampled every 50 ms through the timed steps (clocks-<step>.csv,
# summed up at the end of each step's log): a ratio that moves from run to run is often a card
# at its power limit.
#
#   labs/matmul/scripts/gpu_tensor.sh [LOG_DIR]      (default build/matmul-tensor)
#   RECORD=1 labs/matmul/scripts/gpu_tensor.sh       the first bench as `make bench LAB=matmul
#                                                    RECORD=1`: handouts/figures/matmul-bench.toml
#                                                    rewritten (a copy goes to LOG_DIR)
#   SIZES="2048 4096" SANITIZE=0 BENCH_RUNS=2 ...    tune_tensor at those sizes (default "4096");
#                                                    no compute-sanitizer step; the bench twice
#                                                    (default once)
#
# Each step's output goes to LOG_DIR/<step>.txt and to the terminal; a failed step is reported
# at the end and does not stop the others. Where $OUT is set (a remote runner's folder that
# comes back), every log is also packed into $OUT/matmul-tensor-logs.tar.gz.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. labs/common/scripts/gpu_verify_steps.sh  # step, verify_begin, verify_end
verify_begin "matmul tensor" "${1:-build/matmul-tensor}"
mkdir -p build
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d .)

# What nvidia-smi samples; older drivers call the clock's reasons clocks_throttle_reasons.
samples=timestamp,clocks.sm,power.draw,temperature.gpu
for reasons in clocks_event_reasons.active clocks_throttle_reasons.active; do
    if nvidia-smi --query-gpu=$reasons --format=csv >/dev/null 2>&1; then
        samples=$samples,$reasons
        break
    fi
done

# sampled NAME SECONDS COMMAND...: `step`, with nvidia-smi sampling the card into
# LOG_DIR/clocks-NAME.csv meanwhile, and the samples' summary appended to the step's log.
sampled() {
    local name=$1
    nvidia-smi --query-gpu=$samples --format=csv,nounits -lms 50 >"$log/clocks-$name.csv" 2>&1 &
    local sampler=$!
    step "$@"
    kill "$sampler" 2>/dev/null
    wait "$sampler" 2>/dev/null
    python3 labs/matmul/scripts/clock_samples.py "$log/clocks-$name.csv" | tee -a "$log/$name.txt"
}

# tune_tensor (one translation unit: one core) while make builds the lab on the others.
step build 300 bash -c "make -j\$(nproc) matmul SOL=1 >/dev/null & lab=\$!
    nvcc -std=c++17 -O3 -arch=$arch -Xptxas -v -Ilabs/common -Ilabs/matmul -Isolutions/matmul \
        labs/matmul/scripts/tune_tensor.cu labs/matmul/reference.cpp -o build/tune_tensor -lcublas 2>&1 |
        grep -E 'spill|Used' | sort | uniq -c
    tune=\${PIPESTATUS[0]}; wait \$lab && [ \$tune -eq 0 ] && echo built"
program=build/solution/matmul/matmul

step tensor-check 180 build/tune_tensor check
sampled tensor-tune 240 build/tune_tensor ${SIZES:-4096}
if [ "${SANITIZE:-1}" != 0 ] && command -v compute-sanitizer >/dev/null; then
    step sanitizer 240 bash -c "for k in tensor tensor_1xtf32; do for n in 129 132; do
        compute-sanitizer --tool memcheck --error-exitcode 9 $program --n \$n --kernel \$k --reps 1 | grep -E 'CORRECT|WRONG|ERROR SUMMARY' || exit 1
        done; compute-sanitizer --tool racecheck --error-exitcode 9 $program --n 129 --kernel \$k --reps 1 | grep -E 'CORRECT|WRONG|RACECHECK SUMMARY' || exit 1
    done"
fi
for run in $(seq 1 "${BENCH_RUNS:-1}"); do
    record=
    [ "$run" = 1 ] && [ -n "${RECORD:-}" ] && record=RECORD=1
    sampled bench$run 240 make --no-print-directory bench LAB=matmul $record
done
[ -n "${RECORD:-}" ] && cp handouts/figures/matmul-bench.toml "$log/"
# The same rows at n = 4096 in turns of 20 launches (some 40 ms of a fast kernel) instead of
# the bench's 100: a kernel that a card's power limit slows only under sustained load reads
# faster here (an H100 in round 5: the tensor kernel 1.39 of SGEMM here, 1.28 in turns of 100).
sampled bench-short 120 $program --bench --n 4096 --reps 20 --rounds 5

if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
    tar czf "$OUT/matmul-tensor-logs.tar.gz" --exclude=./matmul-tensor-logs.tar.gz -C "$log" . && echo "logs packed in $OUT/matmul-tensor-logs.tar.gz"
fi
verify_end
