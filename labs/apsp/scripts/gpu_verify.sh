#!/usr/bin/env bash
# The apsp lab's GPU verification (issue 6), on a machine with an NVIDIA GPU, from the kit's root:
#
#   bash labs/apsp/scripts/gpu_verify.sh [STAGE ...]   stages: bench variants public large sha multi
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
#   multi     on a machine with 2+ GPUs: multigpu on 1 GPU and on all, n = 30001, peer and
#             host exchange, each output compared with the expected one, compute times side by side
set -u -o pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-build/apsp-verify}
mkdir -p "$OUT"
STAGES=${*:-bench variants public large}
BIN=build/solution/apsp
status=0

stage() { echo; echo "=== $1 ($(date +%T))"; }
run_logged() {  # run_logged LOG COMMAND...: the command's output to the screen and to $OUT/LOG
    local log=$1; shift
    "$@" 2>&1 | tee -a "$OUT/$log"
    local rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] || { echo "FAILED ($rc): $*" | tee -a "$OUT/$log"; status=1; }
}

nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
make --no-print-directory SOL=1 apsp -j8 > "$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }

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
    multi)
        stage "multigpu: 1 GPU against all of them, n = 30001"
        nvidia-smi topo -m | tee -a "$OUT/multi.log"
        # Only this case's input and expected output (Dijkstra on every core), checked against cases.toml.
        python3 -c "from grader.labs import load_lab; from grader.cases import prepare; lab = load_lab('apsp'); \
print(prepare(lab, next(c for c in lab.cases if c.name == 'multigpu-p30k')))" 2>&1 | tee -a "$OUT/multi.log"
        input=build/cases/apsp/multigpu-p30k.in expected=build/cases/apsp/multigpu-p30k.expected
        for setting in "0 peer" "all peer" "all host"; do
            set -- $setting
            echo "--- GPUs: $1, exchange: $2" | tee -a "$OUT/multi.log"
            visible=$([ "$1" = all ] && nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd, || echo 0)
            run_logged multi.log env CUDA_VISIBLE_DEVICES="$visible" APSP_EXCHANGE="$2" \
                "$BIN/multigpu" "$input" build/apsp-out.bin --timing
            run_logged multi.log cmp build/apsp-out.bin "$expected"
            rm -f build/apsp-out.bin
        done
        echo "--- compute (ms) and whole run (ms): 1 GPU, all GPUs peer, all GPUs host" | tee -a "$OUT/multi.log"
        grep -E "^apsp-multigpu: n = " "$OUT/multi.log" | tee -a "$OUT/multi-summary.log"
        ;;
    *)
        echo "unknown stage $s (stages: bench variants public large sha multi)"; exit 2 ;;
    esac
done
echo; echo "=== done: status $status"
exit $status
