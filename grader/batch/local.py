"""The local scheduler of a batch: this machine's CPUs and GPUs.

With a GPU, submissions are built side by side on the CPUs (--jobs at a time) and run one at
a time on each GPU, so no two submissions share a GPU while they are timed. Under the CPU
emulator there is nothing to time: --jobs submissions are graded side by side.

Each submission is graded in its own process (python3 -m grader batch-task ... --student S), with
its log in logs/<student>.log, so a submission that brings its grading down, or hangs it past
every limit, costs only its own record.
"""

from __future__ import annotations

import os
import queue
import socket
import subprocess
import sys
import threading
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path

from grader.batch import (NOT_GRADED, Plan, Progress, Submission, has_outcome, make_record,
                          read_record, write_record)
from grader.run import kill_group
from grader.paths import KIT_ROOT

TASK_COMMAND = [sys.executable, "-m", "grader", "batch-task"]


def _last_line(path: Path) -> str:
    try:
        lines = [line.strip() for line in path.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1] if lines else ""


class LocalRunner:
    def __init__(self, plan: Plan, plan_path: Path, *, jobs: int, progress: Progress,
                 task_command: list[str] | None = None, time_limit_s: float | None = None):
        self.plan, self.plan_path, self.jobs, self.progress = plan, plan_path, max(1, jobs), progress
        self.task_command = task_command or TASK_COMMAND
        self.time_limit_s = time_limit_s or plan.budget_s()
        self.out = Path(plan.out)
        self.logs = self.out / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.procs: set[subprocess.Popen] = set()
        self.running = 0
        self.done = self.failed = 0
        self.stopping = False

    # -- one process per step -------------------------------------------------------------------
    def _run(self, sub: Submission, extra: list[str], env: dict, log_mode: str) -> tuple[int | None, bool]:
        """Runs `batch-task` for one submission; returns (exit status, timed out)."""
        argv = [*self.task_command, str(self.plan_path), "--student", sub.student, *extra]
        with (self.logs / f"{sub.student}.log").open(log_mode) as log:
            with self.lock:
                if self.stopping:
                    return None, False
                proc = subprocess.Popen(argv, cwd=KIT_ROOT, env=env, stdin=subprocess.DEVNULL,
                                        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
                self.procs.add(proc)
            try:
                proc.wait(timeout=self.time_limit_s)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
            kill_group(proc.pid)
            proc.wait()
            with self.lock:
                self.procs.discard(proc)
        return proc.returncode, timed_out

    def build(self, sub: Submission) -> None:
        self._run(sub, ["--build-only"], dict(os.environ), "w")

    def grade(self, sub: Submission, gpus: queue.Queue | None, log_mode: str) -> dict:
        env = dict(os.environ)
        gpu = gpus.get() if gpus is not None else None
        if gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = gpu
        with self.lock:
            self.running += 1
        try:
            status, timed_out = self._run(sub, [], env, log_mode)
        finally:
            with self.lock:
                self.running -= 1
            if gpus is not None:
                gpus.put(gpu)
        record = read_record(self.out, sub.student)
        if not has_outcome(record, sub, self.plan) and status is not None:
            log = self.logs / f"{sub.student}.log"
            if timed_out:
                why = f"its grading ran past {self.time_limit_s:.0f} s and was killed"
            else:
                why = f"its grading process exited with status {status} without a result"
            last = _last_line(log)
            record = make_record(sub, self.plan.key, NOT_GRADED,
                                 f"{why} (log: {log}){': ' + last if last else ''}",
                                 where=f"local on {socket.gethostname()}", run=self.plan.run_id)
            write_record(self.out, record)
        return record or {}

    # -- the pipeline ---------------------------------------------------------------------------
    def run(self, gpus: list[str] | None) -> None:
        """gpus: the GPU ids to run on, one submission at a time each; None under emulation."""
        subs = self.plan.submissions()
        total_workers = len(gpus) if gpus else self.jobs
        gpu_queue: queue.Queue | None = None
        if gpus:
            gpu_queue = queue.Queue()
            for gpu in gpus:
                gpu_queue.put(gpu)
        builders = ThreadPoolExecutor(self.jobs, thread_name_prefix="build") if gpus else None
        graders = ThreadPoolExecutor(total_workers, thread_name_prefix="grade")
        building: dict[Future, Submission] = {}
        grading: dict[Future, Submission] = {}
        try:
            for sub in subs:
                if builders:
                    building[builders.submit(self.build, sub)] = sub
                else:
                    grading[graders.submit(self.grade, sub, None, "w")] = sub
            while building or grading:
                finished, _ = wait([*building, *grading], timeout=1.0, return_when=FIRST_COMPLETED)
                for future in finished:
                    if future in building:
                        sub = building.pop(future)
                        grading[graders.submit(self.grade, sub, gpu_queue, "a")] = sub
                    else:
                        sub = grading.pop(future)
                        self._finished(sub, future.result())
                self._show()
        except BaseException:
            self.stop()
            raise
        finally:
            for pool in (builders, graders):
                if pool:
                    pool.shutdown(wait=True, cancel_futures=True)

    def _finished(self, sub: Submission, record: dict) -> None:
        if record.get("status") == NOT_GRADED or not record:
            self.failed += 1
            self.progress.note(f"{sub.student}: not graded: {record.get('reason', 'stopped')}")
        else:
            self.done += 1
            self.progress.note(f"{sub.student}: {record.get('verdict') or record.get('status')} "
                               f"{record.get('score', 0):g}/{record.get('max_score') or 0:g}")

    def _show(self) -> None:
        total = len(self.plan.submissions())
        with self.lock:
            running = self.running
        queued = total - self.done - self.failed - running
        self.progress.update(self.done, self.failed, running, queued)

    def stop(self) -> None:
        """Kills every grading process (Ctrl-C): what was graded stays graded."""
        with self.lock:
            self.stopping = True
            procs = list(self.procs)
        for proc in procs:
            kill_group(proc.pid)

