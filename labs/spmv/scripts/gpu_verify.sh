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
jobs=$(nproc)

step build 240 bash -c "make -s -j$jobs spmv SOL=1 && make -s -j$jobs spmv && echo built"
# The figures the handout quotes: the table's markers first (bench_table.py), then the recorded
# bench fills spmv-bench.toml in handouts/figures/ and every marked copy.
step bench-table 30 python3 labs/spmv/scripts/bench_table.py
step bench 180 make --no-print-directory bench LAB=spmv RECORD=1
cp handouts/figures/spmv-bench.toml handouts/spmv.md "$log/" 2>/dev/null
# Hidden cases come from the instructor's secret (grader/hidden.py): the caller's LABKIT_SECRET
# (grader/scripts/gpu_round.sh passes one), else a throwaway one for this step.
step check-solution 360 env LABKIT_SECRET="${LABKIT_SECRET:-$(python3 -m grader secret)}" \
    python3 -m grader check spmv --solution --cases all --quiet --json "$log/check.json"
step starter 120 python3 -m grader check spmv --submission starter/spmv --quiet
# The student corpus on the GPU, six submissions at a time (its public cases are untimed): exits 1
# where the table's promise is broken (grade_all.py says which).
step corpus 420 python3 tests/students/grade_all.py --gpu --lab spmv --jobs 6
# The reference graded as a submission on the timed cases: timed against itself in the same run.
step timed-as-submission 240 python3 -m grader check spmv --submission solutions/spmv --cases large --quiet \
    --no-sanitize --json "$log/as-submission.json"
step margin 30 python3 -c "
import json
for case in json.load(open('$log/as-submission.json'))['cases']:
    print(case['case'], case['verdict'], case.get('timing_note', ''), {k: v for k, v in case.get('figures', {}).items() if k.endswith('_ms')})"

verify_end
