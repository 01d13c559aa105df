"""The Slurm scheduler of a batch: one array job, a task per submission (or per --chunk).

    sbatch --array=0-<tasks-1>%<jobs> ... jobs/slurm/grade-batch.sbatch <plan.json>

Each task runs `python3 -m grader batch-task <plan> --task $SLURM_ARRAY_TASK_ID` on a node and
writes one record per submission into the results folder, which must be on a filesystem the
nodes share with this machine (the kit's own folder usually is). This side waits, polling
squeue with a growing interval, shows the counts, and finally gives every submission a task
left without a record the reason Slurm has for that task (cancelled, timed out, failed...).

The job's id is kept in <out>/slurm-job.json: a batch started again while that job is still in
the queue waits for it instead of submitting the same work twice.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

from grader.batch import (NOT_GRADED, BatchError, Plan, Progress, has_outcome, make_record,
                          read_record, write_record)
from grader.paths import KIT_ROOT
from grader.shared_files import write_atomically

BATCH_SCRIPT = KIT_ROOT / "jobs" / "slurm" / "grade-batch.sbatch"
MAX_ARRAY_TASKS = 1000  # Slurm's default MaxArraySize is 1001 (indices 0..1000)
ACTIVE = {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED",
          "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED",
          "RESV_DEL_HOLD"}
COMMAND_TIMEOUT_S = 120
# What to tell the TA for each way a task can end without grading its submissions.
ADVICE = {
    "CANCELLED": "it was cancelled (scancel) before it graded this submission",
    "TIMEOUT": "it ran past its wall time and was killed: raise --time in the batch script "
               "(or --sbatch-arg=--time=...), or grade fewer submissions per task (--chunk)",
    "OUT_OF_MEMORY": "it ran out of memory: raise --mem in the batch script (or --sbatch-arg=--mem=...)",
    "NODE_FAIL": "its node failed",
    "BOOT_FAIL": "its node failed to boot",
    "PREEMPTED": "it was preempted by a higher-priority job",
    "DEADLINE": "it reached its deadline",
    "FAILED": "it failed",
    "COMPLETED": "it ended without a result for this submission",
}
# The line slurmstepd writes into a task's output when it kills the task.
STEPD_LINE = re.compile(r"\*\*\* JOB \S+ ON \S+ CANCELLED AT \S+( DUE TO (?P<why>[A-Z ]+))? \*\*\*")
STEPD_WHY = {"TIME LIMIT": "TIMEOUT", "PREEMPTION": "PREEMPTED", "NODE FAILURE": "NODE_FAIL"}


def _command(argv: list[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
    except FileNotFoundError:
        raise BatchError(f"{argv[0]} not found: run the batch on the cluster's login node (where "
                         f"sbatch works), or grade here with --scheduler local") from None
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, 1, "", f"{argv[0]} gave no answer in {COMMAND_TIMEOUT_S} s")


def log_path(plan: Plan, job_id: str, task: int) -> Path:
    return Path(plan.out) / "logs" / f"slurm-{job_id}_{task}.out"


def sbatch_argv(plan: Plan, plan_path: Path, *, jobs: int, script: Path, extra: list[str]) -> list[str]:
    argv = ["sbatch", "--parsable", f"--array=0-{len(plan.tasks) - 1}%{max(1, jobs)}",
            f"--job-name=grade-{plan.lab}", f"--output={Path(plan.out) / 'logs' / 'slurm-%A_%a.out'}",
            f"--chdir={KIT_ROOT}"]
    if plan.emu:
        argv.append("--gres=none")  # the script asks for a GPU; the emulator needs none
    if not any(arg.startswith(("--time", "-t")) for arg in extra):
        # Each task grades its submissions one after the other: the budget of each (grader/budget.py).
        per_task = max(len(task) for task in plan.tasks) * plan.budget_s()
        hours, seconds = divmod(per_task, 3600)
        argv.append(f"--time={hours:02d}:{seconds // 60:02d}:{seconds % 60:02d}")
    return [*argv, *extra, str(script), str(plan_path)]


def submit(plan: Plan, plan_path: Path, *, jobs: int, script: Path, extra: list[str]) -> str:
    if not script.exists():
        raise BatchError(f"the batch script {script} is missing")
    (Path(plan.out) / "logs").mkdir(parents=True, exist_ok=True)
    argv = sbatch_argv(plan, plan_path, jobs=jobs, script=script, extra=extra)
    proc = _command(argv)
    job_id = proc.stdout.strip().split(";")[0]
    if proc.returncode != 0 or not job_id.isdigit():
        raise BatchError(f"sbatch refused the job: {(proc.stderr or proc.stdout).strip()}\n"
                         f"  the command was: {' '.join(argv)}")
    write_atomically(Path(plan.out) / "slurm-job.json", json.dumps(
        {"job_id": job_id, "plan": str(plan_path), "sbatch": argv,
         "submitted_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, indent=1) + "\n")
    return job_id


def queue_states(job_id: str) -> dict[int, tuple[str, str]] | None:
    """Each array task's (state, reason) as squeue knows it, finished tasks included while
    slurmctld remembers them (MinJobAge); {} when it knows the job no more; None when squeue
    did not answer (slurmctld busy): ask again later."""
    proc = _command(["squeue", "-h", "-r", "--states=all", "-j", job_id, "-o", "%K|%T|%r"])
    if proc.returncode != 0:
        return {} if "Invalid job id" in proc.stderr else None
    states = {}
    for line in proc.stdout.splitlines():
        parts = line.strip().split("|")
        if len(parts) == 3 and parts[0].isdigit():
            states[int(parts[0])] = (parts[1], parts[2])
    return states


def accounting_states(job_id: str) -> dict[int, tuple[str, str]]:
    """Each task's final state from Slurm's accounting (sacct), where the cluster keeps it."""
    proc = _command(["sacct", "-n", "-P", "-X", "-j", job_id, "--format=JobID,State,ExitCode"])
    if proc.returncode != 0:
        return {}
    states = {}
    for line in proc.stdout.splitlines():
        parts = line.strip().split("|")
        match = re.fullmatch(rf"{job_id}_(\d+)", parts[0]) if parts else None
        if match and len(parts) >= 3:
            states[int(match.group(1))] = (parts[1], f"exit code {parts[2]}")
    return states


def _state_from_log(log: Path) -> tuple[str, str] | None:
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return None
    match = STEPD_LINE.search(text)
    if match:
        return STEPD_WHY.get((match.group("why") or "").strip(), "CANCELLED"), "from the task's log"
    return None


def explain(job_id: str, task: int, state: str, detail: str, log: Path) -> str:
    """The reason a submission of this task was not graded, in Slurm's words and what to do."""
    base = state.split()[0] if state else "UNKNOWN"
    advice = ADVICE.get(base, "it ended without a result for this submission")
    last = ""
    if base in ("FAILED", "COMPLETED", "UNKNOWN"):
        try:
            lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
            last = lines[-1] if lines else ""
        except OSError:
            pass
    where = f"Slurm task {job_id}_{task}: {state or 'state unknown'}"
    if detail and detail not in ("None", "") and detail.lower() not in state.lower():
        where += f" ({detail})"
    return f"{where}: {advice}; its log: {log}" + (f": {last}" if last else "")


class SlurmRunner:
    def __init__(self, plan: Plan, *, progress: Progress, max_poll_s: float = 30.0):
        self.plan, self.progress, self.max_poll_s = plan, progress, max_poll_s
        self.out = Path(plan.out)
        self.seen: dict[int, tuple[str, str]] = {}  # the last state squeue gave each task

    def counts(self) -> tuple[int, int, int, int]:
        done = failed = running = queued = 0
        for index, task in enumerate(self.plan.tasks):
            state = self.seen.get(index, ("PENDING", ""))[0]
            for sub in task:
                record = read_record(self.out, sub.student)
                if has_outcome(record, sub, self.plan):
                    failed += record.get("status") == NOT_GRADED
                    done += record.get("status") != NOT_GRADED
                elif state == "RUNNING":
                    running += 1
                elif state in ACTIVE:
                    queued += 1
                else:
                    failed += 1
        return done, failed, running, queued

    def wait(self, job_id: str) -> None:
        """Polls squeue until no task of the job is pending or running."""
        interval, last = 2.0, None
        while True:
            states = queue_states(job_id)
            if states is not None:
                self.seen.update(states)
                counts = self.counts()
                self.progress.update(*counts, force=last is None)
                if counts != last:
                    interval = min(interval, 5.0)
                last = counts
                if not any(state in ACTIVE for state, _ in states.values()):
                    return
            time.sleep(interval)
            interval = min(self.max_poll_s, interval * 1.5)

    def collect(self, job_id: str) -> tuple[int, int]:
        """Gives every submission without a record from this run the reason its task has."""
        final = accounting_states(job_id)
        latest = queue_states(job_id) or {}
        done = failed = 0
        for index, task in enumerate(self.plan.tasks):
            log = log_path(self.plan, job_id, index)
            state = (final.get(index) or latest.get(index) or self.seen.get(index)
                     or _state_from_log(log) or ("", ""))
            for sub in task:
                record = read_record(self.out, sub.student)
                if not has_outcome(record, sub, self.plan):
                    record = make_record(sub, self.plan.key, NOT_GRADED,
                                         explain(job_id, index, *state, log),
                                         where=f"slurm {job_id}_{index}", run=self.plan.run_id)
                    write_record(self.out, record)
                if record["status"] == NOT_GRADED:
                    failed += 1
                    self.progress.note(f"{sub.student}: not graded: {record['reason']}")
                else:
                    done += 1
        return done, failed


def previous_job(out: Path) -> tuple[str, Path] | None:
    """The job an earlier batch into `out` submitted, if it is still in the queue."""
    try:
        saved = json.loads((out / "slurm-job.json").read_text())
        job_id, plan_path = str(saved["job_id"]), Path(saved["plan"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        states = queue_states(job_id)
    except BatchError:  # no Slurm here: that job cannot be in this machine's queue
        return None
    if states and any(state in ACTIVE for state, _ in states.values()) and plan_path.exists():
        return job_id, plan_path
    return None
