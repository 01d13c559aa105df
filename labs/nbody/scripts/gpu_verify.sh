#!/usr/bin/env bash
# The nbody lab's GPU verification in one go, on a machine with an NVIDIA GPU (issue 34's "done
# when"): the benchmark with its figures recorded for the handout, the reference solution graded
# on every case (public, large, and hidden ones drawn from a throwaway secret), the untouched
# starter, the student corpus graded against tests/students/expectations.toml's promise, and the
# reference graded as a submission on the large cases, timed against itself.
#
#   bash labs/nbody/scripts/gpu_verify.sh [LOG_DIR]        (default build/nbody-verify)
#
# Each step's output goes to LOG_DIR/<step>.txt and to the terminal; a failed step is reported
# at the end and does not stop the others.
set -uo pipefail
cd "$(dirname "$0")/../../.."
source labs/common/scripts/gpu_verify_steps.sh
verify_begin nbody "${1:-build/nbody-verify}"
jobs=$(nproc)

step build 240 bash -c "make -s -j$jobs nbody SOL=1 && make -s -j$jobs nbody && echo built"
# The figures the handout quotes: handouts/figures/nbody-bench.toml, and every marked copy rewritten.
step bench 120 make --no-print-directory bench LAB=nbody RECORD=1
cp handouts/figures/nbody-bench.toml "$log/" 2>/dev/null
# Hidden cases come from the instructor's secret (grader/hidden.py): the caller's LABKIT_SECRET
# (grader/scripts/gpu_round.sh passes one), else a throwaway one for this step.
step check-solution 360 env LABKIT_SECRET="${LABKIT_SECRET:-$(python3 -m grader secret)}" \
    python3 -m grader check nbody --solution --cases all --quiet --json "$log/check.json"
step starter 120 python3 -m grader check nbody --submission starter/nbody --quiet
# The student corpus on the GPU, six submissions at a time (its public cases are untimed): exits 1
# where the table's promise is broken (grade_all.py says which).
step corpus 420 python3 tests/students/grade_all.py --gpu --lab nbody --jobs 6
# The reference graded as a submission on the timed cases: timed against itself in the same run.
step timed-as-submission 240 python3 -m grader check nbody --submission solutions/nbody --cases large --quiet \
    --no-sanitize --json "$log/as-submission.json"
step margin 30 python3 -c "
import json
for case in json.load(open('$log/as-submission.json'))['cases']:
    print(case['case'], case['verdict'], case.get('timing_note', ''), {k: v for k, v in case.get('figures', {}).items() if k.endswith('_ms')})"

verify_end
