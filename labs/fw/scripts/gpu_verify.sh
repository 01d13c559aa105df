#!/usr/bin/env bash
# The fw lab's GPU verification (issue 5), on a machine with an NVIDIA GPU, from the kit's root:
#
#   bash labs/fw/scripts/gpu_verify.sh [STAGE ...]     stages: check versions bench traffic variants margin
#                                                      table2 scaling
#
# with no stage, all of them. Logs and the scaling CSV/PNG go to $OUT (default build/fw-verify).
#   check     the reference solution on every testcase, public and large (up to n = 8192)
#   versions  every version of solutions/fw/fw.c against Dijkstra from every source (fw --check,
#             C++ on all cores) on random graphs up to n = 4096 (the one-thread version on 256:
#             it runs N^3 steps in one thread)
#   bench     make bench: the per-k kernel against a device-to-device copy at n = 8192
#   traffic   Nsight Compute (ncu) on single steps of rows and module at n = 8192: the bytes a
#             step really moves through device memory, and its time (the handout's "Bandwidth")
#   variants  labs/fw/scripts/rows_variants.cu: rows against wider variants (two and four entries
#             a thread, several rows a block) beside a device copy, n = 8192; and Nsight Compute's
#             memory and warp-state sections on one step of rows and of wide (why rows reaches a
#             copy's rate on one card and not another: handouts/fw.md, "Bandwidth")
#   margin    the reference's rows against the module's order (the kernel the starter asks for) on
#             graphs of the timed cases' sizes, both timed by fw --bench: kernel_ms of module over
#             rows is what lab.toml's slow_factor must leave room for
#   table2    Table II of [Carrega & Ferreira n.d.]: n = 2048, ten runs of each version
#   scaling   section 2.3 of [Hochberg 2012]: undirected cycles n = 10..1800, CSV + PNG
set -u -o pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-build/fw-verify}
STAGES=${*:-check versions bench traffic variants margin table2 scaling}
FW=build/solution/fw/fw
. grader/scripts/gpu_verify_log.sh fw

for s in $STAGES; do
    case $s in
    check)
        stage "grader: the solution on every case"
        run_logged check.log python3 -m grader check fw --solution --cases all --require-full
        ;;
    versions)
        stage "every version against Dijkstra"
        for n_seed in "1000 40" "4096 41"; do
            set -- $n_seed
            for v in rows parallel grid-sync grid-sync-reg pitch columns module; do
                echo "--- n=$1 version $v"
                run_logged versions.log $FW --random "$1" --seed "$2" --version "$v" --check
            done
        done
        for n in 300 1000 2048 4096; do
            echo "--- n=$n version cpu"
            run_logged versions.log $FW --random "$n" --seed 42 --version cpu --check
        done
        # One GPU thread does all N^3 steps: 7.2 s at n = 512 on an H100, so about an hour at 4096.
        echo "--- n=512 version one-thread"
        run_logged versions.log $FW --random 512 --seed 43 --version one-thread --check
        echo "--- n=4096 path (Exploration 8)"
        run_logged versions.log $FW --random 4096 --seed 44 --path v1 v4000
        ;;
    bench)
        stage "make bench"
        run_logged bench.log make --no-print-directory bench LAB=fw
        ;;
    traffic)
        stage "ncu: device-memory bytes of single steps, n = 8192 (the bench's graph)"
        NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
        [ -x "$NCU" ] || { echo "no ncu here: stage skipped" | tee -a "$OUT/traffic.log"; continue; }
        for v in rows module; do
            for k in 256 4096; do
                echo "--- version $v, step k = $k" | tee -a "$OUT/traffic.log"
                run_logged traffic.log "$NCU" --kernel-name regex:fwStepK --launch-skip "$k" --launch-count 1 \
                    --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,lts__t_bytes.sum \
                    $FW --random 8192 --version "$v"
            done
        done
        ;;
    variants)
        stage "rows against wider variants, n = 8192, and ncu's memory sections"
        run_logged variants.log nvcc -std=c++17 -O3 -arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d .) \
            -Ilabs/common -Ilabs/fw labs/fw/scripts/rows_variants.cu labs/common/device.cu labs/common/lab_error.cpp \
            -o build/rows_variants
        run_logged variants.log build/rows_variants 8192
        NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
        [ -x "$NCU" ] || { echo "no ncu here: ncu skipped" | tee -a "$OUT/variants.log"; continue; }
        for v in rows wide; do
            echo "--- version $v, step k = 4096" | tee -a "$OUT/variants.log"
            run_logged variants.log "$NCU" --clock-control none --kernel-name regex:fwStepK --launch-skip 4096 \
                --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
                --section WarpStateStats --section SchedulerStats $FW --random 8192 --version "$v"
        done
        ;;
    margin)
        stage "rows against the module's order, the timed cases' sizes"
        make --no-print-directory cycleProgs > /dev/null
        build/tools/fw/makeUndirCycle 8192 > "$OUT/undircycle8192.txt"
        for graph in "--random 2048 --seed 22" "--random 4096 --seed 23" "--random 8192 --seed 24" "$OUT/undircycle8192.txt"; do
            for v in rows module; do
                run_logged margin.log $FW $graph --degree 8 --max-weight 100 --version "$v" --bench
            done
        done
        rm -f "$OUT/undircycle8192.txt"
        ;;
    table2)
        stage "Table II, n = 2048"
        run_logged table2.log python3 labs/fw/scripts/table2.py --fw $FW --csv "$OUT/fw-table2.csv"
        ;;
    scaling)
        stage "section 2.3 scaling, undirected cycles"
        run_logged scaling.log python3 labs/fw/scripts/scaling.py --fw $FW \
            --csv "$OUT/fw-scaling.csv" --png "$OUT/fw-scaling.png"
        ;;
    *)
        echo "unknown stage $s (check versions bench traffic variants margin table2 scaling)"; status=2
        ;;
    esac
done
echo
echo "=== done ($(date +%T)): $([ $status -eq 0 ] && echo all passed || echo SOME FAILED)"
exit $status
