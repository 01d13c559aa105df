# What the labs' scripts/gpu_verify.sh share: steps run one after another, each one's output to
# LOG_DIR/<step>.txt and to the terminal; a failed step is reported at the end and does not stop
# the others. Sourced from the kit's root, not run:
#
#   source labs/common/scripts/gpu_verify_steps.sh
#   verify_begin LAB LOG_DIR       makes LOG_DIR ($log), records the GPU in $log/gpu.txt
#   step NAME SECONDS COMMAND...   runs one step, stopped after SECONDS
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

verify_end() {
    echo
    if [ ${#failed[@]} -eq 0 ]; then
        echo "$verify_lab GPU verification: every step passed; logs in $log"
    else
        echo "$verify_lab GPU verification: FAILED: ${failed[*]}; logs in $log"
        exit 1
    fi
}
