"""Every command the handouts show, run for real in the student edition of the kit.

The student edition (`make dist-student`) has no solutions/ and no answers: a handout command
that leans on the reference solution works in the instructor's checkout and fails in a
student's. This packs the edition (without its HTML), unpacks it in a temporary folder, builds
every lab there from the starters (under the CPU emulator, as a machine without a GPU does by
itself; on a machine with a GPU, on the GPU) and runs each command a handout's
code block shows, as written (redirections included), from the edition's top folder, in the
handout's order, with a short time limit.

A command passes when it ends with exit status 0, or stops at a TODO the student has not done
yet (the starters' TODOs are the student's work, not the kit's failure), or is still running at
its limit (it has accepted its arguments and started: a GPU-sized run), or says it needs a GPU
where there is none. It fails when it exits otherwise, or when its output says what only a
missing file says: a Python traceback, "error: ... is missing", "No such file or directory",
"No rule to make target", "did not build".

Not run: `make clean` (it would remove the builds the later commands use), `make deps` (it
installs packages), `make dist-*` (an edition inside the edition), and lines with a placeholder
such as IN OUT or <lab> the reader fills in.

    python3 tests/handouts/student_edition.py            every command of every handout
    python3 tests/handouts/student_edition.py --quick    the subset `make test` runs
    python3 tests/handouts/student_edition.py --keep DIR  unpack into DIR and keep it

tests/handouts/test_student_edition.py runs the --quick subset in `make test`.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(KIT))

from authoring import dist  # noqa: E402
from authoring.handouts import code_blocks, inline_code, read_ast  # noqa: E402
from grader.testing import seed_kit_build  # noqa: E402

PREFIXES = ("make ", "make\t", "python3 ", "./build/", "bash ")
# Commands that change the kit: cleaning, installing, making editions, and a bench that records
# its figures into the handouts (RECORD=1, on a GPU).
NOT_RUN = re.compile(r"^make\s+(clean|deps|dist-student|dist-instructor)\b|^make\s+bench\b.*\bRECORD=1\b")
PLACEHOLDER = re.compile(r"<[^<>]+>|\b(IN|OUT|FILE|GRAPH)\b")
FAILURE_SIGNS = re.compile(r"Traceback \(most recent call last\)|error: \S+ is missing|No such file or directory"
                           r"|No rule to make target|did not build")
# A command a handout gives for a GPU may say so where there is none, and stop: that is its answer.
NEEDS_GPU = "needs a GPU"
# Inline mentions of a target that needs LAB=, without it, name the target in prose.
NAMED_ONLY = re.compile(r"^make (check|bench|submit)$")
LIMITS_S = {"./build/": 3, "python3": 20, "bash": 20, "make": 240}
# The commands the issue found failing in the student edition, and one of each other kind.
QUICK = (
    "make bench LAB=increment",
    "python3 labs/fw/scripts/table2.py",
    "./build/starter/fw/fw testcases/fw/graph1.txt",
    "python3 testcases/fw/gen.py to-apsp testcases/fw/graph1.txt graph1.bin",
    "./build/starter/increment/increment --n 1000 --block 96 --reps 3",
    "make check LAB=increment",
)
QUICK_LABS = ("increment", "fw")  # the programs QUICK runs

@dataclass
class Outcome:
    handout: str
    line: str
    status: str   # "ok", "TODO", "running at limit", "needs a GPU", "FAILED", "not run"
    detail: str = ""
    seconds: float = 0.0
    output: str = ""  # the end of what it printed, stdout then stderr


def unpack_student_edition(dest: Path) -> Path:
    """Packs the student edition of this checkout and unpacks it under dest; returns its root."""
    with tempfile.TemporaryDirectory() as packed:
        tarball = dist.pack("student", Path(packed), html=False, log=lambda *_: None)
        with tarfile.open(tarball) as tar:
            tar.extractall(dest, filter="data")
    root = dest / "cuda-lab-kit-student"
    if (root / "solutions").exists():
        raise SystemExit(f"error: {root} holds solutions/: that is not the student edition")
    return root


def _lines(block: str) -> list[str]:
    lines, pending = [], ""
    for raw in block.splitlines():
        line = pending + raw.strip()
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        pending = ""
        line = re.sub(r"\s+#.*$", "", line.removeprefix("$ ")).strip()
        if line:
            lines.append(line)
    return lines


def handout_lines(root: Path) -> list[tuple[str, str]]:
    """(handout, command line) for every command line of the edition's handouts, in order:
    code blocks, then inline code spans that are whole make or python3 commands."""
    found = []
    for source in sorted((root / "handouts").glob("*.md")):
        ast = read_ast(source)
        for block in code_blocks(ast):
            found += [(source.name, line) for line in _lines(block) if line.startswith(PREFIXES)]
        for span in inline_code(ast):
            if span.startswith(("make ", "python3 ")) and (source.name, span) not in found:
                found.append((source.name, span))
    return found


def run_line(root: Path, handout: str, line: str) -> Outcome:
    outcome, output = _run_line(root, handout, line)
    outcome.output = output[-4000:]
    return outcome


def _run_line(root: Path, handout: str, line: str) -> tuple[Outcome, str]:
    if NOT_RUN.match(line) or PLACEHOLDER.search(line) or NAMED_ONLY.match(line):
        return Outcome(handout, line, "not run", "a placeholder, a target named in prose, or a command "
                       "that changes the kit"), ""
    limit = next(s for prefix, s in LIMITS_S.items() if line.startswith(prefix))
    env = {**os.environ, "MAKEFLAGS": ""}
    env.pop("EMU", None)
    start = time.monotonic()
    # Its own process group, so that a command still running at its limit is stopped whole
    # (make, the grader, the program), not only the shell.
    proc = subprocess.Popen(["bash", "-c", line], cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        out = stdout + stderr
        if (sign := FAILURE_SIGNS.search(out)):
            return Outcome(handout, line, "FAILED", f"{sign.group(0)}: {out.strip()[-300:]}", limit), out
        return Outcome(handout, line, "running at limit", f"still running after {limit} s", limit), out
    seconds = time.monotonic() - start
    out = stdout + stderr
    if (sign := FAILURE_SIGNS.search(out)):
        return Outcome(handout, line, "FAILED", f"{sign.group(0)}: {out.strip()[-400:]}", seconds), out
    if proc.returncode == 0:
        return Outcome(handout, line, "ok", "", seconds), out
    if "TODO not done" in out:
        return Outcome(handout, line, "TODO", "stopped at a TODO of the starter", seconds), out
    if NEEDS_GPU in out:
        return Outcome(handout, line, "needs a GPU", "said so, and stopped", seconds), out
    return Outcome(handout, line, "FAILED", f"exit {proc.returncode}: {out.strip()[-400:]}", seconds), out


def prepare(root: Path, labs: tuple[str, ...] = ()) -> None:
    """Builds the labs (all of them when none are named) from the starters in the edition. The emulator's runtime and
    the labs' harnesses, the same sources in the kit and in the edition, are taken from the kit's own build when it
    has them (tests/authoring/test_dist.py builds the edition's harnesses)."""
    seed_kit_build(root)
    env = {**os.environ, "MAKEFLAGS": ""}
    env.pop("EMU", None)
    proc = subprocess.run(["make", "-s", "-k", f"-j{os.cpu_count() or 2}", *labs], cwd=root,
                          capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"error: the student edition's starters do not build in {root}:\n"
                         f"{proc.stderr.strip()[-2000:]}")


def run_all(root: Path, quick: bool, log=print) -> list[Outcome]:
    prepare(root, QUICK_LABS if quick else ())
    lines = handout_lines(root)
    if quick:
        lines = [(h, line) for h, line in lines if line in QUICK]
        lines = list({line: (h, line) for h, line in lines}.values())
    outcomes = []
    for handout, line in lines:
        outcome = run_line(root, handout, line)
        log(f"{outcome.status:>16}  {outcome.seconds:6.1f} s  {handout}: {line}"
            + (f"\n{'':>18}{outcome.detail}" if outcome.status == "FAILED" else ""))
        outcomes.append(outcome)
    return outcomes


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="only the subset make test runs")
    p.add_argument("--keep", type=Path, metavar="DIR", help="unpack into DIR and keep it")
    args = p.parse_args(argv)
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as scratch:
        where = args.keep or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        root = unpack_student_edition(where)
        outcomes = run_all(root, args.quick)
    failed = [o for o in outcomes if o.status == "FAILED"]
    counts = {s: sum(o.status == s for o in outcomes)
              for s in ("ok", "TODO", "running at limit", "needs a GPU", "not run")}
    print(f"{len(outcomes)} commands in {time.monotonic() - start:.0f} s: " +
          ", ".join(f"{n} {s}" for s, n in counts.items()) + f", {len(failed)} FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
