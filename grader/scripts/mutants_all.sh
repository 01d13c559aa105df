#!/usr/bin/env bash
# The kill rate of every lab's cases (public and optional) on mutants of its reference solution
# (grader/mutants.py), one lab after the other; a benchmark of the cases, not a test.
#   bash grader/scripts/mutants_all.sh [--gpu | --asan] [--jobs N] [OUT]
# OUT (default build/mutants-report) gets <lab>.json and <lab>.txt (the table) for each lab, and
# summary.txt: one line per lab with its kill rate. Under the CPU emulator a process sees one
# device; CUDA_EMU_DEVICES=2 in the environment gives the multi-GPU programs two.
# Exit status: 0, or 1 when some lab had a stillborn or ungraded mutant, or could not be run.
set -uo pipefail
cd "$(dirname "$0")/../.."

flags=()
while [[ $# -gt 0 && $1 == --* ]]; do
    if [[ $1 == --jobs ]]; then flags+=("$1" "${2:?--jobs needs a number}"); shift 2; else flags+=("$1"); shift; fi
done
out=${1:-build/mutants-report}
mkdir -p "$out"
: > "$out/summary.txt"
status=0
for lab in $(python3 -c 'from grader.labs import lab_ids; print(" ".join(lab_ids()))'); do
    start=$SECONDS
    python3 -m grader mutants "$lab" "${flags[@]}" --quiet --json "$out/$lab.json" > "$out/$lab.txt" 2>&1 || status=1
    cat "$out/$lab.txt"
    rate=$(grep '^kill rate:' "$out/$lab.txt" || echo "kill rate: not measured (see $out/$lab.txt)")
    printf '%-10s %s  [%ds]\n' "$lab" "$rate" $((SECONDS - start)) | tee -a "$out/summary.txt"
    echo
done
echo "== summary (${flags[*]:-CPU emulation}${CUDA_EMU_DEVICES:+, CUDA_EMU_DEVICES=$CUDA_EMU_DEVICES})"
cat "$out/summary.txt"
exit $status
