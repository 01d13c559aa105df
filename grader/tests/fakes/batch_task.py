"""A stand-in for `python3 -m grader batch-task PLAN --student S [--build-only]` in the local
scheduler's tests: it behaves as the student's name says, without building anything.

    ok-*      writes a graded record
    crash-*   prints a traceback line and exits 1 without a record
    hang-*    sleeps until killed
    meet-*    waits (up to 20 s) until every meet-* student has started: passes only when they
              are graded side by side
    gpu-*     holds its GPU (CUDA_VISIBLE_DEVICES) exclusively for a moment: fails if another
              grading holds the same GPU at once
"""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from grader.batch import GRADED, NOT_GRADED, Plan, make_record, write_record  # noqa: E402

plan = Plan.load(Path(sys.argv[1]))
student = sys.argv[sys.argv.index("--student") + 1]
sub = next(s for s in plan.submissions() if s.student == student)
out = Path(plan.out)
marks = out / "marks"
marks.mkdir(exist_ok=True)

if "--build-only" in sys.argv:
    (marks / f"built-{student}").write_text(str(time.time()))
    sys.exit(0)

status, reason = GRADED, ""
if student.startswith("crash"):
    print("Traceback (most recent call last): the grader fell over", flush=True)
    sys.exit(1)
elif student.startswith("hang"):
    time.sleep(3600)
elif student.startswith("meet"):
    (marks / f"started-{student}").write_text("")
    everyone = {s.student for s in plan.submissions() if s.student.startswith("meet")}
    deadline = time.time() + 20
    while {p.name.removeprefix("started-") for p in marks.glob("started-meet*")} != everyone:
        if time.time() > deadline:
            status, reason = NOT_GRADED, "graded alone: the others never started alongside"
            break
        time.sleep(0.05)
elif student.startswith("gpu"):
    gpu = os.environ.get("CUDA_VISIBLE_DEVICES", "none")
    if not (marks / f"built-{student}").exists():
        status, reason = NOT_GRADED, "graded before it was built"
    try:
        fd = os.open(marks / f"gpu-{gpu}.busy", os.O_CREAT | os.O_EXCL)
        time.sleep(0.3)
        os.close(fd)
        os.unlink(marks / f"gpu-{gpu}.busy")
    except FileExistsError:
        status, reason = NOT_GRADED, f"GPU {gpu} was shared"
    (marks / f"ran-{student}-on-{gpu}").write_text("")

record = make_record(sub, plan.key, status, reason, where="local on test", run=plan.run_id)
if status == GRADED:
    record.update(verdict="AC", score=1.0, max_score=1.0)
write_record(out, record)
