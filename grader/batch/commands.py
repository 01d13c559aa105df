"""The `batch` and `batch-task` commands (grader/batch/__init__.py says what a batch keeps where).

    python3 -m grader batch <lab> <folder> [--scheduler local|slurm] [--jobs N] [--out DIR]
        [--emu] [--cases public|all] [--regrade] [--chunk K] [--sbatch-arg ARG ...] [--no-wait]
    python3 -m grader batch-task <plan.json> (--task K | --student ID) [--build-only]
        what each local worker and each Slurm array task runs; not for people
"""

from __future__ import annotations

import os
import socket
import time
from contextlib import contextmanager
from pathlib import Path

from grader import hidden, sandbox_user
from grader.batch import (NOT_GRADED, REFUSED, BatchError, Plan, Progress, build_only, chunks,
                          discover, grading_key, is_final, prepare_shared, read_record, run_task,
                          summary_rows, write_summary)
from grader.batch import class_report
from grader.batch.local import LocalRunner
from grader.gpu import gpu_ids
from grader.batch.slurm import BATCH_SCRIPT, MAX_ARRAY_TASKS, SlurmRunner, previous_job, submit
from grader.labs import CASE_SELECTIONS, PUBLIC, load_lab
from grader.sandbox import SandboxError, chosen_mode, sandbox_for
from grader.sandbox import add_arguments as sandbox_arguments
from grader.shared_files import exclusive_lock


@contextmanager
def only_batch_in(out: Path):
    """Refuses a second batch writing into the same folder at the same time."""
    try:
        with exclusive_lock(out / ".batch.lock", wait=False):
            yield
    except BlockingIOError:
        raise BatchError(f"another `grader batch` is writing into {out} right now; wait for it "
                         f"(or give this one another --out)") from None


def _wait_for_previous_job(out: Path, progress: Progress, max_poll_s: float) -> bool:
    """Waits for and collects the job an earlier batch into `out` left in the queue, if any."""
    previous = previous_job(out)
    if previous is None:
        return False
    job_id, plan_path = previous
    print(f"Slurm job {job_id}, from an earlier batch into {out}, is still in the queue: waiting "
          f"for it rather than submitting its work again", flush=True)
    runner = SlurmRunner(Plan.load(plan_path), progress=progress, max_poll_s=max_poll_s)
    runner.wait(job_id)
    runner.collect(job_id)
    return True


def cmd_batch(args, groups: tuple[str, ...]) -> int:
    lab = load_lab(args.lab)
    out = Path(args.out or f"{lab.id}-grades").resolve()
    folder = Path(args.folder)
    with only_batch_in(out):
        gpus = None
        if args.scheduler == "local" and not args.emu:
            gpus = gpu_ids()
            if not gpus:
                raise BatchError("no CUDA GPU on this machine: grade on a GPU node (--scheduler slurm "
                                 "from the login node), or under the CPU emulator with --emu")
        attached = False
        if args.scheduler == "slurm":
            attached = _wait_for_previous_job(out, Progress(0, every_s=args.progress_every), args.poll_max)
        elif previous_job(out):
            raise BatchError(f"a Slurm job from an earlier batch is still grading into {out}: "
                             f"wait for it (rerun with --scheduler slurm) or scancel it")
        submissions = discover(folder, lab, exclude=out)
        secret = hidden.load_secret(args.secret_file)
        key = grading_key(lab.id, args.emu, groups, secret, checks=not args.no_checks)
        usable = [s for s in submissions if not s.problem]
        final = [s for s in usable if is_final(read_record(out, s.student), s, key)]
        pending = usable if args.regrade else [s for s in usable if s not in final]
        if attached:  # this run collected that job; what it left ungraded waits for the next run
            pending = []
        print(f"{lab.id}: {len(submissions)} submissions in {folder}: {len(pending)} to grade"
              + ("" if args.regrade else f", {len(final)} already graded (same kit, testcases and files)")
              + (f", {len(submissions) - len(usable)} refused" if len(usable) < len(submissions) else "")
              + f"; results in {out}", flush=True)
        status = 0
        if pending:
            status = _grade(args, lab, groups, key, out, pending, gpus)
        if status == 0 and args.scheduler == "slurm" and args.no_wait and pending:
            return 0
        rows = summary_rows(submissions, out, key)
        csv_path, json_path = write_summary(rows, out, lab.id, key)
        counts = {s: sum(r["status"] == s for r in rows) for s in ("graded", NOT_GRADED, REFUSED)}
        for line in class_report.terminal_lines(class_report.summarize(rows)):
            print(line)
        print(f"{lab.id}: {counts['graded']} graded, {counts[NOT_GRADED]} not graded, "
              f"{counts[REFUSED]} refused; class summary: {csv_path}, {json_path} and "
              f"{csv_path.with_name('class.html')} (open it in a browser)")
        if counts[NOT_GRADED]:
            print("not graded (run the same command again to grade them):")
            for row in rows:
                if row["status"] == NOT_GRADED:
                    print(f"  {row['student']}: {row['reason']}")
        return status or (1 if counts[NOT_GRADED] else 0)


def _grade(args, lab, groups, key, out: Path, pending, gpus) -> int:
    chunk = max(1, args.chunk)
    if args.scheduler == "slurm" and -(-len(pending) // chunk) > MAX_ARRAY_TASKS:
        chunk = -(-len(pending) // MAX_ARRAY_TASKS)
        print(f"note: {len(pending)} submissions are more than Slurm's {MAX_ARRAY_TASKS} array tasks: "
              f"{chunk} submissions a task")
    run_id = time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}"
    plan = Plan(lab.id, args.emu, list(groups), key, str(out), run_id, chunks(pending, chunk),
                args.keep_builds, chosen_mode(args),
                str(args.secret_file.resolve()) if args.secret_file else None, not args.no_checks)
    plan_path = out / "plans" / f"{run_id}.json"
    plan.save(plan_path)
    progress = Progress(len(pending), every_s=args.progress_every)
    if args.scheduler == "local":
        try:  # refused here, once, rather than once per submission
            sandbox = sandbox_for(plan.sandbox, submission=True)
        except SandboxError as e:
            raise BatchError(f"{e}; nothing was graded") from None
        if sandbox.kind == "user":  # the class's submissions and records, closed to the sandbox users
            for folder in (Path(args.folder), out):
                sandbox_user.close_to_others(folder)
        print("building what every submission shares (the reference solution, the testcases) ...", flush=True)
        problem = prepare_shared(lab, args.emu, groups, plan.secret())
        if problem:
            raise BatchError(f"{problem}; nothing was graded")
        runner = LocalRunner(plan, plan_path, jobs=args.jobs or os.cpu_count() or 1, progress=progress)
        where = f"{len(gpus)} GPU(s), one submission each at a time" if gpus else "the CPU emulator"
        print(f"grading {len(pending)} submissions with {args.jobs or os.cpu_count()} jobs on {where}", flush=True)
        try:
            runner.run(gpus)
        except KeyboardInterrupt:
            progress.close(runner.done, runner.failed)
            print("interrupted: what was graded is kept; run the same command again to grade the rest")
            return 130
        progress.close(runner.done, runner.failed)
        return 0
    script = Path(args.script) if args.script else BATCH_SCRIPT
    job_id = submit(plan, plan_path, jobs=args.jobs or 16, script=script, extra=args.sbatch_arg or [])
    print(f"submitted Slurm job {job_id}: {len(plan.tasks)} array tasks, at most {args.jobs or 16} at once; "
          f"task logs in {out / 'logs'}", flush=True)
    if args.no_wait:
        print("not waiting (--no-wait): run the same command again to wait for the job and collect")
        return 0
    runner = SlurmRunner(plan, progress=progress, max_poll_s=args.poll_max)
    try:
        runner.wait(job_id)
    except KeyboardInterrupt:
        print(f"\nstopped waiting: job {job_id} keeps running; run the same command again to wait for "
              f"it and collect (scancel {job_id} stops it)")
        return 130
    done, failed = runner.collect(job_id)
    progress.close(done, failed)
    return 0


def cmd_batch_task(args) -> int:
    plan = Plan.load(Path(args.plan))
    if args.student is not None:
        subs = [s for s in plan.submissions() if s.student == args.student]
        if not subs:
            raise BatchError(f"the plan {args.plan} has no submission {args.student!r}")
    else:
        if not 0 <= args.task < len(plan.tasks):
            raise BatchError(f"the plan {args.plan} has tasks 0..{len(plan.tasks) - 1}, not {args.task}")
        subs = plan.tasks[args.task]
    if args.build_only:
        for sub in subs:
            build_only(plan, sub)
        return 0
    host = socket.gethostname()
    job, task = os.environ.get("SLURM_ARRAY_JOB_ID"), os.environ.get("SLURM_ARRAY_TASK_ID")
    where = f"slurm {job}_{task} on {host}" if job and task else f"local on {host}"
    return run_task(plan, subs, where=where)


def add_parsers(sub, fail) -> None:
    """Adds `batch` and `batch-task` to the grader's command line; `fail` prints an error."""
    def run_batch(args):
        try:
            return cmd_batch(args, CASE_SELECTIONS[args.cases])
        except BatchError as e:
            return fail(str(e))

    def run_task_command(args):
        try:
            return cmd_batch_task(args)
        except BatchError as e:
            return fail(str(e))

    batch = sub.add_parser("batch", help="grade a folder of submissions (a class), here or on Slurm")
    batch.add_argument("lab")
    batch.add_argument("folder", help="one entry per student: a folder or a .tar.gz, named by the student's id")
    batch.add_argument("--scheduler", choices=("local", "slurm"), default="local",
                       help="local: this machine; slurm: one array job (run on the login node)")
    batch.add_argument("--jobs", type=int, metavar="N",
                       help="local: builds (or emulated gradings) at once, default: the CPU count; "
                            "slurm: array tasks at once (%%N), default 16")
    batch.add_argument("--out", metavar="DIR", help="where results go (default: <lab>-grades)")
    where = batch.add_mutually_exclusive_group()
    where.add_argument("--emu", action="store_true", help="build and run under the CPU emulator (no GPU)")
    # check's word for the GPU works here too: a TA who writes `batch ... --gpu` gets the GPU
    # grading (the default), not a usage error that leaves no class.csv (issue 32).
    where.add_argument("--gpu", action="store_true", help="build and run on this node's GPUs (the default)")
    batch.add_argument("--cases", choices=sorted(CASE_SELECTIONS), default=PUBLIC)
    batch.add_argument("--regrade", action="store_true", help="grade again what is already graded")
    batch.add_argument("--chunk", type=int, default=1, metavar="K",
                       help="slurm: submissions per array task (default 1)")
    batch.add_argument("--script", metavar="FILE", help=f"slurm: the batch script (default {BATCH_SCRIPT})")
    batch.add_argument("--sbatch-arg", action="append", metavar="ARG",
                       help="slurm: an extra sbatch option, e.g. --sbatch-arg=--account=cs101 (repeatable)")
    batch.add_argument("--no-wait", action="store_true",
                       help="slurm: submit and return; the same command run again waits and collects")
    batch.add_argument("--poll-max", type=float, default=30.0, metavar="S",
                       help="slurm: the longest wait between two looks at the queue (default 30 s)")
    batch.add_argument("--progress-every", type=float, default=30.0, metavar="S",
                       help="when the output is not a terminal: at most one progress line every S s")
    batch.add_argument("--keep-builds", action="store_true", help="keep each submission's build folder")
    batch.add_argument("--no-checks", action="store_true",
                       help="as grader check --no-checks: no sanitizers, race detector or random-order pass")
    sandbox_arguments(batch)
    batch.add_argument("--secret-file", type=Path, metavar="FILE",
                       help="the instructor's secret: adds the hidden cases (or LABKIT_SECRET_FILE, "
                            "LABKIT_SECRET); on Slurm the file must be readable on the nodes")
    batch.set_defaults(func=run_batch)

    task = sub.add_parser("batch-task", help="(internal) grade one task of a batch plan")
    task.add_argument("plan")
    which = task.add_mutually_exclusive_group(required=True)
    which.add_argument("--task", type=int)
    which.add_argument("--student")
    task.add_argument("--build-only", action="store_true")
    task.set_defaults(func=run_task_command)
