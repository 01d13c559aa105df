"""The shell commands the handouts show, and how to check each one without a GPU.

A command is a simple command (`a; b && c` is two) in a line of a code block (fenced or
indented) that starts with `make`, `python3`, `./build/` or `bash` (a `$ ` prompt and
`# comments` are dropped, `\\` continuations joined), or in an inline code span that starts
with `make ` or `python3 -m grader`. Placeholders: `<lab>` is
a lab; a command with any other `<...>` is checked only where the placeholder is a variable's
value (`SUB=<folder>`), and otherwise left out.

Checking (check_command) proves the command exists as shown, then runs it where it can run
without a GPU, under EMU=1:
    make ...               every target exists (make -n), every VAR= is one the Makefile uses,
                           LAB= names a lab; run for real: building a lab, and `make check` of
                           the starter (the solution's EMU run is grader/tests/test_labs_emu.py's)
    python3 -m grader ...  the grader's own argparse accepts it, the lab exists; run for real:
                           `check` of the starter on the public cases, with --emu
    python3 <file> ...     the file exists
    ./build/.../<lab>/<p>  p is one of the lab's programs, every --flag is in its harness's
                           usage; run for real: the reference solution under EMU with these
                           arguments (a few seconds at most; a GPU-sized run that is still
                           going then has at least accepted its arguments)
    bash <script>          the script exists and `bash -n` parses it (job and GPU scripts are
                           not run here)
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from authoring.handouts import code_blocks, inline_code, read_ast
from grader.labs import lab_ids, load_lab
from grader.paths import KIT_ROOT

PREFIXES = ("make", "python3", "./build/", "bash ")
INLINE_PREFIXES = ("make ", "python3 -m grader")
ASSIGNMENT = re.compile(r"^([A-Z_][A-Z0-9_]*)=(.*)$", re.S)
PLACEHOLDER = re.compile(r"<[^<>]+>")
REDIRECTION = re.compile(r"(?<=\s)\d*(>>|>|<)(&\d+|\s*[^\s<>]+)(?=\s|$)")  # > out, 2>&1, < in
PROGRAM_RUN_TIMEOUT_S = 2
RUN_TIMEOUT_S = 240
# Exit codes a program may give for a command a handout shows: 0 right, 1 wrong (the harness's
# own check), 3 a CUDA error (an exploration may show a bad launch on purpose). Never 2: usage.
PROGRAM_OK_EXITS = (0, 1, 3)


@dataclass
class ShellCommand:
    handout: str      # file name, for messages and test ids
    shown: str        # the line as the handout shows it (continuations joined)
    argv: list[str]   # placeholders filled in
    inline: bool = False  # from an inline code span: checked, never run

    def __str__(self) -> str:
        return f"{self.handout}: {self.shown}"


@dataclass
class CheckResult:
    problems: list[str] = field(default_factory=list)
    ran: str = ""  # what was run for real, if anything


def example_lab() -> str:
    return lab_ids()[0]


def _fill(argv: list[str]) -> list[str] | None:
    """Fills `<lab>`; drops VAR=<...> assignments; None if another placeholder is left."""
    filled = []
    for arg in argv:
        arg = arg.replace("<lab>", example_lab())
        match = ASSIGNMENT.match(arg)
        if match and PLACEHOLDER.search(match.group(2)):
            continue
        if PLACEHOLDER.search(arg):
            return None
        filled.append(arg)
    return filled


def _logical_lines(block: str) -> list[str]:
    lines, pending = [], ""
    for raw in block.splitlines():
        line = pending + raw.strip()
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        pending = ""
        lines.append(line)
    return lines + ([pending] if pending else [])


def _split(line: str) -> list[list[str]]:
    """The simple commands of a line: `a; b && c || d` is a, b, c and d; after a pipe, the
    filter (`| head`) is not one of the kit's commands."""
    line = REDIRECTION.sub(" ", line)
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split, lexer.commenters = True, "#"
    try:
        tokens = list(lexer)
    except ValueError:
        return []
    commands, current, piped = [], [], False
    for token in tokens + [";"]:
        if token in (";", "&&", "||", "|", "&"):
            if current and not piped:
                commands.append(current)
            current, piped = [], token == "|"
        else:
            current.append(token)
    return commands


def commands_in(handout: Path) -> list[ShellCommand]:
    ast = read_ast(handout)
    found = []
    for block in code_blocks(ast):
        for line in _logical_lines(block):
            line = line.removeprefix("$ ")
            for argv in _split(line):
                shown = shlex.join(argv)
                if shown.startswith(PREFIXES) and (filled := _fill(argv)):
                    found.append(ShellCommand(handout.name, shown, filled))
    for span in inline_code(ast):
        if span.startswith(INLINE_PREFIXES):
            for argv in _split(span):
                shown = shlex.join(argv)
                if shown.startswith(PREFIXES) and (filled := _fill(argv)):
                    found.append(ShellCommand(handout.name, shown, filled, inline=True))
    return found


# ---- make ---------------------------------------------------------------------------------------

def _makefile_variables() -> str:
    return "\n".join(p.read_text() for p in [KIT_ROOT / "Makefile", *KIT_ROOT.glob("labs/emu/*.mk")])


def _make(args: list[str], timeout: float = RUN_TIMEOUT_S) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", "-C", str(KIT_ROOT), *args],
                          capture_output=True, text=True, timeout=timeout)


@lru_cache(maxsize=None)
def _make_for_real(argv: tuple[str, ...]) -> subprocess.CompletedProcess:
    """One run of a command the handouts show more than once (make check LAB=increment, in four
    places): the kit is the same for each, and so is what the run says."""
    return _make(["-s", *argv])


def check_make(cmd: ShellCommand, *, emu_ready: bool, run: bool) -> CheckResult:
    result = CheckResult()
    targets, assignments, options = [], {}, []
    for arg in cmd.argv[1:]:
        if (match := ASSIGNMENT.match(arg)):
            assignments[match.group(1)] = match.group(2)
        elif arg.startswith("-"):
            options.append(arg)
        else:
            targets.append(arg)
    known = _makefile_variables()
    for name in assignments:
        if not re.search(rf"\$\({name}\)|^\s*{name}\s*[:?+]?=", known, re.M):
            result.problems.append(f"the Makefile uses no variable {name}")
    lab = assignments.get("LAB")
    if lab is not None and lab not in lab_ids():
        result.problems.append(f"LAB={lab} names no lab (the labs: {', '.join(lab_ids())})")
    # A dry run (make -n) proves the targets exist. The toolchain is beside the point here, so
    # NVCC=true stands in for a CUDA compiler this machine may lack; a submission the handout
    # only names stands in as the lab's starter folder.
    dry = dict(assignments)
    dry.pop("EMU", None)
    if "SUB" in dry and not (KIT_ROOT / dry["SUB"]).exists():
        dry["SUB"] = f"starter/{lab or example_lab()}"
    proc = _make(["-n", *targets, *[f"{k}={v}" for k, v in dry.items()], "NVCC=true"], timeout=60)
    if proc.returncode != 0:
        result.problems.append(f"make -n fails: {(proc.stderr or proc.stdout).strip()[-300:]}")
    if result.problems or not run or not emu_ready:
        return result
    # Run for real, without a GPU: building a lab, or grading the starter.
    plain = not ({"SOL", "SUB"} & assignments.keys())
    if plain and targets and all(t in lab_ids() for t in targets):
        argv = [*targets, *[f"{k}={v}" for k, v in assignments.items()], "EMU=1"]
    elif plain and targets == ["check"] and "--cases all" not in assignments.get("GRADER_ARGS", ""):
        argv = ["check", *[f"{k}={v}" for k, v in assignments.items()], "EMU=1"]
    else:
        return result
    argv = list(dict.fromkeys(argv))  # EMU=1 once
    result.ran = "make " + " ".join(argv)
    proc = _make_for_real(tuple(argv))
    if proc.returncode != 0:
        result.problems.append(f"{result.ran} failed (exit {proc.returncode}): "
                               f"{(proc.stderr or proc.stdout).strip()[-400:]}")
    elif targets == ["check"] and "score:" not in proc.stdout:
        result.problems.append(f"{result.ran} printed no score: {proc.stdout.strip()[-300:]}")
    return result


# ---- python3 ------------------------------------------------------------------------------------

def check_python(cmd: ShellCommand, *, emu_ready: bool, run: bool, work: Path) -> CheckResult:
    result = CheckResult()
    argv = cmd.argv
    if argv[1:3] != ["-m", "grader"]:
        if len(argv) < 2 or argv[1].startswith("-"):
            return result  # python3 -m something else, or python3 -c: nothing to check here
        if argv[1] == "-m":
            module = KIT_ROOT / (argv[2].replace(".", "/") + ".py")
            if not module.exists():
                result.problems.append(f"no module {argv[2]} in the kit")
        elif not (KIT_ROOT / argv[1]).is_file():
            result.problems.append(f"{argv[1]} does not exist")
        return result
    from grader.cli import parser
    try:
        args = parser().parse_args(argv[3:])
    except SystemExit:
        result.problems.append("the grader's command line refuses it (python3 -m grader --help)")
        return result
    lab = getattr(args, "lab", None)
    if lab is not None and lab not in lab_ids():
        result.problems.append(f"{lab} names no lab (the labs: {', '.join(lab_ids())})")
        return result
    if not (run and emu_ready and args.command == "check" and not args.solution
            and not args.submission and args.cases == "public"):
        return result
    run_argv = [sys.executable, "-m", "grader", *argv[3:]]
    run_argv += [a for a in ("--emu", "--quiet") if a not in run_argv]
    result.ran = " ".join(["python3", *run_argv[1:]])
    env = {**os.environ, "PYTHONPATH": str(KIT_ROOT)}
    proc = subprocess.run(run_argv, cwd=work, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    if proc.returncode != 0 or "score:" not in proc.stdout:
        result.problems.append(f"{result.ran} failed (exit {proc.returncode}): "
                               f"{(proc.stderr or proc.stdout).strip()[-400:]}")
    return result


# ---- lab programs and scripts -------------------------------------------------------------------

def _harness_text(lab: str) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted((KIT_ROOT / "labs" / lab).glob("*"))
                     if p.suffix in (".cpp", ".cu", ".h"))


def _work_folder(work: Path) -> Path:
    """A folder that looks like the kit's root for the relative paths a command names (inputs
    under testcases/, say) but keeps whatever the command writes out of the kit."""
    for entry in KIT_ROOT.iterdir():
        if entry.name not in ("build", ".git") and not (work / entry.name).exists():
            (work / entry.name).symlink_to(entry)
    return work


def check_program(cmd: ShellCommand, *, emu_ready: bool, run: bool, work: Path) -> CheckResult:
    result = CheckResult()
    parts = cmd.argv[0].removeprefix("./").split("/")
    if len(parts) != 4 or parts[0] != "build":
        result.problems.append(f"{cmd.argv[0]} is not build/<flavor>/<lab>/<program>")
        return result
    lab, program = parts[2], parts[3]
    if lab not in lab_ids():
        result.problems.append(f"{lab} names no lab (the labs: {', '.join(lab_ids())})")
        return result
    if program not in load_lab(lab).programs:
        result.problems.append(f"lab {lab} has no program {program} (it has {', '.join(load_lab(lab).programs)})")
        return result
    harness = _harness_text(lab)
    for arg in cmd.argv[1:]:
        if arg.startswith("--") and len(arg) > 2:
            flag = arg.split("=")[0]
            if not re.search(re.escape(flag) + r"\b", harness):
                result.problems.append(f"{program} has no option {flag} (see its usage: {cmd.argv[0]} --help)")
    if result.problems or not run or not emu_ready:
        return result
    from grader.build import build_lab
    from grader.paths import BUILD_DIR, SOLUTIONS_DIR
    build = build_lab(load_lab(lab), src_root=SOLUTIONS_DIR, build_dir=BUILD_DIR / "emu-solution", emu=True,
                      submission=False)
    if not build.ok:
        result.problems.append(f"the reference solution of {lab} does not build under EMU: {build.reason}")
        return result
    argv = [str(build.programs[program]), *cmd.argv[1:]]
    result.ran = f"{program} {' '.join(cmd.argv[1:])} (the reference solution, EMU=1)"
    try:
        proc = subprocess.run(argv, cwd=_work_folder(work), capture_output=True, text=True,
                              timeout=PROGRAM_RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        result.ran += f": still running after {PROGRAM_RUN_TIMEOUT_S} s, arguments accepted"
        return result
    if proc.returncode not in PROGRAM_OK_EXITS:
        result.problems.append(f"{result.ran} exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
    return result


def check_bash(cmd: ShellCommand) -> CheckResult:
    result = CheckResult()
    script = next((a for a in cmd.argv[1:] if not a.startswith("-")), None)
    if script is None or not (KIT_ROOT / script).is_file():
        result.problems.append(f"script {script} does not exist")
        return result
    proc = subprocess.run(["bash", "-n", str(KIT_ROOT / script)], capture_output=True, text=True)
    if proc.returncode != 0:
        result.problems.append(f"bash -n {script}: {proc.stderr.strip()}")
    return result


def check_command(cmd: ShellCommand, *, emu_ready: bool, work: Path) -> CheckResult:
    run = not cmd.inline
    head = cmd.argv[0]
    if head == "make":
        return check_make(cmd, emu_ready=emu_ready, run=run)
    if head == "python3":
        return check_python(cmd, emu_ready=emu_ready, run=run, work=work)
    if head.startswith("./build/"):
        return check_program(cmd, emu_ready=emu_ready, run=run, work=work)
    if head == "bash":
        return check_bash(cmd)
    return CheckResult()
