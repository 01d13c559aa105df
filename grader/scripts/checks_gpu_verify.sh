#!/usr/bin/env bash
# GPU verification of what the grader catches (issue 15), from the kit's root on a GPU node:
#   bash grader/scripts/checks_gpu_verify.sh [--students] [--jobs N] [LAB ...]
# --students: the student corpus (tests/students) graded on the GPU, one line a submission.
# LAB ...: the mutants of those labs graded on the GPU (grader mutants --gpu), N at a time
# (default 8: the builds are nvcc's, one core each). Tables and JSON go to $OUT (or
# build/mutants-report-gpu); the summary is printed last. Where bubblewrap is missing and there is
# no network, carry build/offline-debs (grader/scripts/offline_deps.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
. grader/scripts/offline_deps.sh

students=0 jobs=8 labs=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --students) students=1; shift ;;
        --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
        *) labs+=("$1"); shift ;;
    esac
done
out=${OUT:-build/mutants-report-gpu}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

if (( students )); then
    echo "== the student corpus on the GPU"
    time python3 tests/students/grade_all.py --gpu | tee "$out/students.txt"
fi
: > "$out/summary.txt"
for lab in "${labs[@]}"; do
    echo "== mutants of $lab on the GPU, $jobs at a time"
    start=$SECONDS
    python3 -m grader mutants "$lab" --gpu --jobs "$jobs" --quiet --json "$out/$lab.json" > "$out/$lab.txt" 2>&1
    grep -v '^  \[' "$out/$lab.txt" | grep -v '^mutant \|killed' | tail -20
    rate=$(grep '^kill rate:' "$out/$lab.txt" || echo "kill rate: not measured (see $out/$lab.txt)")
    printf '%-10s %s  [%ds]\n' "$lab" "$rate" $((SECONDS - start)) | tee -a "$out/summary.txt"
done
echo "== summary (GPU)"
cat "$out/summary.txt"
