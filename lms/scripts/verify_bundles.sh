#!/usr/bin/env bash
# Checks the Gradescope and PrairieLearn bundles of one lab on a bare Debian, as those graders
# run them. Slow (debootstrap, apt, three gradings each), so not part of `make test`:
#
#     sudo lms/scripts/verify_bundles.sh LAB          (needs root and the network)
#
# 1. debootstrap makes a minimal Debian bookworm root (standing in for Gradescope's Ubuntu
#    image; LMS_VERIFY_BASE=folder reuses one), with /proc, /sys and /dev mounted in.
# 2. Gradescope: the zip is unpacked into /autograder/source and its setup.sh runs there as
#    root; then for each submission (the reference solution, the unfinished starter, a hostile
#    one that forges results.json and hangs on its first run: tests/lms/submissions/
#    make_variants.py; VARIANTS="..." chooses) /autograder/submission is filled and
#    /autograder/run_autograder runs; each results.json is checked field by field (lms/spec.py).
# 3. PrairieLearn: the image's entrypoint is made as image/Dockerfile makes it, the question's
#    tests/ goes to /grade/tests, each submission to /grade/student, the entrypoint runs, and
#    /grade/results/results.json is checked the same way.
# Everything lands in build/lms-verify/<lab>/ (the results.json files and the logs).
set -euo pipefail
lab="${1:?usage: $0 LAB (one of the folders labs/*/ with a lab.toml)}"
kit="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$kit/build/lms-verify/$lab"
work="${LMS_VERIFY_WORK:-/tmp/lms-verify}"
base="${LMS_VERIFY_BASE:-$work/base}"
root="$work/root-$lab"
python="${PYTHON:-python3}"

die() { echo "verify_bundles: error: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (debootstrap and chroot need it): sudo $0 $lab"
command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"
[ -f "$kit/solutions/$lab/$lab.c" ] || die "no reference solution solutions/$lab/$lab.c in $kit: use the instructor edition"

mkdir -p "$work" "$out"
if [ ! -x "$base/bin/bash" ]; then
  echo "== debootstrap bookworm (minbase) into $base"
  debootstrap --variant=minbase bookworm "$base" http://deb.debian.org/debian > "$work/debootstrap.log" 2>&1 \
    || die "debootstrap failed: see $work/debootstrap.log"
fi

mounted=()
cleanup() {
  for ((i=${#mounted[@]}-1; i>=0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
fresh_root() {
  cleanup; mounted=()
  rm -rf "$root"
  cp -a "$base" "$root"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  for fs in proc sys dev; do
    mkdir -p "$root/$fs"
    case $fs in
      proc) mount -t proc proc "$root/proc" ;;
      sys) mount --rbind /sys "$root/sys" ;;
      dev) mount --rbind /dev "$root/dev" ;;
    esac
    mounted+=("$root/$fs")
  done
}

echo "== bundles"
(cd "$kit" && "$python" -m lms gradescope "$lab" && "$python" -m lms prairielearn "$lab")
variants="${VARIANTS:-solution unfinished hostile-hang}"
submission() {  # $1 variant, $2 folder
  rm -rf "$2" "$root/tmp/labkit-lms-hostile-hung"; mkdir -p "$2"
  "$python" "$kit/tests/lms/submissions/make_variants.py" "$lab" "$1" "$2"
}
# Grades one submission in the root as the LMS would, then checks its results.json field by field.
grade() {  # $1 format, $2 variant, $3 the grading command in the root, $4 its results.json (a path in the root)
  local name="$1-$2" results="$root$4" start=$SECONDS score
  chroot "$root" /bin/bash -c "$3" > "$out/$name.log" 2>&1
  score="$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["score"])' "$results")"
  echo "$1 $2: took $((SECONDS - start)) s; score $score" | tee -a "$out/summary.txt"
  cp "$results" "$out/$name.json"
  if grep -q forged "$results"; then die "$name: the hostile submission's forged results got into $results"; fi
  (cd "$kit" && "$python" -m lms.spec "$1" "$out/$name.json") | tee -a "$out/summary.txt"
}

echo "== Gradescope: setup.sh in a fresh Debian root"
fresh_root
mkdir -p "$root/autograder/source"
(cd "$root/autograder/source" && "$python" -m zipfile -e "$kit/build/gradescope/$lab-autograder.zip" .)
# zipfile does not keep modes: Gradescope's unzip does
chmod 755 "$root/autograder/source/setup.sh" "$root/autograder/source/run_autograder"
start=$SECONDS
chroot "$root" /bin/bash -c 'cd /autograder/source && bash ./setup.sh' > "$out/gradescope-setup.log" 2>&1 \
  || die "setup.sh failed in the chroot: see $out/gradescope-setup.log"
echo "setup.sh: ok in $((SECONDS - start)) s ($(tail -1 "$out/gradescope-setup.log"))" | tee "$out/summary.txt"
cp "$root/autograder/source/run_autograder" "$root/autograder/run_autograder"
for variant in $variants; do
  rm -rf "$root/autograder/results"; mkdir -p "$root/autograder/results"
  submission "$variant" "$root/autograder/submission"
  grade gradescope "$variant" 'cd /autograder && ./run_autograder' /autograder/results/results.json
done
grep -h -m1 -E "SANDBOX OFF|sandbox on" "$out"/gradescope-*.log | head -1 | sed 's/^/grader: /' | tee -a "$out/summary.txt"

echo "== PrairieLearn: the image's entrypoint, /grade"
question="$kit/build/prairielearn/$lab/questions/labkit-$lab"
entry_cmd="$(sed -n 's/^RUN \(printf .*\)$/\1/p' "$kit/build/prairielearn/$lab/image/Dockerfile")"
[ -n "$entry_cmd" ] || die "image/Dockerfile has no RUN printf line making the entrypoint"
chroot "$root" /bin/sh -c "$entry_cmd"
entrypoint="$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["externalGradingOptions"]["entrypoint"])' "$question/info.json")"
for variant in $variants; do
  rm -rf "$root/grade"; mkdir -p "$root/grade"
  cp -a "$question/tests" "$root/grade/tests"
  submission "$variant" "$root/grade/student"
  grade prairielearn "$variant" "cd /grade && $entrypoint" /grade/results/results.json
done
echo "== done: $out"
