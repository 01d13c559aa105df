#!/usr/bin/env bash
# GPU verification of grading where bubblewrap cannot run (issue 24) and of the grader's own
# failures (issue 26), from the kit's root on a GPU machine as it comes (no bubblewrap, no
# Boost.Context, as root):
#   bash grader/scripts/sandbox_kinds_gpu_verify.sh [KIND... | apsp]   (default: every kind, then apsp)
# Prints which sandbox kinds run here; for each kind asked for that runs, the reference graded as
# a submission on the GPU (full marks), issue 24's two attacks in a PID namespace of their own (no
# marks), the hostile corpus, the evidence corpus (programs that know they are emulated) and
# increment's work corpus; then a submission refused where no kind runs. `apsp`: apsp's reference
# through the whole grader (the multigpu program on this node's GPUs and on more emulated
# devices), then the same with a library the kit links faked missing (not graded, never charged,
# exit status 3).
set -uo pipefail
cd "$(dirname "$0")/../.."

echo "== machine"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
uname -r; echo "uid $(id -u)"
python3 - <<'PY'
import grader.sandbox as s
for kind in s.KINDS:
    box = s._probe(kind)
    print(f"{kind}: {box.describe() if box.active else 'cannot run: ' + box.why_off}")
PY

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(user landlock bubblewrap apsp)
for kind in "${parts[@]}"; do
    [ "$kind" = apsp ] && continue
    python3 -c "import grader.sandbox as s, sys; sys.exit(not s._probe('$kind').active)" || continue
    echo "== $kind: the reference as a submission, every case, on the GPU"
    time LABKIT_SANDBOX=$kind python3 -m grader check increment --submission solutions/increment --cases all --gpu
    echo "== $kind: matmul's reference as a submission (its lab folder holds instructor-only notes)"
    LABKIT_SANDBOX=$kind python3 -m grader check matmul --submission solutions/matmul --gpu
    echo "== $kind: issue 24's two attacks on the GPU, in a PID namespace of their own"
    unshare --pid --fork --mount-proc python3 tests/hostile/corpus.py --gpu --sandbox "$kind" forge_results walk_expected | tail -4
    echo "== $kind: the hostile corpus on the GPU"
    python3 tests/hostile/corpus.py --gpu --sandbox "$kind" | grep -v "^ok "
    echo "== $kind: the evidence corpus on the GPU"
    LABKIT_SANDBOX=$kind python3 tests/hostile/evidence/evidence_corpus.py --gpu | grep -v "^ok "
    echo "== $kind: increment's work corpus on the GPU"
    LABKIT_SANDBOX=$kind python3 tests/students/grade_all.py --gpu --lab increment
done
[[ " ${parts[*]} " == *" apsp "* ]] || exit 0

echo "== no sandbox kind can run: a submission is refused"
LABKIT_SANDBOX=landlock LABKIT_LANDLOCK=off python3 -m grader check increment --submission solutions/increment --gpu
echo "exit status $?"

echo "== apsp's reference through the whole grader on this node"
time python3 -m grader check apsp --solution --gpu --quiet | tail -12
echo "exit status ${PIPESTATUS[0]}"
echo "== the same with a library the kit links faked missing"
MAKEFLAGS='EXTRA_EMU_LDLIBS=-lnot_installed_labkit' python3 -m grader check apsp --solution --gpu --quiet | tail -4
echo "exit status ${PIPESTATUS[0]}"
