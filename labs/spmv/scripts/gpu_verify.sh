#!/usr/bin/env bash
# The spmv lab's GPU verification in one go, on a machine with an NVIDIA GPU (issue 34's "done
# when"): the benchmark with its figures recorded for the handout, the reference solution graded
# on every case (public, large, and hidden ones drawn from a throwaway secret), the untouched
# starter, the student corpus graded against tests/students/expectations.toml's promise, and the
# reference graded as a submission on the large cases, timed against itself.
#
#   bash labs/spmv/scripts/gpu_verify.sh [LOG_DIR]        (default build/spmv-verify)
#
# Each step's output goes to LOG_DIR/<step>.txt and to the terminal; a failed step is reported
# at the end and does not stop the others.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source labs/common/scripts/gpu_verify_steps.sh
verify_begin spmv "${1:-build/spmv-verify}"
build_step
# The figures the handout quotes: the table's markers first (bench_table.py), then the recorded
# bench fills spmv-bench.toml in handouts/figures/ and every marked copy.
step bench-table 30 python3 labs/spmv/scripts/bench_table.py
step bench 180 make --no-print-directory bench LAB=spmv RECORD=1
cp handouts/figures/spmv-bench.toml handouts/spmv.md "$log/" 2>/dev/null
grading_steps

verify_end
