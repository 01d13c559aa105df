#!/usr/bin/env bash
# GPU check of `python3 -m grader batch` with the local scheduler on a real GPU (no emulator):
# four submissions of lab increment (the reference solution as a tarball from make submit, the
# untouched starter, one that does not compile, one with a wrong kernel), built side by side and
# run one at a time on each GPU; then a rerun that must grade nothing. Run from the kit's top
# folder on a GPU machine; OUT (default build/gpu-batch) receives the grades and the log.
#   bash tests/cluster/gpu_batch_verify.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/gpu-batch}
SUBS="$OUT/submissions"
rm -rf "$OUT" && mkdir -p "$SUBS"
python3 -m grader submit increment --from solutions/increment --out "$SUBS/ref.tar.gz"
mkdir -p "$SUBS/starter" "$SUBS/broken" "$SUBS/wrong"
cp -r starter/increment "$SUBS/starter/"
cp -r starter/increment "$SUBS/broken/" && echo "this is not C;" >> "$SUBS/broken/increment/increment.c"
cp -r solutions/increment "$SUBS/wrong/"
sed -i 's/v.x += 1.0f;/v.x += 2.0f;/' "$SUBS/wrong/increment/increment.c"
nvidia-smi -L
set +e
python3 -m grader batch increment "$SUBS" --out "$OUT/grades" 2>&1 | tee "$OUT/batch.log"
first=${PIPESTATUS[0]}
python3 -m grader batch increment "$SUBS" --out "$OUT/grades" 2>&1 | tee "$OUT/rerun.log"
second=${PIPESTATUS[0]}
set -e
column -s, -t < "$OUT/grades/class.csv" | cut -c1-160
echo "first run exit $first, rerun exit $second (expected 0 and 0)"
grep -q "0 to grade, 4 already graded" "$OUT/rerun.log" && echo "rerun graded nothing again: ok"
grep -h "timing\|SLOW\|slow" "$OUT"/grades/logs/*.log | head -n 8 || true
