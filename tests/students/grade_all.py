"""Grades every submission of the student corpus on every public case of the programs it was
written for, one after the other, and prints one line a submission: name, score, and the first
failing case with its verdict and reason (or "all correct"). Under the CPU emulator by default;
--gpu builds for the GPU (run it on a GPU node). test_students.py holds the table to account on a
few cases under the emulator; this shows the whole picture. With --gpu it also holds the table's
coarse promise on the GPU and exits 1 where it is broken: a submission the table expects to pass
keeps full marks, and one the table says is not the lab's work (WORK) loses points.

    python3 tests/students/grade_all.py [--gpu] [--lab LAB] [--case CASE ...] [--no-checks] [NAME ...]

--case grades only the named cases (the large, timed ones too), and prints each case's verdict
with its timing against the reference (how the students' timing thresholds in lab.toml were set).
--jobs N grades N submissions at a time, each in a process of its own (gradings side by side
keep to folders of their own; leave it at 1 where --case times something).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from students import grade, load_lab, load_table, missing_requirement


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gpu", action="store_true", help="build for the GPU (default: the CPU emulator)")
    p.add_argument("--lab", help="only this lab's submissions")
    p.add_argument("--case", action="append", default=[], metavar="CASE",
                   help="only this case (repeat for more); each case's verdict and timing is printed")
    p.add_argument("--no-checks", action="store_true",
                   help="as the grader's: no sanitizers, race detector or random-order pass (timings alone)")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="grade N submissions at a time")
    p.add_argument("names", nargs="*", help="only these submissions")
    args = p.parse_args(argv)
    table = load_table()
    names = args.names or sorted(table, key=lambda n: (table[n].lab, n))
    if args.jobs > 1:
        return _in_parallel(argv, [n for n in names if not args.lab or table[n].lab == args.lab], args.jobs)
    broken = []
    for name in names:
        expect = table[name]
        if args.lab and expect.lab != args.lab:
            continue
        cases = None
        if args.case:
            names_here = {c.name for c in load_lab(expect.lab).cases}
            cases = [c for c in args.case if c in names_here]
            if not cases:
                continue
        start = time.monotonic()
        report = grade(expect, cases, emu=not args.gpu, checks=not args.no_checks)
        failing = next((r for r in report.results if r.verdict != "AC"), None)
        outcome = f"{failing.case}: {failing.verdict} {failing.reason}" if failing else "all correct"
        note = missing_requirement(expect.requires) if not args.gpu else None
        print(f"{expect.lab:9s} {name:30s} {report.score:6.1f}/{report.max_score:<6.1f} "
              f"{time.monotonic() - start:5.0f}s  {outcome[:160]}" + (f"  [the table's expectation is skipped here: {note[:70]}...]" if note else ""),
              flush=True)
        for result in report.results if cases else []:
            print(f"    {result.case:24s} {result.verdict:5s} {result.timing_note or result.reason}", flush=True)
        if args.gpu and not cases:
            why = gpu_promise_broken(expect, report)
            if why:
                broken.append(name)
                print(f"    UNEXPECTED on the GPU: {why}", flush=True)
    if broken:
        print(f"{len(broken)} submission(s) not as the table promises on the GPU: {', '.join(broken)}")
    return 1 if broken else 0


def _in_parallel(argv: list[str], names: list[str], jobs: int) -> int:
    """This script once a submission, `jobs` at a time; each one's lines printed as it ends, and
    the worst exit status."""
    flags, skip = [], False
    for arg in argv:  # the flags, less --jobs N and the names
        if skip or arg.startswith("--jobs"):
            skip = arg == "--jobs"
            continue
        if arg.startswith("-") or flags and flags[-1] in ("--lab", "--case"):
            flags.append(arg)

    def one(name: str) -> int:
        done = subprocess.run([sys.executable, __file__, *flags, name], capture_output=True, text=True)
        print(done.stdout + done.stderr, end="", flush=True)
        return done.returncode

    with ThreadPoolExecutor(jobs) as pool:
        return int(max(pool.map(one, names), default=0))


def gpu_promise_broken(expect, report) -> str:
    """What the table promises on a GPU node, where verdicts may differ from the emulator's (an
    out-of-bounds write need not crash there): why it is broken, or ''."""
    if expect.flaky or expect.known_gap:
        return ""
    if not expect.fails and report.score < report.max_score:
        return f"the table expects full marks; it got {report.score:g}/{report.max_score:g}"
    if any("WORK" in f.verdicts for f in expect.fails) and report.score >= report.max_score:
        return "the table says it is not the lab's work; it kept full marks"
    return ""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
