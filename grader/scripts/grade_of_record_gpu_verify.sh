#!/usr/bin/env bash
# GPU verification of the grade of record (issue 32) through the one run model (issue 33), from
# the kit's root on a GPU node as it comes (as root; a non-root user is made for the second half):
#   bash grader/scripts/grade_of_record_gpu_verify.sh [part ...]
# parts: refs (the references keep full marks with the GPU evidence on), corpus (the evidence
# corpus: programs that know they are emulated, timing exploits), students (the work corpus's
# faithful and unfaithful submissions), batch (a class with a crafted compile error writes
# class.csv), bench (what the evidence costs a class: the batch with it off, then on), user (the
# evidence corpus and a reference again as an ordinary user: the Landlock kind), multi (apsp's
# multigpu on this node's GPUs: run on a node of 2), user-students (every lab's work corpus as an
# ordinary user). Default: refs corpus students batch bench user.
# Logs go to $OUT (default build/grade-of-record).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/grade-of-record}
mkdir -p "$OUT"
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(refs corpus students batch bench user)
stage() { echo; echo "=== $1 ($(date +%T))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
echo "uid $(id -u), $(nproc) cores"

# The TA's own copy of the kit (no build/), as a TA without root checks it out: root's gradings
# beside theirs keep their own. Sets user and kit. Parts of one round side by side (gpu_round.sh's
# ROUND_ID) share one copy, made by the first of them.
user_kit() {
    user=labkit-ta
    kit=/home/$user/kit
    exec {lock}>/tmp/labkit-ta-kit.lock && flock "$lock"
    id -u "$user" >/dev/null 2>&1 || useradd -m -s /bin/bash "$user" || exit 1
    if [ -z "${ROUND_ID:-}" ] || [ "$(cat "$kit.round" 2>/dev/null)" != "$ROUND_ID" ]; then
        rm -rf "$kit" && mkdir -p "$kit" && tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C "$kit"
        chown -R "$user" "$kit"
        echo "${ROUND_ID:-}" > "$kit.round"
    fi
    flock -u "$lock"
}

for part in "${parts[@]}"; do
case $part in
refs)
    for lab in increment matmul fw bfs; do
        stage "$lab: the reference, GPU evidence on"
        python3 -m grader check "$lab" --solution --gpu --no-sanitize --quiet --json "$OUT/ref-$lab.json" 2>&1 | tail -6
        python3 - "$OUT/ref-$lab.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
print(f"score {report['score']:g}/{report['max_score']:g}")
for note in report.get("notes", []):
    if "evidence" in note or "record" in note or "counters" in note:
        print("note:", note)
PY
    done ;;
corpus)
    stage "the evidence corpus on the GPU (as $(id -un))"
    python3 tests/hostile/evidence/evidence_corpus.py --gpu 2>&1 | tee "$OUT/evidence-corpus.log" ;;
students)
    stage "the students' work corpus on the GPU: increment and matmul"
    python3 tests/students/grade_all.py --gpu --lab increment 2>&1 | tail -12
    python3 tests/students/grade_all.py --gpu --lab matmul 2>&1 | tail -12 ;;
batch)
    # The hostile entries that attack a class's grading (its report, its folder, its disk) beside
    # the reference: every student gets a row, and the reference full marks.
    stage "a class on the GPU: the reference, a crafted compile error and the hostile corpus's class attacks"
    class=$(mktemp -d /tmp/labkit-class.XXXX)
    mkdir -p "$class/alice/increment"
    cp solutions/increment/*.c "$class/alice/increment/"
    attacks=(crafted_ce report_injection chmod_workdir huge_file stdout_flood output_symlink forged_origin)
    for attack in "${attacks[@]}"; do
        mkdir -p "$class/$attack/increment" && cp tests/hostile/$attack/increment.c "$class/$attack/increment/"
    done
    python3 -m grader batch increment "$class" --gpu --out "$OUT/class" 2>&1 | tail -8
    if [ -f "$OUT/class/class.csv" ]; then
        cat "$OUT/class/class.csv"
        rows=$(($(wc -l < "$OUT/class/class.csv") - 1))
        echo "class.csv: $rows rows for $((${#attacks[@]} + 1)) students"
    else
        echo "NO class.csv"; ls "$OUT/class" "$OUT/class/logs"; tail -30 "$OUT/class/logs/"*.log
    fi
    rm -rf "$class" ;;
bench)
    stage "what the evidence costs a class on the GPU (increment, 4 submissions, one at a time)"
    LABKIT_EVIDENCE=off bash grader/scripts/bench_batch.sh increment 4 1 --gpu
    bash grader/scripts/bench_batch.sh increment 4 1 --gpu ;;
user)
    user_kit
    stage "the evidence corpus, increment's reference and its work corpus as $user (the Landlock kind)"
    su "$user" -c "cd $kit && python3 tests/hostile/evidence/evidence_corpus.py --gpu" 2>&1 | tee "$OUT/evidence-corpus-user.log"
    su "$user" -c "cd $kit && python3 -m grader check increment --submission solutions/increment --gpu --cases all" 2>&1 | tail -12
    su "$user" -c "cd $kit && python3 tests/students/grade_all.py --gpu --jobs 3 --lab increment" 2>&1 ;;
user-students)
    # The work corpus as a TA without root: every faithful submission keeps full marks there too.
    # STUDENT_JOBS gradings at a time (default 3); STUDENTS the submissions (all at once), or LABS
    # the labs (one after the other; default every lab's corpus).
    user_kit
    if [ -n "${STUDENTS:-}" ]; then
        stage "the work corpus's $(echo $STUDENTS | wc -w) submissions as $user (the Landlock kind)"
        su "$user" -c "cd $kit && python3 tests/students/grade_all.py --gpu --jobs ${STUDENT_JOBS:-3} $STUDENTS" 2>&1
    else
        for lab in ${LABS:-$(ls tests/students | grep -v '[._]')}; do
            stage "$lab's work corpus as $user (the Landlock kind)"
            su "$user" -c "cd $kit && python3 tests/students/grade_all.py --gpu --jobs ${STUDENT_JOBS:-3} --lab $lab" 2>&1
        done
    fi ;;
multi)
    stage "apsp on this node's $(nvidia-smi -L | wc -l) GPUs: the reference, and a multigpu program that uses device 0 only"
    python3 -m grader check apsp --solution --gpu --no-sanitize --quiet 2>&1 | tail -6
    python3 tests/hostile/evidence/evidence_corpus.py --gpu multigpu_one_device_on_gpu 2>&1 | tail -8
    python3 tests/students/grade_all.py --gpu --jobs 3 --lab apsp 2>&1 | tail -12 ;;
*)
    echo "unknown part $part"; exit 2 ;;
esac
done
