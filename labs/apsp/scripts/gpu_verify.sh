#!/usr/bin/env bash
# The apsp lab's GPU verification (issue 6), on a machine with an NVIDIA GPU, from the kit's root:
#
#   bash labs/apsp/scripts/gpu_verify.sh [STAGE ...]   stages: bench variants public large sha costs multi
#
# with no stage: bench variants public large. Logs go to $OUT (default build/apsp-verify).
#   bench     make bench LAB=apsp: distance updates/s at n = 16384 beside the GPU's min-plus
#             ceiling, the whole program at n = 11000, multigpu and cpu
#   variants  phase-3 variants side by side at n = 16384 (scripts/phase3_variants.cu), and the
#             reference's SASS: DPX instructions (VIADDMNMX) in its phase 3
#   public    the reference solution on the public cases, on the GPU
#   large     the reference on the large cases (n = 5000 .. 30001): the grader makes each input
#             and its expected output (Dijkstra from every source on every core, minutes) and
#             checks both against the SHA-256 in cases.toml
#   sha       (for the manifest) makes the large cases without checking, prints their SHA-256,
#             and compares each program's output with the expected file directly
#   costs     what the whole program pays besides its kernels at n = 30001, piece by piece
#             (scripts/io_costs.cu): CUDA's start-up, first touches of memory, the output file,
#             the copies on one GPU and on all. Run it before multi: on a VM that backs its
#             memory only when first touched, it also leaves the memory warm for both settings.
#   multi     on a machine with 2+ GPUs: multigpu on all GPUs and on 1, n = 30001 (the case
#             multigpu-p30k), twice each, alternating, then once with the exchange through the
#             host. Each output's SHA-256 is checked against cases.toml (the expected file
#             itself takes the oracle minutes to make). Prints the program's own whole-run time
#             and the process's wall time, as the grader measures it. BIN=DIR runs the programs
#             in DIR instead of the build (to compare two versions); MULTI_SIZES="N ..." adds
#             larger graphs, each checked against the oracle's output made on the spot.
set -u -o pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-build/apsp-verify}
STAGES=${*:-bench variants public large}
BIN=${BIN:-build/solution/apsp}
. grader/scripts/gpu_verify_log.sh apsp

for s in $STAGES; do
    case $s in
    bench)
        stage "make bench"
        run_logged bench.log make --no-print-directory bench LAB=apsp
        ;;
    variants)
        stage "phase-3 variants, n = 16384"
        nvcc -std=c++17 -arch=sm_90 -O3 -Ilabs/common -Ilabs/apsp labs/apsp/scripts/phase3_variants.cu \
            -o build/phase3_variants > "$OUT/variants-build.log" 2>&1 || { cat "$OUT/variants-build.log"; status=1; }
        run_logged variants.log build/phase3_variants 16384
        echo "SASS of the reference's phase 3 (sm_90): instruction counts" | tee -a "$OUT/variants.log"
        cuobjdump -sass "$BIN/gpu" | awk '/Function : /{ f = /phase3_kernel/ } f' > "$OUT/phase3.sass"
        for op in VIADDMNMX IMNMX VIMNMX IADD3 LDS STS LDG STG; do
            printf '  %-10s %5d\n' "$op" "$(grep -cE "[[:space:]]$op(\.|[[:space:]])" "$OUT/phase3.sass")"
        done | tee -a "$OUT/variants.log"
        ;;
    public)
        stage "grader: the solution on the public cases"
        run_logged public.log python3 -m grader check apsp --solution
        ;;
    large)
        stage "grader: the solution on the large cases"
        run_logged large.log python3 -m grader check apsp --solution --cases large
        ;;
    sha)
        stage "large cases: SHA-256 for the manifest, and each program's output against the expected"
        run_logged sha.log python3 -m grader cases apsp --cases large --print-sha
        for input in build/cases/apsp/*-p[0-9]*.in; do
            case=$(basename "$input" .in)
            program=${case%%-*}
            echo "--- $case ($program)" | tee -a "$OUT/sha.log"
            run_logged sha.log "$BIN/$program" "$input" build/apsp-out.bin --timing
            run_logged sha.log cmp build/apsp-out.bin "build/cases/apsp/$case.expected"
            rm -f build/apsp-out.bin
        done
        ;;
    costs)
        stage "costs besides the kernels, n = 30001"
        nvcc -std=c++17 -arch=sm_90 -O2 -Ilabs/common labs/apsp/scripts/io_costs.cu -o build/io_costs \
            > "$OUT/costs-build.log" 2>&1 || { cat "$OUT/costs-build.log"; status=1; }
        { grep -H . /sys/kernel/mm/transparent_hugepage/enabled; df -hT build | tail -1; grep -E "MemTotal|MemFree" /proc/meminfo
          nvidia-smi --query-gpu=index,persistence_mode --format=csv,noheader; } 2>&1 | tee -a "$OUT/costs.log"
        run_logged costs.log build/io_costs 30001 build overlap   # first: CUDA not yet started in this process
        run_logged costs.log build/io_costs 30001 build
        all=$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd,)
        for visible in 0 "$all" 0 "$all"; do  # a whole process that only starts CUDA, as the grader times it
            start=$(date +%s%N)
            CUDA_VISIBLE_DEVICES=$visible build/io_costs 1 build startup > /dev/null
            echo "process that starts CUDA on GPUs $visible and exits: $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$OUT/costs.log"
        done
        ;;
    multi)
        stage "multigpu: 1 GPU against all of them, n = 30001${MULTI_SIZES:+ and $MULTI_SIZES} ($BIN)"
        nvidia-smi topo -m | tee -a "$OUT/multi.log"
        python3 -c "import sys; sys.path.insert(0, 'testcases/apsp'); import gen; gen.oracle()"  # builds build/tools/apsp-oracle
        case_field() {  # case_field FIELD: params (as the oracle's arguments), input_sha256 or expected_sha256
            python3 -c "from grader.labs import load_lab; c = next(c for c in load_lab('apsp').cases if c.name == 'multigpu-p30k'); \
p = c.params; print(f\"{p['n']} {p['m']} {p['seed']} {int(p['cycle'])}\" if '$1' == 'params' else getattr(c, '$1'))"
        }
        same_sha() { [ "$(sha256sum < "$1" | cut -d' ' -f1)" = "$2" ]; }
        # time_settings LABEL INPUT CHECK...: multigpu on all GPUs and on GPU 0, twice each,
        # alternating, then on all with the exchange through the host; CHECK OUTPUT must succeed
        # for each output. All GPUs go first: a VM's first touches of memory (seconds) then slow
        # the side that is to be faster, never the baseline.
        time_settings() {
            local label=$1 input=$2 out=build/apsp-out.bin; shift 2
            local all setting wall_ms start
            all=$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd,)
            for setting in "$all peer" "0 peer" "$all peer" "0 peer" "$all host"; do
                set -- $setting "$@"
                echo "--- $label, GPUs: $1, exchange: $2" | tee -a "$OUT/multi.log"
                rm -f "$out"
                start=$(date +%s%N)
                run_logged multi.log env CUDA_VISIBLE_DEVICES="$1" APSP_EXCHANGE="$2" "$BIN/multigpu" "$input" "$out" --timing
                wall_ms=$(( ($(date +%s%N) - start) / 1000000 ))
                if "${@:3}" "$out"; then verdict="output identical to the expected"
                else verdict="FAILED: the output differs from the expected"; status=1; fi
                echo "process wall: $wall_ms ms; $verdict" | tee -a "$OUT/multi.log"
                echo "$label, GPUs $1, exchange $2: $(grep -E "^apsp-multigpu: n = " "$OUT/multi.log" | tail -1 | sed 's/.*compute/compute/'), process wall $wall_ms ms" >> "$OUT/multi-summary.log"
                set -- "${@:3}"
            done
            rm -f "$out"
        }

        # The manifest's case: its input and expected output are checked by SHA-256 (the expected
        # file itself takes the oracle minutes to make).
        input=build/cases/apsp/multigpu-p30k.in
        [ -f "$input" ] || { mkdir -p build/cases/apsp; build/tools/apsp-oracle generate $(case_field params) "$input"; }
        same_sha "$input" "$(case_field input_sha256)" \
            || { echo "FAILED: $input is not the case's input (SHA-256)" | tee -a "$OUT/multi.log"; status=1; }
        check_sha() { same_sha "$1" "$expected_sha"; }
        expected_sha=$(case_field expected_sha256)
        time_settings "n = 30001" "$input" check_sha

        # Larger sizes (MULTI_SIZES="50000 ..."): the same kind of graph (20 edges a vertex, a
        # cycle through all), the expected output made here by the oracle.
        for n in ${MULTI_SIZES:-}; do
            input=build/apsp-multi-$n.in expected=build/apsp-multi-$n.expected
            build/tools/apsp-oracle generate "$n" $((20 * n)) 204 1 "$input"
            start=$(date +%s%N)
            build/tools/apsp-oracle solve "$input" "$expected" "$(nproc)" > /dev/null
            echo "oracle (Dijkstra from every source), n = $n: $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$OUT/multi.log"
            time_settings "n = $n" "$input" cmp -s "$expected"
            rm -f "$input" "$expected"
        done
        echo "--- summary ($BIN)" | tee -a "$OUT/multi.log"
        tee -a "$OUT/multi.log" < "$OUT/multi-summary.log"
        rm -f "$OUT/multi-summary.log"
        ;;
    *)
        echo "unknown stage $s (stages: bench variants public large sha costs multi)"; exit 2 ;;
    esac
done
echo; echo "=== done: status $status"
exit $status
