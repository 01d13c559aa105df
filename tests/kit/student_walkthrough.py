"""The student edition walked through as a student without a GPU walks through it: for each lab,
`make check` on the untouched starter, the lab's realistic mistakes (each must give the message
that names it), then the work done and every command its handout shows, run as written from the
unpacked edition. A handout command that stops working, or a message that stops saying what the
program knows, shows here.

    python3 tests/kit/student_walkthrough.py                  every lab (several minutes; tests/every_lab.sh)
    python3 tests/kit/student_walkthrough.py increment        lab 1 (what `make test` runs:
                                                               tests/kit/test_student_walkthrough.py)
    ... --kit DIR       walk an edition already unpacked in DIR (its starter/ files get changed)
    ... --keep          keep the unpacked edition and say where

Each command a handout shows must exit 0 (make check with full marks, make submit without a
warning), or say up front that it would take minutes under the emulator and what takes seconds
(a "note: ... takes seconds" line): such a command is stopped right after saying so. The work "done" is the instructor checkout's reference solution, so this
runs from a checkout that has solutions/; the walk itself sees only the student edition.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

KIT_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(KIT_ROOT))
sys.path.insert(0, str(KIT_ROOT / "tests" / "handouts"))

from grader.labs import lab_ids, load_lab  # noqa: E402
from grader.testing import seed_kit_build  # noqa: E402
# The handouts' commands as tests/handouts/student_edition.py finds them (which runs each on the
# untouched starters; this walk runs them on finished work, and asks more of them).
from student_edition import NAMED_ONLY, NOT_RUN, PLACEHOLDER, handout_lines  # noqa: E402
from student_edition import unpack_student_edition as unpack  # noqa: E402

# A note up front that the run as asked takes minutes here, and what takes seconds: the command
# is stopped right there (it said why not and how to ask for less). Notes that a command runs
# smaller sizes instead (make bench, the scripts) do not stop it.
SAID_UP_FRONT = re.compile(r"^note: .*takes seconds")
HANG_GUARD_S = 600  # not a speed requirement: only so that a hung command ends the walk


@dataclass
class Mistake:
    """A realistic mistake: the reference with `old` replaced by `new` in `file`, then `command`;
    its output must hold every one of `says`."""
    what: str
    file: str
    old: str
    new: str
    command: str
    says: list[str] = field(default_factory=list)


MISTAKES = {
    "increment": [
        Mistake("the kernel without its bounds guard, run by hand", "increment.c",
                "if (first + ELEMENTS_PER_THREAD <= n) {", "if (true) {",
                "./build/starter/increment/increment --n 1000 --block 96 --reps 3",
                ["cuda-emu: kernel increment_kernel (launched at starter/increment/increment.c:",
                 "wrote outside its arrays", "make increment EMU=1 ASAN=1 && ./build/emu-starter-asan/increment/"
                 "increment --n 1000 --block 96 --reps 3"]),
        Mistake("the grid rounded down", "increment.c",
                "int blocks = (threads_needed + block_size - 1) / block_size;",
                "int blocks = threads_needed / block_size;",
                "make check LAB=increment",
                ["ragged", "entries wrong; the program says:", "never touched", "(block size 96)",
                 "at starter/increment/increment.c:"]),
    ],
    "matmul": [
        Mistake("B's row and column swapped in the naive kernel", "matmul.c",
                "sum += A[row * n + k] * B[k * n + col];", "sum += A[row * n + k] * B[col * n + k];",
                "make check LAB=matmul", ["WA", "entries wrong", "of", "checked entries are off"]),
    ],
}


def unpack_student_edition(where: Path) -> Path:
    root = unpack(where)
    # The emulator's libraries and the labs' harnesses, if built here, are not under test: the
    # student's own steps are (tests/authoring/test_dist.py builds the edition's harnesses).
    seed_kit_build(root)
    return root


def handout_commands(root: Path, lab: str) -> list[str]:
    """The commands the lab's handout shows (code blocks, then whole commands in inline code)
    that a student runs as written: no placeholders, nothing that changes the kit."""
    commands = []
    for handout, line in handout_lines(root):
        if handout == f"{lab}.md" and line not in commands and not (
                NOT_RUN.match(line) or PLACEHOLDER.search(line) or NAMED_ONLY.match(line)):
            commands.append(line)
    return commands


@dataclass
class Step:
    lab: str
    command: str
    ok: bool
    why: str
    seconds: float
    output: str = ""


def run(root: Path, command: str, env: dict) -> tuple[int | None, str]:
    """(exit status, or None when stopped after saying up front that it takes minutes; output)."""
    proc = subprocess.Popen(["bash", "-c", command], cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    output, said, started = [], False, time.monotonic()
    for line in proc.stdout:
        output.append(line)
        if SAID_UP_FRONT.search(line):
            said = True
            os.killpg(proc.pid, signal.SIGTERM)
            break
        if time.monotonic() - started > HANG_GUARD_S:
            os.killpg(proc.pid, signal.SIGKILL)
            output.append(f"\n[walkthrough: stopped after {HANG_GUARD_S} s]\n")
            break
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return (None if said else proc.returncode), "".join(output)


def judge(lab: str, command: str, status: int | None, output: str) -> tuple[bool, str]:
    if "Traceback (most recent call last)" in output:
        return False, "a Python traceback"
    if status is None:
        return True, "said up front why it takes long, and how to ask for less; stopped there"
    if status != 0:
        return False, f"exit status {status}"
    if command.startswith("make check"):
        score = re.search(r"^score: (\S+) / (\S+)$", output, re.MULTILINE)
        if not score or score.group(1) != score.group(2):
            return False, f"the finished work does not score full marks: {score.group(0) if score else 'no score'}"
    if command.startswith("make submit") and "warning:" in output:
        return False, "make submit warned about finished work"
    return True, "ran"


def walk_lab(root: Path, lab: str, env: dict, log) -> list[Step]:
    steps = []

    def step(command: str, check) -> Step:
        started = time.monotonic()
        status, output = run(root, command, env)
        ok, why = check(status, output)
        result = Step(lab, command, ok, why, time.monotonic() - started, output)
        log(f"  {'ok ' if ok else 'BAD'} {result.seconds:6.1f}s  {command}  ({why})")
        if not ok:
            log("      " + "\n      ".join(output.strip().splitlines()[-15:]))
        steps.append(result)
        return result

    starter = root / "starter" / lab
    solution = KIT_ROOT / "solutions" / lab
    # 1. The untouched starter: every case stops at a TODO that it names.
    step(f"make check LAB={lab}", lambda status, out: (
        (status == 0 and "TODO not done" in out, "each case names the TODO left") if status == 0
        else (False, f"exit status {status}")))
    # 2. Realistic mistakes, each on the finished work with one thing wrong.
    for mistake in MISTAKES.get(lab, []):
        text = (solution / mistake.file).read_text()
        assert mistake.old in text, f"{lab}: the mistake '{mistake.what}' no longer applies to {mistake.file}"
        for source in sorted(solution.glob("*.c")):
            shutil.copy(source, starter / source.name)
        (starter / mistake.file).write_text(text.replace(mistake.old, mistake.new, 1))
        subprocess.run(["make", "-s", lab], cwd=root, env=env, capture_output=True)
        step(mistake.command, lambda status, out, m=mistake: (
            (not [s for s in m.says if s not in out]),
            f"{m.what}: says " + ("all it should" if not [s for s in m.says if s not in out]
                                  else f"nothing of {[s for s in m.says if s not in out]}")))
    # 3. The work done: every command the handout shows.
    for source in sorted(solution.glob("*.c")):
        shutil.copy(source, starter / source.name)
    for command in handout_commands(root, lab):
        step(command, lambda status, out, c=command: judge(lab, c, status, out))
    return steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("labs", nargs="*", help="default: every lab")
    parser.add_argument("--kit", type=Path, help="an unpacked student edition to walk (default: pack one)")
    parser.add_argument("--keep", action="store_true", help="keep the unpacked edition")
    args = parser.parse_args(argv)
    labs = args.labs or lab_ids()
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "EMU")}
    scratch = Path(tempfile.mkdtemp(prefix="walkthrough-"))
    try:
        root = args.kit or unpack_student_edition(scratch)
        print(f"the student edition in {root}", flush=True)
        steps = []
        for lab in labs:
            load_lab(lab)
            print(f"== {lab}", flush=True)
            steps += walk_lab(root, lab, env, lambda text: print(text, flush=True))
        bad = [s for s in steps if not s.ok]
        print(f"{len(steps) - len(bad)} of {len(steps)} steps as a student expects"
              + (": " + "; ".join(f"{s.lab}: {s.command} ({s.why})" for s in bad) if bad else ""))
        return 1 if bad else 0
    finally:
        if args.keep:
            print(f"kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
