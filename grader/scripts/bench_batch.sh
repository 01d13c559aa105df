#!/usr/bin/env bash
# The cost of grading a class, as a TA runs it: N submissions (copies of the reference solution,
# each with its own comment so that no two share a hash) graded by
#   python3 -m grader batch <lab> <folder> --emu --jobs J     (or --gpu on a GPU node)
# from the state of a term's second batch: the emulator's runtime, the testcases, the kit's
# harness and the reference's builds made by an untimed batch of one submission first, every
# submission's own builds and gradings cleared. Prints the wall time of the batch. A benchmark, not a test: it measures.
#   bash grader/scripts/bench_batch.sh [lab=increment] [N=20] [J=2] [--gpu] [grader batch options, e.g. --no-checks]
# On a GPU node, what the GPU evidence costs: the same with LABKIT_EVIDENCE=off in the environment.
set -euo pipefail
cd "$(dirname "$0")/../.."
lab=${1:-increment} count=${2:-20} jobs=${3:-2}
shift $(( $# < 3 ? $# : 3 ))
work=$(mktemp -d /tmp/labkit-bench-batch.XXXX)
trap 'rm -rf "$work"' EXIT
for i in $(seq -w 1 "$count"); do
    mkdir -p "$work/subs/student$i/$lab"
    for f in solutions/"$lab"/*.c; do
        { cat "$f"; echo "// student $i"; } > "$work/subs/student$i/$lab/$(basename "$f")"
    done
done
make -s EMU=1 build/emu/plain/libcudaemu.a >/dev/null
python3 -m grader cases "$lab" --cases public >/dev/null
where=--emu
if [ "${1:-}" = --gpu ]; then where=--gpu; shift; fi
# Untimed: whatever the kit builds once a term (its harness, the reference for timing and for the
# emulated run the GPU evidence is held against). Without it the first of two benches pays for it.
mkdir -p "$work/warm-up" && cp -r "$work/subs/student$(seq -w 1 "$count" | head -n1)" "$work/warm-up/"
python3 -m grader batch "$lab" "$work/warm-up" $where --jobs 1 --out "$work/warm-up-grades" "$@" >"$work/log" 2>&1 \
    || { tail -20 "$work/log"; exit 1; }
rm -rf build/batch build/grading build/emu-sub-* build/sub-*
start=$(date +%s.%N)
python3 -m grader batch "$lab" "$work/subs" $where --jobs "$jobs" --out "$work/grades" "$@" >"$work/log" 2>&1 \
    || { tail -20 "$work/log"; exit 1; }
end=$(date +%s.%N)
graded=$(python3 -c "import json,sys; c=json.load(open('$work/grades/class.json'))['counts']; print(c['graded'], 'of', c['total'], 'graded')")
printf 'batch %s: %d submissions, %s --jobs %d %s (evidence %s): %.1f s (%s) on %d cores, load %s\n' "$lab" "$count" "$where" "$jobs" "$*" "${LABKIT_EVIDENCE:-on}" \
    "$(python3 -c "print($end - $start)")" "$graded" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
