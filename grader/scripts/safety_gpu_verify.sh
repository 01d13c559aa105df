#!/usr/bin/env bash
# GPU verification of safe grading (issues 9 and 14), from the kit's root on a machine with a GPU:
#   bash grader/scripts/safety_gpu_verify.sh
# Where bubblewrap is not installed and cannot be (no network), carry its Debian packages in
# build/offline-debs/ (grader/scripts/offline_deps.sh says which and how). Prints: whether the sandbox runs (with /dev/nvidia*),
# the reference graded in the sandbox (every case, and the hidden ones from a throwaway secret),
# a copy of it graded as a submission (timing against the reference, honest-timing checks), the
# hostile corpus on the GPU with the sandbox required and then off (kernel_loop spins on the
# device; the build-time thefts are compiled by nvcc in the build sandbox), a matmul that calls
# cuBLAS in place of its kernels (refused by the symbol check), and --sanitize on the reference
# and on a kernel with no bounds guard.
set -uo pipefail
cd "$(dirname "$0")/../.."

. grader/scripts/offline_deps.sh

echo "== machine"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
uname -r
bwrap --version || echo "no bwrap"
ls /dev/nvidia* | tr '\n' ' '; echo
python3 - <<'PY'
from grader.sandbox import sandbox_for
from grader.limits import cgroups_available
box = sandbox_for("auto")
print("sandbox:", "on" if box.active else f"OFF ({box.why_off})", "| cgroups:", cgroups_available())
PY


echo "== the reference in the sandbox, every case, and 3 hidden cases from a throwaway secret"
export LABKIT_SECRET=$(python3 -m grader secret)
time python3 -m grader check increment --solution --cases all --sandbox require --quiet

echo "== the same, sandbox off (for the overhead)"
time python3 -m grader check increment --solution --cases all --no-sandbox --quiet | tail -3
unset LABKIT_SECRET

echo "== a copy of the reference graded as a submission: timed against the reference"
python3 -m grader check increment --submission solutions/increment --cases all --sandbox require --quiet

echo "== the hostile corpus on the GPU, sandbox required"
python3 tests/hostile/corpus.py --gpu --sandbox require
echo "== the hostile corpus on the GPU, sandbox off"
python3 tests/hostile/corpus.py --gpu --sandbox off

echo "== --sanitize: the reference, then a kernel with no bounds guard"
python3 -m grader check increment --solution --sanitize --sandbox require --quiet
python3 -m grader check increment --submission tests/hostile/out_of_bounds --sanitize --sandbox require --quiet

echo "== matmul: naive and tiled calling cuBLAS (tests/hostile/matmul_cublas), graded on the GPU"
python3 -m grader check matmul --submission tests/hostile/matmul_cublas --sandbox require --quiet
echo "== matmul: the reference, built and graded in the sandbox"
time python3 -m grader check matmul --solution --sandbox require --quiet
