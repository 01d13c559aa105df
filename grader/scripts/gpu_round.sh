#!/usr/bin/env bash
# A round of GPU verification in few device minutes: independent steps run side by side on the
# node's cores, in groups one after the other. From the kit's root on a GPU node:
#   bash grader/scripts/gpu_round.sh LOG_DIR STEP... [-- STEP...]...
# The steps of a group (between two "--") run side by side; the next group starts when all of
# them have ended. Steps that time something go in a group of their own; steps that would build
# the same reference for the first time go in different groups (refs-L first).
# Steps (each one log LOG_DIR/<step>.log; a summary line each at the end):
#   refs-L      lab L's reference on every public case and the hidden ones, GPU evidence on
#   students-L  the work corpus of lab L on the GPU (tests/students/grade_all.py --gpu --lab L)
#   user-students, user-students-L   every lab's work corpus, or lab L's, as an ordinary user
#               (STUDENT_JOBS=N gradings at a time in these and students-L; default 3)
#   corpus      the evidence corpus (programs that know they are emulated, timing exploits)
#   batch       a class with a crafted compile error writes class.csv
#   nbody spmv  the lab's own GPU verification (bench recorded for the handout, every case)
#   bench-L     lab L's benchmark recorded for its handout (make bench LAB=L RECORD=1; alone: it times)
#   bench       what the evidence costs a class (alone: it times)
#   user        the evidence corpus and a reference as an ordinary user (the Landlock kind)
#   kinds       the hostile, evidence and work corpora in each sandbox kind, then apsp (sandbox_kinds_gpu_verify.sh)
#   kinds-K     the same in sandbox kind K alone (user, landlock, bubblewrap), or apsp alone (kinds-apsp)
#   multi       apsp's multigpu on this node's GPUs (a node of 2 or more)
# ROUND_SECONDS=N: steps still running N s after the round began are stopped (their logs kept)
# and later ones not started, so that a lease's last minutes still bring the logs back. Where
# OUT is set (a device machine's folder of files to bring back), LOG_DIR's tarball goes there.
set -uo pipefail
self=$(realpath "$0")
cd "$(dirname "$0")/../.."

if [ "${1:-}" = --step ]; then  # one step, run by run_step below: --step NAME LOG_DIR
    name=$2 log=$3 secret=$ROUND_SECRET
    case $name in
    refs-*)     LABKIT_SECRET=$secret python3 -m grader check "${name#refs-}" --solution --gpu --cases all --no-sanitize --quiet \
                    --require-full --json "$log/$name.json" ;;
    students-*) python3 tests/students/grade_all.py --gpu --jobs "${STUDENT_JOBS:-3}" --lab "${name#students-}" ;;
    user-students)   bash grader/scripts/grade_of_record_gpu_verify.sh user-students ;;
    user-students-*) LABS="${name#user-students-}" bash grader/scripts/grade_of_record_gpu_verify.sh user-students ;;
    corpus)     bash grader/scripts/grade_of_record_gpu_verify.sh corpus ;;
    batch)      bash grader/scripts/grade_of_record_gpu_verify.sh batch ;;
    bench)      bash grader/scripts/grade_of_record_gpu_verify.sh bench ;;
    user)       bash grader/scripts/grade_of_record_gpu_verify.sh user ;;
    multi)      bash grader/scripts/grade_of_record_gpu_verify.sh multi ;;
    kinds)      bash grader/scripts/sandbox_kinds_gpu_verify.sh ;;
    kinds-*)    bash grader/scripts/sandbox_kinds_gpu_verify.sh "${name#kinds-}" ;;
    bench-*)    make --no-print-directory bench LAB="${name#bench-}" RECORD=1 ;;
    nbody|spmv) LABKIT_SECRET=$secret bash "labs/$name/scripts/gpu_verify.sh" "$log/$name" ;;
    *)          echo "unknown step $name"; false ;;
    esac
    exit
fi

log=$1
shift
mkdir -p "$log"
export PYTHONUNBUFFERED=1
# Hidden cases from a throwaway secret for the references (refs-L, nbody, spmv): every case a
# course grades is graded there.
ROUND_SECRET=$(python3 -m grader secret)
export ROUND_SECRET
ROUND_ID=$$-$(date +%s)  # the round's steps share what they set up once (the TA's copy of the kit)
export ROUND_ID
deadline=${ROUND_SECONDS:+$((SECONDS + ROUND_SECONDS))}
tarball=${OUT:+$OUT/$(basename "$log").tgz}

run_step() {  # run_step NAME: its command, logged, timed; the summary line in LOG/NAME.status
    local name=$1 start=$SECONDS status limit=()
    if [ -n "$deadline" ]; then
        if [ $((deadline - SECONDS)) -le 0 ]; then
            echo "$name: not started, the round's $ROUND_SECONDS s were spent" | tee "$log/$name.status"
            return
        fi
        limit=(timeout -k 10 $((deadline - SECONDS)))
    fi
    "${limit[@]}" bash "$self" --step "$name" "$log" > "$log/$name.log" 2>&1
    status=$?
    echo "$name: exit $status$([ $status = 124 ] && echo " (stopped at the round's end)"), $((SECONDS - start)) s" \
        | tee "$log/$name.status"
}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$log/device.txt"
export OUT=$log/grade-of-record  # grade_of_record_gpu_verify.sh's own logs
for step in "$@"; do
    if [ "$step" = "--" ]; then wait; else run_step "$step" & fi
done
wait
echo "== summary"
cat "$log"/*.status
[ -z "$tarball" ] || tar czf "$tarball" -C "$(dirname "$log")" "$(basename "$log")"
