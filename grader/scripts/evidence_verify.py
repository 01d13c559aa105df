"""Checks the GPU evidence (grader/evidence/) on real runs: the references and the evidence corpus
(tests/hostile/evidence, tests/hostile/other_stream) run under the tracer, their records held
against the emulated runs of the same argv, their timing against the record, and, where allowed,
ncu's sectors against the emulated profile. Run by grader/scripts/evidence_gpu_verify.sh.

    python3 grader/scripts/evidence_verify.py emulate --out DIR        any machine: emulated profiles
    python3 grader/scripts/evidence_verify.py gpu --emu DIR --out DIR [--user NAME] [--ncu]

`emulate` builds each run's program for the emulator and writes DIR/<run>.emu.json; `gpu` builds
for the GPU, runs each as this user (and as --user, through runuser, when given), and prints one
line a run with what the evidence says. It checks what RUNS says each run must show and exits 1
when one does not.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(KIT))

from grader.evidence.compare import compare_records  # noqa: E402
from grader.evidence.counters import (compare_traffic, counters_allowed, emulated_traffic, ncu_argv,  # noqa: E402
                                      parse_ncu_csv)
from grader.evidence.record import Record, from_emulator_profile, read_record  # noqa: E402
from grader.evidence.timing import timed_repetitions, timing_backed  # noqa: E402
from grader.evidence.tracer_build import build_tracer, tracer_environment  # noqa: E402

EVIDENCE = "tests/hostile/evidence"


@dataclass(frozen=True)
class Run:
    name: str
    lab: str
    source: str  # SRC_ROOT, from the kit's root
    args: tuple[str, ...]
    warmups: int  # the harness's untimed calls before the timed ones (matmul: 1)
    reps: int
    emulate: bool = True  # small enough for the emulator
    expect: str = "same"  # "same": record = emulated, timing backed; "differs": record differs;
    #                       "not backed": timing not backed; "counters differ"
    ncu: bool = False
    input: str | None = None  # a file of the kit the program reads: "{input}" in args names it
    timed: bool = True  # whether the record is held against the program's kernel_ms here

    def argv(self, program: Path, folder: Path, input_file: Path | None = None) -> list[str]:
        """The program's command line, its output in `folder`; its input the kit's file, or
        input_file (a copy of it)."""
        given = str(input_file or KIT / self.input) if self.input else ""
        return [str(program), *(a.replace("{input}", given) for a in self.args), "--out", str(folder / "out")]


RUNS = [
    Run("increment-ref", "increment", "solutions", ("--n", "100000", "--block", "256", "--reps", "5", "--seed", "1"), 0, 5),
    Run("matmul-tiled-n17", "matmul", "solutions",
        ("--n", "17", "--kernel", "tiled", "--ntx", "16", "--nty", "16", "--reps", "1", "--seed", "2"), 1, 1, ncu=True),
    Run("matmul-naive-n100", "matmul", "solutions",
        ("--n", "100", "--kernel", "naive", "--ntx", "16", "--nty", "16", "--reps", "3", "--seed", "3"), 1, 3, ncu=True),
    Run("matmul-tiled-n1024", "matmul", "solutions",
        ("--n", "1024", "--kernel", "tiled", "--ntx", "16", "--nty", "16", "--reps", "10", "--seed", "4"), 1, 10,
        emulate=False),
    Run("macro-matmul", "matmul", f"{EVIDENCE}/matmul/knows_emulated_by_macro",
        ("--n", "17", "--kernel", "tiled", "--ntx", "16", "--nty", "16", "--reps", "1", "--seed", "2"), 1, 1,
        expect="differs"),
    Run("noop-matmul", "matmul", f"{EVIDENCE}/matmul/right_kernel_no_work",
        ("--n", "17", "--kernel", "tiled", "--ntx", "16", "--nty", "16", "--reps", "1", "--seed", "2"), 1, 1,
        expect="differs", ncu=True),
    Run("warmup-matmul", "matmul", f"{EVIDENCE}/matmul/warmup_detected",
        ("--n", "1024", "--kernel", "tiled", "--ntx", "16", "--nty", "16", "--reps", "10", "--seed", "4"), 1, 10,
        emulate=False, expect="not backed"),
    Run("name-increment", "increment", f"{EVIDENCE}/increment/knows_emulated_by_name",
        ("--n", "1024", "--block", "64", "--reps", "1", "--seed", "2"), 0, 1, expect="differs"),
    Run("timing-increment", "increment", f"{EVIDENCE}/increment/knows_emulated_by_timing",
        ("--n", "1024", "--block", "64", "--reps", "1", "--seed", "2"), 0, 1, expect="differs"),
    Run("cached-increment", "increment", f"{EVIDENCE}/increment/cached_between_calls",
        ("--n", "1000000", "--block", "256", "--reps", "5", "--seed", "1"), 0, 5, emulate=False,
        expect="not backed"),
    Run("thread-increment", "increment", f"{EVIDENCE}/increment/host_thread",
        ("--n", "1000000", "--block", "256", "--reps", "5", "--seed", "1"), 0, 5, emulate=False,
        expect="not backed"),
    Run("otherstream-increment", "increment", "tests/hostile/other_stream",
        ("--n", "10000", "--block", "256", "--reps", "2", "--seed", "1"), 0, 2, emulate=False, expect="not backed"),
    # A faithful submission whose float4 member reads nvcc merges into one 16-byte load: fewer
    # sectors on the GPU than the emulator counts, the same distinct bytes (counters.py). Its
    # step's kernel follows the timed one: its timing is the grader's (lab.toml [evidence]).
    Run("members-nbody", "nbody", "tests/students/nbody/member_access",
        ("{input}", "--kernel", "naive", "--block", "4", "--softening", "0.05", "--dt", "0.01", "--reps", "1"), 1, 1,
        ncu=True, input="testcases/nbody/five-bodies.txt", timed=False),
]


def build(run: Run, emu: bool) -> Path:
    folder = KIT / "build" / f"evidence-{'emu-' if emu else ''}{run.source.replace('/', '_')}"
    command = ["make", "--no-print-directory", "-C", str(KIT), run.lab, f"SRC_ROOT={KIT / run.source}",
               f"BUILD={folder}", "-j4"] + (["EMU=1"] if emu else ["EMU=0"])
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"evidence_verify: building {run.name} ({'EMU' if emu else 'GPU'}) failed:\n"
                         f"{done.stdout[-1500:]}{done.stderr[-1500:]}")
    return folder / run.lab / run.lab


def build_all(runs: list[Run], emu: bool) -> dict[str, Path]:
    unique = {(r.lab, r.source): r for r in runs}
    with ThreadPoolExecutor(max_workers=max(1, (os.cpu_count() or 2) // 4)) as pool:
        built = dict(zip(unique, pool.map(lambda r: build(r, emu), unique.values())))
    return {r.name: built[(r.lab, r.source)] for r in runs}


def emulate(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    runs = [r for r in RUNS if r.emulate]
    programs = build_all(runs, emu=True)
    for run in runs:
        with tempfile.TemporaryDirectory() as folder:
            argv = run.argv(programs[run.name], Path(folder))
            done = subprocess.run(argv, env={**os.environ, "EMU_PROFILE": str(out / f"{run.name}.emu.json")},
                                  capture_output=True, text=True)
        print(f"{run.name}: emulated, exit {done.returncode}", flush=True)
    return 0


def traced(program: Path, run: Run, tracer: Path, folder: Path, user: str | None) -> tuple[Record | object, dict, str]:
    """Runs the program under the tracer in `folder` (as `user` through runuser when given)."""
    record_path, result_path = folder / "record.jsonl", folder / "result.json"
    env = {**os.environ, **tracer_environment(tracer, record_path), "LABKIT_RESULT": str(result_path)}
    input_file = None
    if user:  # the kit may sit in a folder the user cannot enter: the files it needs, copied
        program = Path(shutil.copy(program, folder / program.name))
        library = Path(shutil.copy(tracer, folder / tracer.name))
        env.update(tracer_environment(library, record_path))
        input_file = Path(shutil.copy(KIT / run.input, folder)) if run.input else None
        for path in (folder, program, library, *filter(None, [input_file])):
            shutil.chown(path, user)
    argv = run.argv(program, folder, input_file)
    if user:
        keep = ["CUDA_INJECTION64_PATH", "LABKIT_GPU_RECORD", "LABKIT_RESULT", "PATH", "LD_LIBRARY_PATH"]
        argv = ["runuser", "-u", user, "--", "env", *[f"{k}={env[k]}" for k in keep if k in env], *argv]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    try:
        figures = json.loads(result_path.read_text())
    except (OSError, ValueError):
        figures = {}
    return read_record(record_path), figures, f"exit {done.returncode}" + (
        f": {done.stderr.strip().splitlines()[-1][:200]}" if done.returncode and done.stderr.strip() else "")


def judge(run: Run, record, figures: dict, emu_dir: Path) -> tuple[list[str], bool | None, str]:
    """(record differences, timing backed?, what the timing check said)."""
    differences: list[str] = []
    emu_path = emu_dir / f"{run.name}.emu.json"
    if run.emulate and emu_path.exists():
        emulated = from_emulator_profile(json.loads(emu_path.read_text()))
        differences = compare_records(record, emulated) if isinstance(emulated, Record) else [emulated.reason]
    if not run.timed:
        return differences, None, "not checked here"
    reps = timed_repetitions(record, reps=run.reps, warmups=run.warmups)
    if isinstance(reps, str):
        return differences, False, reps
    figure = figures.get("kernel_ms")
    if not isinstance(figure, (int, float)):
        return differences, None, "no kernel_ms in the result file"
    evidence = timing_backed(reps, float(figure), warmups=run.warmups)
    return differences, evidence.backed, evidence.reason


def gpu(emu_dir: Path, out: Path, user: str | None, ncu: bool) -> int:
    out.mkdir(parents=True, exist_ok=True)
    tracer = build_tracer()
    if tracer.path is None:
        print(f"evidence_verify: {tracer.reason}")
        return 1
    programs = build_all(RUNS, emu=False)
    bad = 0
    for run in RUNS:
        for who in [None] + ([user] if user else []):
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                folder.chmod(0o755)
                record, figures, how = traced(programs[run.name], run, tracer.path, folder, who)
                if who is None:
                    shutil.copy(folder / "record.jsonl", out / f"{run.name}.record.jsonl") \
                        if (folder / "record.jsonl").exists() else None
            label = f"{run.name:22s} {'as ' + who if who else 'as root':>16s}"
            if not isinstance(record, Record):
                print(f"BAD {label}: {how}; {record.kind} record: {record.reason}")
                bad += 1
                continue
            differences, backed, said = judge(run, record, figures, emu_dir)
            kernels = len(record.kernels)
            ok = {"same": not differences and backed is not False, "differs": bool(differences),
                  "not backed": backed is False}[run.expect]
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} {label}: {how}; {len(record.events)} events, {kernels} kernels; "
                  f"kernel_ms {figures.get('kernel_ms')}; timing: {said}; record vs emulated: "
                  f"{'; '.join(differences) if differences else ('same' if run.emulate else 'not emulated')}",
                  flush=True)
    permission = counters_allowed()
    print(permission.why)
    if ncu and permission.allowed and shutil.which(os.environ.get("NCU", "ncu")):
        for run in (r for r in RUNS if r.ncu):
            csv_path = out / f"{run.name}.ncu.csv"
            with tempfile.TemporaryDirectory() as tmp:
                done = subprocess.run(ncu_argv(run.argv(programs[run.name], Path(tmp)), csv_path,
                                               os.environ.get("NCU", "ncu")), capture_output=True, text=True)
            parsed = parse_ncu_csv(csv_path.read_text() if csv_path.exists() else done.stdout + done.stderr)
            emu_path = emu_dir / f"{run.name}.emu.json"
            if isinstance(parsed, str) or not emu_path.exists():
                print(f"BAD ncu {run.name}: {parsed if isinstance(parsed, str) else 'no emulated profile'}")
                bad += 1
                continue
            differences = compare_traffic(parsed, emulated_traffic(json.loads(emu_path.read_text())))
            ok = bool(differences) == (run.expect == "differs")
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} ncu {run.name}: " + ", ".join(
                f"{k} {v.launches} launches ld {v.ld_requests} req/{v.ld_sectors} sect/{v.ld_bytes} B "
                f"st {v.st_requests}/{v.st_sectors}/{v.st_bytes}"
                for k, v in parsed.items()) + f"; vs emulated: {'; '.join(differences) or 'equal within tolerance'}",
                flush=True)
    elif ncu:
        print("ncu: not run (counters not allowed, or no ncu on the PATH)")
    print(f"{len(RUNS)} runs; {bad} not as expected")
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("emulate")
    e.add_argument("--out", type=Path, required=True)
    g = sub.add_parser("gpu")
    g.add_argument("--emu", type=Path, required=True)
    g.add_argument("--out", type=Path, required=True)
    g.add_argument("--user", help="also run each program as this user (runuser)")
    g.add_argument("--ncu", action="store_true", help="ncu's sectors on the runs marked for it")
    args = p.parse_args(argv)
    if args.command == "emulate":
        return emulate(args.out)
    return gpu(args.emu, args.out, args.user, args.ncu)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
