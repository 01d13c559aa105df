# Sourced, from the kit's root, by a lab's GPU verification (labs/apsp/scripts/gpu_verify.sh,
# labs/fw/scripts/gpu_verify.sh) once it has set OUT, its log folder:
#   . grader/scripts/gpu_verify_log.sh LAB
# Makes $OUT, writes the GPU's name, memory and top clock to $OUT/device.txt, builds LAB's
# reference solution (its log in $OUT/build.log; a failed build ends the script), sets status=0
# (the script's exit status) and defines
#   stage TITLE                a stage's banner, with the time
#   run_logged LOG COMMAND...  the command's output to the screen and to $OUT/LOG; a failure is
#                              said there too, and sets status=1
mkdir -p "$OUT"
status=0

stage() { echo; echo "=== $1 ($(date +%T))"; }
run_logged() {
    local log=$1; shift
    "$@" 2>&1 | tee -a "$OUT/$log"
    local rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] || { echo "FAILED ($rc): $*" | tee -a "$OUT/$log"; status=1; }
}

nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
make --no-print-directory SOL=1 "$1" -j8 > "$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
