#!/usr/bin/env bash
# GPU verification of lab increment (the foundation issue's "done when"), from the kit's root on a
# machine with a GPU:  bash labs/increment/scripts/gpu_verify.sh
# Prints: the reference's verdicts (all cases), the untouched starter's, an off-by-one guard's,
# and the benchmark against the device-to-device copy.
set -uo pipefail
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
make -s -j8 increment SOL=1 && make -s -j8 increment || exit 1

echo "== reference solution, every case"
make -s check LAB=increment SOL=1 GRADER_ARGS="--cases all --quiet"
echo "== untouched starter"
make -s check LAB=increment GRADER_ARGS="--quiet"
echo "== off-by-one guard (idx < n - 1)"
mkdir -p build/verify/off-by-one
python3 labs/increment/scripts/plant_off_by_one.py > build/verify/off-by-one/increment.c
make -s check LAB=increment SUB=build/verify/off-by-one GRADER_ARGS="--quiet"
echo "== bench"
make -s bench LAB=increment
