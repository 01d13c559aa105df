"""The grader's command line: a thin layer over the modules that do the work.

    python3 -m grader check <lab> [--solution | --submission PATH] [--emu] [--cases public|all]
    python3 -m grader bench <lab>
    python3 -m grader submit <lab> [--from FOLDER]
    python3 -m grader unpack <tarball> <folder>
    python3 -m grader cases <lab> [--cases all]
    python3 -m grader secret                 (a fresh secret for hidden testcases)
    python3 -m grader budget <lab> [--gpus N] (the most one grading may take)
    python3 -m grader batch <lab> <folder> [--scheduler local|slurm] [--jobs N]   (a whole class)
    python3 -m grader mutants <lab> [--gpu] [--only NAME...]   (the kill rate of the lab's cases)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from grader import exit_status, report as reports
from grader.batch.commands import add_parsers as add_batch_parsers
from grader.budget import grading_budget
from grader.cases import prepare, sha256_of
from grader.grade import Grader
from grader.build import build_dir_for, build_lab
from grader.gpu import has_gpu
from grader.labs import CASE_SELECTIONS, PUBLIC, ConfigError, load_lab
from grader.mutants import add_parser as add_mutants_parser
from grader.paths import SOLUTIONS_DIR, STARTER_DIR
from grader.hidden import new_secret
from grader.sandbox import SandboxError, chosen_mode
from grader.sandbox import add_arguments as sandbox_arguments
from grader.intake import Source, SubmissionError, source_for, unpack
from grader.submit import package
from grader.verdict import IE


def _fail(message: str, status: int = exit_status.CANNOT_START) -> int:
    print(f"grader: error: {message}", file=sys.stderr)
    return status


def no_gpu_message(lab: str) -> str:
    return (f"no CUDA GPU found on this machine (nvidia-smi lists none). Run on a GPU node, or use "
            f"the CPU emulator: make check LAB={lab} EMU=1")


def emulate_without_gpu(args) -> bool:
    """--emu, or no GPU here and no --gpu: then the emulator, said in one line."""
    if not args.emu and not args.gpu and not has_gpu():
        print("note: no CUDA GPU found: using the CPU emulator (--emu); --gpu forces the GPU", file=sys.stderr)
        return True
    return args.emu


class CheckProgress:
    """The grader's progress during `check`, so that the table at the end is the one place each
    verdict is printed: the grader's log lines as they come (log), and for each graded case
    (result, a CaseResult) "  ragged: graded": in a log a line, on a terminal a line rewritten in
    place and cleared before the table."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stdout
        self.tty = self.stream.isatty()
        self.pending = False

    def log(self, line: str) -> None:
        self.clear()
        print(line, file=self.stream)
        self.stream.flush()

    def result(self, result) -> None:
        text = f"  {result.case}: graded"
        if self.tty:
            self.stream.write("\r\033[K" + text.strip()[:100])
            self.pending = True
        else:
            print(text, file=self.stream)
        self.stream.flush()

    def clear(self) -> None:
        if self.pending:
            self.stream.write("\r\033[K")
            self.pending = False


def cmd_check(args) -> int:
    args.emu = emulate_without_gpu(args)
    if args.sanitize and args.emu:
        return _fail("--sanitize runs NVIDIA's compute-sanitizer on a GPU; under --emu use --asan")
    lab = load_lab(args.lab)
    if not args.emu and not has_gpu():
        return _fail(no_gpu_message(lab.id))
    with source_for(args, lab) as source:
        progress = CheckProgress()
        grader = Grader(lab, source, emu=args.emu, asan=args.asan, groups=CASE_SELECTIONS[args.cases],
                        keep_outputs=args.keep_outputs, log=(lambda *_: None) if args.quiet else progress.log,
                        on_result=(lambda _: None) if args.quiet else progress.result,
                        sandbox=chosen_mode(args), secret_file=args.secret_file,
                        sanitize=False if args.no_sanitize else (True if args.sanitize else None),
                        checks=not args.no_checks)
        report = grader.grade()
        progress.clear()
        print(reports.table(report))
        reports.write_reports(report, json_path=args.json, gradescope_path=args.gradescope,
                              junit_path=args.junit)
    if any(r.verdict == IE for r in report.results):
        print(f"grader: error: {sum(r.verdict == IE for r in report.results)} case(s) not graded: the grader "
              f"failed, not the student (the reasons say what to fix); grade again once fixed", file=sys.stderr)
        return exit_status.NOT_ALL_GRADED
    if args.require_full and report.score < report.max_score:
        return exit_status.POINTS_MISSING
    return exit_status.GRADED


def cmd_bench(args) -> int:
    lab = load_lab(args.lab)
    if not lab.bench:
        return _fail(f"lab {lab.id} has no [bench] runs in its lab.toml")
    args.emu = emulate_without_gpu(args)
    if not args.emu and not has_gpu():
        return _fail(no_gpu_message(lab.id).replace("make check", "make bench"))
    if args.record and args.emu:
        return _fail("nothing to record: the CPU emulator's figures say nothing about a GPU")
    runs = lab.bench
    if args.emu:
        # The GPU's sizes take hours on a CPU: say so before building anything, and run the
        # emulator's sizes, or nothing where the lab has none.
        if not lab.emu_bench:
            return _fail(f"make bench LAB={lab.id} measures a GPU at sizes that take hours under the CPU emulator, "
                         f"and lab {lab.id} has no emulator sizes ([bench] emu_runs in labs/{lab.id}/lab.toml): "
                         f"run it on a GPU node (jobs/, handouts/index.md)")
        runs = lab.emu_bench
        print(f"note: CPU emulation: the emulator's sizes (labs/{lab.id}/lab.toml [bench] emu_runs: seconds each), "
              f"not the GPU's (hours here); the figures say nothing about a GPU. On a GPU node: make bench LAB={lab.id}",
              flush=True)
    source = Source("solution", SOLUTIONS_DIR)
    if not (SOLUTIONS_DIR / lab.id).is_dir():  # the student edition: the student's own code
        print(f"note: solutions/{lab.id} is absent: benchmarking your own code (starter/{lab.id})")
        source = Source("starter", STARTER_DIR)
    build_dir = build_dir_for(source, args.emu, False)
    build = build_lab(lab, src_root=source.root, build_dir=build_dir, emu=args.emu, submission=source.submission)
    if not build.ok:
        print(build.log, file=sys.stderr)
        return _fail(f"{source.root.name}/{lab.id} did not build: {build.reason}")
    status = 0
    results = []  # with --record: (argv, the run's figures), from the JSON the harness writes
    with tempfile.TemporaryDirectory() as scratch:
        for index, run in enumerate(runs):
            argv = [str(build_dir / lab.id / run[0]), *run[1:]]
            print(f"$ {' '.join([lab.id + '/' + run[0], *run[1:]])}", flush=True)
            result = Path(scratch) / f"run{index}.json"
            env = {**os.environ, "LABKIT_RESULT": str(result)} if args.record else None
            status = subprocess.run(argv, env=env).returncode or status
            if args.record:
                results.append((list(run), json.loads(result.read_text()) if result.exists() else {}))
    if args.record:
        if status:
            return _fail("nothing recorded: a run failed")
        from authoring import quoted  # the instructor's tree only
        path, left_out = quoted.record(f"{lab.id}-bench", results, quoted.gpu_name(),
                                       f"make bench LAB={lab.id} RECORD=1")
        unquoted = f" (quoted nowhere, left out: {', '.join(left_out)})" if left_out else ""
        print(f"recorded {quoted.shown(path)}{unquoted}")
        for changed in quoted.rewrite():
            print(f"rewrote the quoted figures in {quoted.shown(changed)}")
    return status


def cmd_submit(args) -> int:
    lab = load_lab(args.lab)
    from_dir = Path(args.from_dir) if args.from_dir else STARTER_DIR / lab.id
    out = Path(args.out or f"{lab.id}-submission.tar.gz")
    for warning in package(lab, from_dir, out):
        print(f"warning: {warning}")
    print(f"wrote {out}: hand this file in")
    return 0


def cmd_unpack(args) -> int:
    unpack(Path(args.tarball), Path(args.dest), load_lab(args.lab) if args.lab else None)
    return 0


def cmd_secret(args) -> int:
    print(new_secret())
    return 0


def cmd_cases(args) -> int:
    """Makes (or checks) the lab's testcases and prints each file's SHA-256 for the manifest."""
    lab = load_lab(args.lab)
    for case in (c for c in lab.cases if c.group in CASE_SELECTIONS[args.cases]):
        ready = prepare(lab, case, check=not args.print_sha)
        input_sha = sha256_of(ready.input_path) if ready.input_path else "-"
        print(f"{case.name}: input_sha256 = {input_sha}  expected_sha256 = {sha256_of(ready.expected_path)}")
    return 0


def cmd_budget(args) -> int:
    """The most one grading may take (grader/budget.py): what the batch, Slurm and the LMS use."""
    lab = load_lab(args.lab)
    cases = [c for c in lab.cases if c.group in CASE_SELECTIONS[args.cases]]
    emu = args.emu or not args.gpus
    budget = grading_budget(lab, cases, emu=emu, gpus=0 if emu else args.gpus)
    print(budget.total_s if args.seconds else budget.describe())
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m grader", description="The CUDA lab kit's grader.")
    sub = p.add_subparsers(dest="command", required=True)

    check = sub.add_parser("check", help="build and grade one lab")
    check.add_argument("lab")
    which = check.add_mutually_exclusive_group()
    which.add_argument("--solution", action="store_true", help="grade the reference solution")
    which.add_argument("--submission", metavar="PATH", help="a submission folder or .tar.gz")
    check.add_argument("--emu", action="store_true", help="build and run under the CPU emulator "
                       "(the default where no GPU is found)")
    check.add_argument("--gpu", action="store_true", help="the GPU build even where no GPU is found")
    check.add_argument("--asan", action="store_true", help="with --emu: AddressSanitizer on")
    check.add_argument("--cases", choices=sorted(CASE_SELECTIONS), default=PUBLIC)
    check.add_argument("--json", type=Path, metavar="FILE", help="write the report as JSON")
    check.add_argument("--gradescope", type=Path, metavar="FILE", help="write Gradescope's results.json")
    check.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    check.add_argument("--keep-outputs", action="store_true", help="keep each case's output file")
    check.add_argument("--require-full", action="store_true", help="exit 1 unless every point is earned")
    check.add_argument("--quiet", action="store_true", help="print only the final table")
    sandbox_arguments(check)
    check.add_argument("--secret-file", type=Path, metavar="FILE",
                       help="the instructor's secret: adds the hidden cases (or LABKIT_SECRET_FILE, LABKIT_SECRET)")
    check.add_argument("--sanitize", action="store_true",
                       help="run compute-sanitizer (memcheck; racecheck and synccheck where lab.toml asks) on "
                            "the lab's [sanitize] case: on by default on a GPU")
    check.add_argument("--no-sanitize", action="store_true", help="on a GPU: skip compute-sanitizer")
    check.add_argument("--no-checks", action="store_true",
                       help="under --emu: no AddressSanitizer, race detector or random-order pass; on a GPU: "
                            "no compute-sanitizer (faster, and blind to races and out-of-bounds accesses)")
    check.set_defaults(func=cmd_check)

    bench = sub.add_parser("bench", help="run the lab's benchmark on the reference solution")
    bench.add_argument("lab")
    bench.add_argument("--emu", action="store_true", help="the default where no GPU is found")
    bench.add_argument("--gpu", action="store_true", help="the GPU build even where no GPU is found")
    bench.add_argument("--record", action="store_true", help="write the figures to handouts/figures/<lab>-bench.toml "
                       "(those some marker quotes) and rewrite every quoted copy (authoring/quoted.py)")
    bench.set_defaults(func=cmd_bench)

    submit = sub.add_parser("submit", help="package a submission tarball")
    submit.add_argument("lab")
    submit.add_argument("--from", dest="from_dir", metavar="FOLDER", help="default: starter/<lab>")
    submit.add_argument("--out", metavar="FILE", help="default: <lab>-submission.tar.gz")
    submit.set_defaults(func=cmd_submit)

    unpack_p = sub.add_parser("unpack", help="check and unpack a submission tarball")
    unpack_p.add_argument("tarball")
    unpack_p.add_argument("dest")
    unpack_p.add_argument("--lab", help="check the files against this lab's (default: the tarball's folder)")
    unpack_p.set_defaults(func=cmd_unpack)

    cases = sub.add_parser("cases", help="make the lab's testcases and print their SHA-256")
    cases.add_argument("lab")
    cases.add_argument("--cases", choices=sorted(CASE_SELECTIONS), default="all")
    cases.add_argument("--print-sha", action="store_true", help="don't check against the manifest")
    cases.set_defaults(func=cmd_cases)

    secret = sub.add_parser("secret", help="print a fresh secret for hidden testcases (keep it out of the kit)")
    secret.set_defaults(func=cmd_secret)

    budget = sub.add_parser("budget", help="the most one grading of the lab may take, from its run plans")
    budget.add_argument("lab")
    budget.add_argument("--emu", action="store_true", help="under the CPU emulator (the default without --gpus)")
    budget.add_argument("--gpus", type=int, default=0, metavar="N", help="on a GPU node with N GPUs")
    budget.add_argument("--cases", choices=sorted(CASE_SELECTIONS), default=PUBLIC)
    budget.add_argument("--seconds", action="store_true", help="print the total alone, in seconds")
    budget.set_defaults(func=cmd_budget)

    add_batch_parsers(sub, _fail)
    add_mutants_parser(sub, _fail)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except SubmissionError as e:
        return _fail(str(e), exit_status.REFUSED)
    except (ConfigError, SandboxError) as e:
        return _fail(str(e))
