#!/usr/bin/env bash
# The nbody lab's GPU verification in one go, on a machine with an NVIDIA GPU (issue 34's "done
# when"): the benchmark with its figures recorded for the handout, the reference solution graded
# on every case (public, large, and hidden ones drawn from a throwaway secret), the untouched
# starter, the student corpus held to tests/students/expectations.toml on the GPU, and the
# reference graded as a submission on the large cases, timed against itself.
#
#   bash labs/nbody/scripts/gpu_verify.sh [LOG_DIR]        (default build/nbody-verify)
#
# Each step's output goes to LOG_DIR/<step>.txt and to the terminal; a failed step is reported
# at the end and does not stop the others.
set -uo pipefail
cd "$(dirname "$0")/../../.."
log=${1:-build/nbody-verify}
mkdir -p "$log"
failed=()

step() {  # step NAME SECONDS COMMAND...
    local name=$1 seconds=$2
    shift 2
    echo "=== $name: $*"
    local start=$SECONDS
    timeout "$seconds" "$@" 2>&1 | tee "$log/$name.txt"
    local status=${PIPESTATUS[0]}
    echo "=== $name: exit $status, $((SECONDS - start)) s"
    [ "$status" -eq 0 ] || failed+=("$name (exit $status)")
}

export PYTHONUNBUFFERED=1
jobs=$(nproc)
nvidia-smi --query-gpu=name,compute_cap,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
    --format=csv | tee "$log/gpu.txt"

step build 240 bash -c "make -s -j$jobs nbody SOL=1 && make -s -j$jobs nbody && echo built"
# The figures the handout quotes: handouts/figures/nbody-bench.toml, and every marked copy rewritten.
step bench 120 make --no-print-directory bench LAB=nbody RECORD=1
cp handouts/figures/nbody-bench.toml "$log/" 2>/dev/null
# Hidden cases come from the instructor's secret (grader/hidden.py); a fresh one here, for this step only.
step check-solution 360 env LABKIT_SECRET="$(python3 -m grader secret)" \
    python3 -m grader check nbody --solution --cases all --quiet --json "$log/check.json"
step starter 120 python3 -m grader check nbody --submission starter/nbody --quiet
# The corpus held to its table on the GPU, six submissions at a time: its cases are small and untimed.
step corpus 420 python3 tests/students/grade_all.py --gpu --lab nbody --table --jobs 6
# The reference graded as a submission on the timed cases: timed against itself in the same run.
step timed-as-submission 240 python3 -m grader check nbody --submission solutions/nbody --cases large --quiet \
    --no-sanitize --json "$log/as-submission.json"
step margin 30 python3 -c "
import json
for case in json.load(open('$log/as-submission.json'))['cases']:
    print(case['case'], case['verdict'], case.get('timing_note', ''), {k: v for k, v in case.get('figures', {}).items() if k.endswith('_ms')})"

echo
if [ ${#failed[@]} -eq 0 ]; then
    echo "nbody GPU verification: every step passed; logs in $log"
else
    echo "nbody GPU verification: FAILED: ${failed[*]}; logs in $log"
    exit 1
fi
