#!/bin/sh
# The emulator's conformance suites on one machine with many cores and no network, within a
# fixed time, leaving few files:
#
#     OUT=results sh labs/emu/conformance/device_run.sh sources.tar.gz [SECONDS]
#
# sources.tar.gz is what pack_sources.py packed (HeCBench's *-cuda programs, cuda-samples'
# CMake build). The script unpacks it, builds the emulator's runtime once with every core,
# then runs at once, until SECONDS (default 540) after it started:
#   - hecbench.py on every src/*-cuda program, one emulator thread a program, on 3/4 of the
#     cores: a program that runs past HEC_TIMEOUT (default 40) seconds of CPU runs once more with its
#     arguments divided by 16; none starts after the deadline (END - HEC_TAIL seconds: what one
#     program's build and two runs may take), and whatever still runs at END is stopped and
#     listed as not_run, so that the results are written in time;
#   - run.py --cmake on cuda-samples (cuda4cpu's 61 and the tensor-core samples), built
#     through the checkout's own top-level CMake build, on the other cores, two emulator
#     threads a program (where that build does not configure, run.py without --cmake).
# OUT gets hecbench.json and .md, cuda-samples.json and .md, summary.txt (the totals and what
# the machine had) and logs.tar.gz (every log). HEC_ARGS and SAMPLES_ARGS add options to the
# two runners; HEC_MEMORY_GB (default 10) caps a HeCBench process's address space (a local trial: HEC_ARGS='--sample 6' SAMPLES_ARGS='--filter *vectorAdd*').
set -euf  # no globbing: HEC_ARGS and SAMPLES_ARGS may hold patterns for the runners

sources=${1:?usage: OUT=folder sh device_run.sh sources.tar.gz [seconds]}
budget=${2:-540}
out=${OUT:?set OUT to the folder the results go to}
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }
here=$(cd "$(dirname "$0")" && pwd -P)
kit=$(cd "$here/../../.." && pwd -P)
work=${CONFORMANCE_WORK:-/tmp/conformance}
cores=$(nproc)
hec_jobs=$((cores * 3 / 4 > 1 ? cores * 3 / 4 : 1))
sample_jobs=$(((cores - hec_jobs) / 2 > 1 ? (cores - hec_jobs) / 2 : 1))
hec_timeout=${HEC_TIMEOUT:-40}
hec_tail=${HEC_TAIL:-150}
mkdir -p "$out" "$work/logs"
logs=$work/logs
sources=$(cd "$(dirname "$sources")" && pwd -P)/$(basename "$sources")

{
    echo "cores: $cores (HeCBench $hec_jobs programs at once, cuda-samples $sample_jobs)"
    uname -srm
    g++ --version | head -n 1
    cmake --version | head -n 1 || echo "cmake: not installed"
    python3 --version
    grep -E 'MemTotal' /proc/meminfo
} >"$logs/machine.txt" 2>&1

tar -xzf "$sources" -C "$work"
echo "unpacked at $(elapsed) s" >>"$logs/machine.txt"

# nvcc-emu builds the runtime on first use, one file at a time under a lock; built here first
# with every core, in the folder nvcc-emu looks in (the kit's build/emu), by the same command.
make -s -C "$kit" -f "$kit/labs/emu/emu.mk" EMU_OUT="$kit/build/emu" ASAN= -j"$cores" emu-runtime \
    >"$logs/runtime.txt" 2>&1 || { echo "the emulator's runtime did not build: $logs/runtime.txt" >&2; }
echo "runtime built at $(elapsed) s: $(tail -n 1 "$logs/runtime.txt")" >>"$logs/machine.txt"

# The runners' end: the budget less a margin for writing the results and packing the logs.
end_at=$((start + budget - 25))
until_end() { echo $((end_at - $(date +%s))); }
left=$(until_end)
hec_deadline=$((left - hec_tail > 30 ? left - hec_tail : 30))
# A hang of a runner itself (not of a program: those have their limits) still ends in time.
backstop=$((left + 15))

# One thread a program everywhere: OpenMP host code (some HeCBench programs) included.
# shellcheck disable=SC2086  # HEC_ARGS and SAMPLES_ARGS are lists of options (set -f: not globbed)
(
    # Each process at most HEC_MEMORY_GB of address space: a program sized for an 80 GB GPU
    # fails its allocation (its detail says "out of memory") instead of the machine running out
    # with 48 of them at once. The emulator itself needs under 1 GB.
    # shellcheck disable=SC3045  # dash's and bash's ulimit both take -v
    ulimit -v $((${HEC_MEMORY_GB:-10} * 1024 * 1024)) ||
        echo "ulimit -v failed: HeCBench's programs run without a memory limit" >>"$logs/machine.txt"
    cd "$work" && EMU_THREADS=1 OMP_NUM_THREADS=1 timeout -k 5 "$backstop" python3 "$here/hecbench.py" \
        --hecbench "$work/hecbench" --jobs "$hec_jobs" --timeout "$hec_timeout" --clock cpu --shrink 16 \
        --deadline "$hec_deadline" --end "$left" --snapshot "${HECBENCH_SNAPSHOT:-f27000a5188f}" \
        --log "$logs/hecbench.jsonl" --json "$out/hecbench.json" --markdown "$out/hecbench.md" ${HEC_ARGS:-} \
        >"$logs/hecbench.log" 2>&1 && status=0 || status=$?
    echo "hecbench.py exit status $status at $(elapsed) s" >>"$logs/machine.txt"
) &
# cuda-samples through its own CMake build; where that does not configure (exit status 2: the
# log says why), one nvcc-emu command a file instead, so that the samples are counted anyway.
# shellcheck disable=SC2086
(
    samples() {
        left=$(until_end)
        EMU_THREADS=2 OMP_NUM_THREADS=2 timeout -k 5 "$((left + 15))" python3 "$here/run.py" \
            --cuda-samples "$work/cuda-samples" --work "$work/samples-build" --jobs "$sample_jobs" \
            --timeout 120 --clock cpu --deadline "$((left - 130))" --end "$left" \
            --json "$out/cuda-samples.json" --markdown "$out/cuda-samples.md" "$@" ${SAMPLES_ARGS:-}
    }
    cd "$work"
    samples --cmake >"$logs/cuda-samples.log" 2>&1 && status=0 || status=$?
    echo "run.py --cmake exit status $status at $(elapsed) s (1: a regression against baseline.json; 2: CMake did not configure)" >>"$logs/machine.txt"
    if [ "$status" = 2 ]; then
        samples >"$logs/cuda-samples-without-cmake.log" 2>&1 && status=0 || status=$?
        echo "run.py without --cmake exit status $status at $(elapsed) s" >>"$logs/machine.txt"
    fi
) &
wait

{
    cat "$logs/machine.txt"
    echo
    sed -n '/^HeCBench at /,$p' "$logs/hecbench.log" | head -n 40
    echo
    for log in "$logs/cuda-samples.log" "$logs/cuda-samples-without-cmake.log"; do
        [ -f "$log" ] || continue
        echo "$(basename "$log"):"
        grep -E '^cuda-samples.*: [0-9]+ of [0-9]+ pass' "$log" || tail -n 5 "$log" || true
    done
    echo "done at $(elapsed) s"
} >"$out/summary.txt"
tar -czf "$out/logs.tar.gz" -C "$work" logs
cat "$out/summary.txt"
