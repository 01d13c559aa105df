#!/usr/bin/env bash
# The nbody lab's GPU verification in one go, on a machine with an NVIDIA GPU (issue 34's "done
# when"): the benchmark with its figures recorded for the handout, the reference solution graded
# on every case (public and large), the untouched starter, and the corpus's submissions that are
# right on the large cases timed against the reference.
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
step check-solution 300 python3 -m grader check nbody --solution --cases all --quiet --json "$log/check.json"
step starter 120 python3 -m grader check nbody --submission starter/nbody --quiet
# The reference graded as a submission on the timed cases: timed against itself in the same run.
step timed-as-submission 240 python3 -m grader check nbody --submission solutions/nbody --cases large --quiet \
    --no-sanitize --json "$log/as-submission.json"
step margin 30 python3 -c "
import json
for case in json.load(open('$log/as-submission.json'))['cases']:
    print(case['case'], case['verdict'], case.get('timing_note', ''), {k: v for k, v in case.get('figures', {}).items() if k.endswith('_ms')})"

verify_end
