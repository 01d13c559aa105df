# What the labs' scripts/gpu_verify.sh share: steps run one after another, each one's output to
# LOG_DIR/<step>.txt and to the terminal; a failed step is reported at the end and does not stop
# the others. Sourced from the kit's root, not run:
#
#   source labs/common/scripts/gpu_verify_steps.sh
#   verify_begin LAB LOG_DIR       makes LOG_DIR ($log), records the GPU in $log/gpu.txt
#   step NAME SECONDS COMMAND...   runs one step, stopped after SECONDS
#   build_step                     builds the reference and the starter of LAB on every core
#   grading_steps                  the grading of LAB's reference, starter and corpus (below)
#   verify_end                     the summary line; exits 1 if a step failed

verify_begin() {  # verify_begin LAB LOG_DIR
    verify_lab=$1
    log=$2
    mkdir -p "$log"
    failed=()
    export PYTHONUNBUFFERED=1
    # The clocks, power and temperature too: a slow figure is often a throttled card.
    nvidia-smi --query-gpu=name,compute_cap,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
        --format=csv | tee "$log/gpu.txt"
}

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

build_step() {
    step build 240 bash -c "make -s -j$(nproc) $verify_lab SOL=1 && make -s -j$(nproc) $verify_lab && echo built"
}

grading_steps() {  # the lab's grading on the GPU: every case of the reference, the starter, the corpus
    # Hidden cases come from the instructor's secret (grader/hidden.py): the caller's LABKIT_SECRET
    # (grader/scripts/gpu_round.sh passes one), else a throwaway one for this step.
    step check-solution 360 env LABKIT_SECRET="${LABKIT_SECRET:-$(python3 -m grader secret)}" \
        python3 -m grader check "$verify_lab" --solution --cases all --quiet --json "$log/check.json"
    step starter 120 python3 -m grader check "$verify_lab" --submission "starter/$verify_lab" --quiet
    # The student corpus on the GPU, six submissions at a time (its public cases are untimed): exits
    # 1 where the table's promise is broken (grade_all.py says which).
    step corpus 420 python3 tests/students/grade_all.py --gpu --lab "$verify_lab" --jobs 6
    # The reference graded as a submission on the timed cases: timed against itself in the same run.
    step timed-as-submission 240 python3 -m grader check "$verify_lab" --submission "solutions/$verify_lab" \
        --cases large --quiet --no-sanitize --json "$log/as-submission.json"
    step margin 30 python3 -c "
import json
for case in json.load(open('$log/as-submission.json'))['cases']:
    print(case['case'], case['verdict'], case.get('timing_note', ''), {k: v for k, v in case.get('figures', {}).items() if k.endswith('_ms')})"
}

verify_end() {
    echo
    if [ ${#failed[@]} -eq 0 ]; then
        echo "$verify_lab GPU verification: every step passed; logs in $log"
    else
        echo "$verify_lab GPU verification: FAILED: ${failed[*]}; logs in $log"
        exit 1
    fi
}
