"""Mutation testing of the kit's own cases: do the cases catch the mistakes students make?

    python3 -m grader mutants <lab> [--gpu | --asan] [--jobs N] [--only NAME ...] [--list] [--json FILE]

A mutant is the reference solution (solutions/<lab>/) with one realistic mistake in it. Each one
is written into a fresh folder, taken in as a submission would be (intake.py) and graded through
the grader's own API (Grader, Source "sub-mutant-<lab>-<name>") on the lab's public cases and its
optional ones (worth 0 points: they run the reference's optional versions and explorations), under
the CPU emulator (on a GPU with --gpu). Its status:

    killed      some case not AC (or short of its points): the cases caught the mistake
    SURVIVED    every case AC: no case tells this mistake from the reference
    equivalent  declared to compute the same thing on every valid input (with why); not counted
    stillborn   does not compile: the mutation is written wrong (not a kill, not counted)

and the kill rate is the killed share of the mutants that are neither equivalent nor stillborn.

Where mutants come from (nothing here names a lab):
  - solutions/<lab>/mutants.toml, next to the reference (so the student edition leaves it out):
        [[mutant]]
        name = "guard-dropped"               # unique within the lab
        file = "kernels.c"                   # a file of solutions/<lab>/
        find = "if (first + 4 <= n) {"       # exact text; it must occur exactly once in the
        occurrence = 2                       #   file, or say which occurrence (1 = the first)
        replace = "if (1) {"
        kind = "guard-dropped"               # one of KINDS
        equivalent = "why it computes the same"   # optional
        caught_by = "asan"                   # optional: the checker it takes (CHECKERS), when
                                             #   the cases alone cannot see it
        note = "why it may survive"          # optional, when no checker would help
  - automatic mutants, made from every solution file: each `__syncthreads();` dropped, one at a
    time (sync-dropped), and each rounded-up division `(a + b - 1) / b` rounded down to `a / b`
    (grid-rounded-down). They are named <kind>@<file>:<function>#<n>, the n-th in that function;
    mutants.toml's [equivalent] table marks one equivalent by that name ("sync-dropped@x.c:step#1"
    = "why"), its [caught_by] table names the checker one needs ("sync-dropped@x.c:phase1#1"
    = "racecheck"), its [note] table says why one may survive otherwise
    ("sync-dropped@x.c:fast_kernel#1" = "in a version no case runs"). A name there that no automatic mutant has is an error (the file changed: look again).

How a mutant is graded: first the unchanged reference, through the same path; it must get full
marks, and its time on each case sets the mutant's limit there (10 x the reference, at least
5 s, at most the case's own: a mutant that loops forever costs seconds, not the case's minute).
A mutant of <prog>.c runs only the cases of program <prog> (the other programs are the
reference's, already graded), one case at a time, stopping at the first that is not AC. The
harness is built once per flavor (build/harness/) and shared by every mutant.

Exit status: 0, or 1 when a mutant is stillborn or could not be graded (fix mutants.toml), 2 on
a usage or configuration error.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from grader.grade import Grader
from grader.intake import Source
from grader.labs import OPTIONAL, PUBLIC, Case, Lab, load_lab
from grader.limits import MUTANT_TIME_LIMITS
from grader.paths import BUILD_DIR, SOLUTIONS_DIR
from grader.shared_files import exclusive_lock
from grader.intake import intake, safe_id
from grader.sandbox import MODES
from grader.text import one_line
from grader.verdict import AC, CE, IE, TLE

KINDS = {
    "sync-dropped": "a __syncthreads() dropped",
    "guard-dropped": "a bounds guard dropped (if (idx < n) and kin)",
    "grid-rounded-down": "a grid rounded down instead of up ((n + b - 1) / b -> n / b)",
    "off-by-one": "a loop bound off by one (< -> <=, < n -> < n - 1)",
    "copy-skipped": "a copy skipped (a cudaMemcpy removed)",
    "index-swapped": "row and column swapped (threadIdx.x/.y, blockIdx.x/.y in an index)",
    "exchange-skipped": "the multi-GPU exchange skipped (a send between devices, peer copies)",
    "padding-ignored": "the padded width ignored (the padded stride replaced by n)",
    "flag-not-reset": "a flag not reset each iteration (done / changed)",
    "remainder-dropped": "the remainder of an uneven split dropped",
}
# What catches a mutant that no output shows; a survivor that names one says so in the table.
CHECKERS = {
    "asan": "an out-of-bounds access: caught with --asan (AddressSanitizer), or on a GPU by memcheck or "
            "the emulator's checks ([sanitize] emulator_checks)",
    "racecheck": "a race: caught by the emulator's race detector (EMU_RACECHECK=1), or on a GPU by racecheck or "
                 "the emulator's checks ([sanitize] emulator_checks)",
    "devices": "needs more than one device: a multi-GPU node (--gpu), or CUDA_EMU_DEVICES=2 under the emulator",
}
# Tables of mutants.toml that say something of an automatic mutant, by its name.
AUTOMATIC_TABLES = ("equivalent", "caught_by", "note")
KILLED, SURVIVED, EQUIVALENT, STILLBORN, ERROR = "killed", "SURVIVED", "equivalent", "stillborn", "error"
DATA_FILE = "mutants.toml"
MUTANTS_DIR = BUILD_DIR / "mutants"
REASON_CHARS = 100

_SYNC = re.compile(r"__syncthreads\(\)\s*;")
# (a + b - 1) / b, a and b names (a.b, a->b, S::B allowed): a rounded-up division.
_NAME = r"[A-Za-z_]\w*(?:(?:\.|->|::)[A-Za-z_]\w*)*"
_CEIL_DIV = re.compile(rf"\(\s*({_NAME})\s*\+\s*({_NAME})\s*-\s*1\s*\)\s*/\s*\2\b")


class MutationError(Exception):
    """A mutation that cannot be applied or a data file that is malformed; says where and what to do."""


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str  # relative to solutions/<lab>/
    find: str
    replace: str
    kind: str
    occurrence: int | None = None  # 1-based; needed when find occurs more than once
    equivalent: str | None = None  # why it computes the same thing, when it does
    caught_by: str | None = None  # a key of CHECKERS
    note: str | None = None  # why it may survive, when no checker would help (code no case runs)
    origin: str = "automatic"  # the data file that declared it, or "automatic"


@dataclass
class MutantResult:
    mutation: Mutation
    status: str
    verdict: str = ""  # of the first case that is not AC (AC when none)
    case: str = ""
    reason: str = ""
    seconds: float = 0.0
    warning: str = ""  # a declared-equivalent mutant that lost marks

    def to_json(self) -> dict:
        m = self.mutation
        return {"name": m.name, "kind": m.kind, "file": m.file, "find": m.find, "replace": m.replace,
                "occurrence": m.occurrence, "equivalent": m.equivalent, "caught_by": m.caught_by, "note": m.note,
                "origin": m.origin,
                "status": self.status, "verdict": self.verdict, "case": self.case, "reason": self.reason,
                "seconds": round(self.seconds, 2), "warning": self.warning}


@dataclass
class LabRun:
    lab: str
    emu: bool
    asan: bool = False
    results: list[MutantResult] = field(default_factory=list)

    def counted(self) -> list[MutantResult]:
        return [r for r in self.results if r.status in (KILLED, SURVIVED)]

    def kill_rate(self) -> tuple[int, int]:
        counted = self.counted()
        return sum(r.status == KILLED for r in counted), len(counted)


# ---- the mutations ------------------------------------------------------------------------

def _lines_of(text: str, find: str) -> list[int]:
    lines, start = [], 0
    while (at := text.find(find, start)) >= 0:
        lines.append(text.count("\n", 0, at) + 1)
        start = at + 1
    return lines


def apply_mutation(text: str, mutation: Mutation, where: str) -> str:
    """text with the mutation's one change; where names the file in errors."""
    lines = _lines_of(text, mutation.find)
    entry = f"mutant {mutation.name!r} ({mutation.origin})"
    if not lines:
        raise MutationError(f"{entry}: its find text {mutation.find!r} does not occur in {where}; the "
                            f"solution changed: update the entry's find text to the code as it is now")
    if mutation.occurrence is None and len(lines) > 1:
        raise MutationError(f"{entry}: its find text {mutation.find!r} occurs {len(lines)} times in {where} "
                            f"(lines {', '.join(map(str, lines))}): add occurrence = N (1 to {len(lines)}) "
                            f"or make the find text longer")
    occurrence = mutation.occurrence or 1
    if not 1 <= occurrence <= len(lines):
        raise MutationError(f"{entry}: occurrence = {occurrence}, but its find text occurs {len(lines)} "
                            f"time(s) in {where}; use 1 to {len(lines)}")
    at = -1
    for _ in range(occurrence):
        at = text.find(mutation.find, at + 1)
    return text[:at] + mutation.replace + text[at + len(mutation.find):]


def automatic_mutations(lab_dir: Path) -> list[Mutation]:
    """The mutants every lab gets from its solution files alone."""
    found = []
    for path in sorted(lab_dir.glob("*.c")):
        text = path.read_text()
        for kind, pattern, replace in (("sync-dropped", _SYNC, lambda m: ";"),
                                       ("grid-rounded-down", _CEIL_DIV, lambda m: f"{m.group(1)} / {m.group(2)}")):
            for match in pattern.finditer(text):
                if _in_comment(text, match.start()):
                    continue
                find = match.group(0)
                occurrence = text.count(find, 0, match.start()) + 1  # non-overlapping is enough here
                function = _enclosing_function(text, match.start())
                # Named by the function and the place in it, not by line: an edit elsewhere in the
                # file must not rename the mutants that mutants.toml speaks of.
                nth = sum(1 for m in pattern.finditer(text[:match.start()])
                          if _enclosing_function(text, m.start()) == function and not _in_comment(text, m.start())) + 1
                found.append(Mutation(f"{kind}@{path.name}:{function}#{nth}", path.name, find, replace(match), kind,
                                      occurrence=occurrence))
    return found


_DEFINITION = re.compile(r"^[A-Za-z_][^;{}]*\(.*$", re.M)  # a line in column 0 with a '(' and no ';'
_NOT_A_NAME = {"if", "for", "while", "switch", "return", "sizeof", "__launch_bounds__", "__align__"}


def _enclosing_function(text: str, at: int) -> str:
    """The name of the function whose definition begins nearest before `at`, at the start of
    a line (the kit's C style: definitions start in column 0)."""
    name = "top"
    for match in _DEFINITION.finditer(text, 0, at):
        called = [n for n in re.findall(r"([A-Za-z_]\w*)\s*\(", match.group(0)) if n not in _NOT_A_NAME]
        if called:
            name = called[0]
    return name


def _in_comment(text: str, at: int) -> bool:
    line_start = text.rfind("\n", 0, at) + 1
    if "//" in text[line_start:at]:
        return True
    opened, closed = text.rfind("/*", 0, at), text.rfind("*/", 0, at)
    return opened > closed


def _str(raw: dict, key: str, where: str, required: bool = True) -> str | None:
    value = raw.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise MutationError(f"{where}: {key!r} must be a non-empty string (got {value!r})")
    return value


def load_mutations(lab: Lab, lab_dir: Path | None = None) -> list[Mutation]:
    """The lab's mutants: its data file's, then the automatic ones. Raises MutationError."""
    lab_dir = lab_dir or SOLUTIONS_DIR / lab.id
    if not lab_dir.is_dir():
        raise MutationError(f"{lab_dir} is missing: mutation testing needs the reference solution "
                            f"(the student edition of the kit has none)")
    path = lab_dir / DATA_FILE
    shown = f"solutions/{lab.id}/{DATA_FILE}"
    raw = {}
    if path.exists():
        try:
            raw = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as e:
            raise MutationError(f"{shown}: {e}") from None
    unknown = set(raw) - {"mutant", *AUTOMATIC_TABLES}
    if unknown:
        raise MutationError(f"{shown}: unknown table(s) {sorted(unknown)}; only [[mutant]], "
                            f"{', '.join(f'[{t}]' for t in AUTOMATIC_TABLES)}")
    declared = []
    for i, entry in enumerate(raw.get("mutant", []), 1):
        where = f"{shown}, mutant {i} ({entry.get('name', 'no name')!r})"
        extra = set(entry) - {"name", "file", "find", "replace", "kind", "occurrence", "equivalent", "caught_by", "note"}
        if extra:
            raise MutationError(f"{where}: unknown key(s) {sorted(extra)}")
        kind = _str(entry, "kind", where)
        if kind not in KINDS:
            raise MutationError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
        occurrence = entry.get("occurrence")
        if occurrence is not None and (not isinstance(occurrence, int) or occurrence < 1):
            raise MutationError(f"{where}: occurrence must be a whole number from 1 (got {occurrence!r})")
        replace = entry.get("replace")
        if not isinstance(replace, str):
            raise MutationError(f"{where}: 'replace' must be a string (\"\" removes the find text)")
        caught_by = _str(entry, "caught_by", where, required=False)
        if caught_by is not None and caught_by not in CHECKERS:
            raise MutationError(f"{where}: caught_by {caught_by!r} is not one of {', '.join(CHECKERS)}")
        mutation = Mutation(_str(entry, "name", where), _str(entry, "file", where), _str(entry, "find", where),
                            replace, kind, occurrence, _str(entry, "equivalent", where, required=False),
                            caught_by, _str(entry, "note", where, required=False), shown)
        if mutation.find == mutation.replace:
            raise MutationError(f"{where}: replace is the same as find: that changes nothing")
        if not (lab_dir / mutation.file).is_file() or "/" in mutation.file:
            raise MutationError(f"{where}: file {mutation.file!r} is not a file of solutions/{lab.id}/")
        declared.append(mutation)
    automatic = automatic_mutations(lab_dir)
    names = {m.name for m in automatic}
    for table_name in AUTOMATIC_TABLES:
        for name, value in raw.get(table_name, {}).items():
            if name not in names:
                raise MutationError(f"{shown}: [{table_name}] names {name!r}, but no automatic mutant has that "
                                    f"name (the file changed?); the automatic mutants are: {', '.join(sorted(names))}")
            if not isinstance(value, str) or not value:
                raise MutationError(f"{shown}: [{table_name}] {name!r} must be a non-empty string")
            if table_name == "caught_by" and value not in CHECKERS:
                raise MutationError(f"{shown}: [caught_by] {name!r} = {value!r} is not one of {', '.join(CHECKERS)}")
    automatic = [dataclasses.replace(m, **{t: raw.get(t, {}).get(m.name) for t in AUTOMATIC_TABLES})
                 for m in automatic]
    every = declared + automatic
    seen = set()
    for m in every:
        if m.name in seen:
            raise MutationError(f"{shown}: two mutants are named {m.name!r}; give each its own name")
        seen.add(m.name)
        apply_mutation((lab_dir / m.file).read_text(), m, f"solutions/{lab.id}/{m.file}")  # fails early
    return every


def write_mutant(lab: Lab, mutation: Mutation | None, lab_dir: Path, dest: Path) -> Path:
    """A copy of the solution folder with the one change (none: the reference itself) in
    dest/src/<lab>/, taken in as a submission into dest/submission/; returns the latter."""
    src = dest / "src" / lab.id
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(lab_dir, src)
    if mutation is not None:
        target = src / mutation.file
        target.write_text(apply_mutation(target.read_text(), mutation, f"solutions/{lab.id}/{mutation.file}"))
    return intake(dest / "src", lab, dest / "submission")


# ---- grading -----------------------------------------------------------------------------

def cases_for(lab: Lab, mutation: Mutation | None) -> list[Case]:
    """The cases that can tell this mutant from the reference: the public ones, then the optional
    ones (which run the reference's optional versions and explorations), of the program whose file
    it changes (all of them when the file is not one program's)."""
    cases = [c for c in lab.cases if c.group == PUBLIC] + [c for c in lab.cases if c.group == OPTIONAL]
    if mutation is None:
        return cases
    program = Path(mutation.file).stem
    return [c for c in cases if c.program == program] if program in lab.programs else cases


class MutantRunner:
    """Grades a lab's mutants one after the other in this process, sharing the harness build."""

    def __init__(self, lab: Lab, *, emu: bool, asan: bool = False, sandbox: str | None = None, log=print,
                 lab_dir: Path | None = None):
        self.lab, self.emu, self.asan, self.sandbox, self.log = lab, emu, asan, sandbox, log
        self.lab_dir = lab_dir or SOLUTIONS_DIR / lab.id
        self.limits: dict[str, float] = {}  # case -> the time limit a mutant gets there

    def _source(self, label: str, mutation: Mutation | None) -> Source:
        name = safe_id(f"{self.lab.id}-{label}")
        root = write_mutant(self.lab, mutation, self.lab_dir, MUTANTS_DIR / self.lab.id / name)
        return Source(f"sub-mutant-{name}", root, submission=True)

    def _grade(self, source: Source, cases: list[Case], stop_early: bool):
        """(results, the first result that is not AC or None)."""
        grader = Grader(self.lab, source, emu=self.emu, asan=self.asan, sandbox=self.sandbox, log=lambda *_: None)
        results = []
        for case in cases:  # one build: the first grade() makes it, the others reuse it
            limit = self.limits.get(case.name, case.time_limit_s)
            result = grader.grade([dataclasses.replace(case, time_limit_s=limit)]).results[0]
            if result.verdict == TLE and limit < case.time_limit_s:
                result.reason += f" (a mutant's limit: {MUTANT_TIME_LIMITS.describe()})"
            results.append(result)
            if result.verdict in (CE, IE):
                return results, result  # a build failure is the same for every case
            if stop_early and (result.verdict != AC or result.points < result.max_points):
                return results, result
        failed = next((r for r in results if r.verdict != AC or r.points < r.max_points), None)
        return results, failed

    def baseline(self) -> None:
        """Grades the unchanged reference through the same path; sets each case's limit."""
        self.log(f"{self.lab.id}: grading the unchanged reference first ...")
        source = self._source("reference", None)
        results, failed = self._grade(source, cases_for(self.lab, None), stop_early=False)
        if failed is not None:
            raise MutationError(f"the reference solution of {self.lab.id} does not get full marks through the "
                                f"mutant path: case {failed.case}: {failed.verdict} ({failed.reason}); fix the "
                                f"solution or the case before measuring mutants")
        for result in results:
            case = next(c for c in self.lab.cases if c.name == result.case)
            self.limits[case.name] = MUTANT_TIME_LIMITS.limit(case.time_limit_s, result.wall_s)

    def grade(self, mutation: Mutation) -> MutantResult:
        start = time.monotonic()
        try:
            source = self._source(mutation.name, mutation)
        except Exception as e:  # noqa: BLE001 - reported as this mutant's error, the run goes on
            return MutantResult(mutation, ERROR, reason=one_line(f"could not write the mutant: {e}"))
        try:
            results, failed = self._grade(source, cases_for(self.lab, mutation), stop_early=True)
        except Exception as e:  # noqa: BLE001 - the grader failed on this mutant: say so, go on with the next
            return MutantResult(mutation, ERROR, IE, reason=one_line(f"the grader failed on this mutant: "
                                                                       f"{type(e).__name__}: {e}"))
        finally:
            seconds = time.monotonic() - start
        if failed is None:
            status = EQUIVALENT if mutation.equivalent else SURVIVED
            return MutantResult(mutation, status, AC, "", f"full marks on {len(results)} case(s)", seconds)
        reason = one_line(failed.reason)
        if failed.verdict == CE:
            return MutantResult(mutation, STILLBORN, CE, failed.case, reason, seconds)
        if failed.verdict == IE:
            return MutantResult(mutation, ERROR, IE, failed.case, reason, seconds)
        result = MutantResult(mutation, EQUIVALENT if mutation.equivalent else KILLED, failed.verdict,
                              failed.case, reason, seconds)
        if mutation.equivalent:
            result.warning = "declared equivalent, yet it lost marks: the declaration is wrong (or a race decided)"
        return result


@contextmanager
def only_run_of(lab: Lab):
    """Refuses a second mutants run of the same lab at the same time: they share build/mutants/<lab>/."""
    try:
        with exclusive_lock(MUTANTS_DIR / f".{lab.id}.lock", wait=False):
            yield
    except BlockingIOError:
        raise MutationError(f"another `grader mutants {lab.id}` is running in this kit right now "
                            f"(it holds {MUTANTS_DIR}/.{lab.id}.lock); wait for it to finish") from None


def run_lab(lab: Lab, *, emu: bool, asan: bool = False, only: list[str] | None = None,
            sandbox: str | None = None, log=print, lab_dir: Path | None = None, jobs: int = 1) -> LabRun:
    """Grades the reference, then every mutant; `jobs` mutants at a time (each has its own folders,
    and each grading is subprocesses, so threads suffice). More than one shares the machine, and
    on a GPU the device: a mutant's time limits (10 x the reference's, at least 5 s) leave room."""
    mutations = load_mutations(lab, lab_dir)
    if only:
        names = {m.name for m in mutations}
        missing = [n for n in only if n not in names]
        if missing:
            raise MutationError(f"--only: lab {lab.id} has no mutant named {', '.join(map(repr, missing))}; "
                                f"`python3 -m grader mutants {lab.id} --list` lists them")
        mutations = [m for m in mutations if m.name in only]
    runner = MutantRunner(lab, emu=emu, asan=asan, sandbox=sandbox, log=log, lab_dir=lab_dir)
    run = LabRun(lab.id, emu, asan)
    with only_run_of(lab):
        runner.baseline()
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            graded = pool.map(runner.grade, mutations)  # in the mutations' order, as each finishes
            for i, (mutation, result) in enumerate(zip(mutations, graded), 1):
                run.results.append(result)
                log(f"  [{i}/{len(mutations)}] {mutation.name}: {result.status} {result.verdict} "
                    f"{result.case} ({result.seconds:.1f}s)")
    return run


# ---- the report --------------------------------------------------------------------------

def table(run: LabRun) -> str:
    rows = [(r.mutation.name, r.mutation.kind, r.verdict, r.case,
             r.status, one_line(r.mutation.equivalent or r.reason)[:REASON_CHARS]) for r in run.results]
    header = ("mutant", "kind", "verdict", "case", "status", "reason (equivalent: why)")
    widths = [max(len(row[i]) for row in rows + [header]) for i in range(5)]
    how = ("CPU emulation" if run.emu else "GPU") + (", ASan" if run.asan else "")
    lines = [f"{run.lab}: mutants of the reference solution ({how})"]
    for row in [header] + rows:
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[5])
    for r in run.results:
        if r.status == SURVIVED:
            m = r.mutation
            why = (f"; {CHECKERS[m.caught_by]}" if m.caught_by else f"; {one_line(m.note)}" if m.note
                   else "; no case tells it from the reference")
            if m.caught_by == "asan" and run.asan:
                why = "; survived even with ASan on: no case reaches the access it makes out of bounds?"
            lines.append(f"survivor {m.name}: in {m.file}, {one_line(m.find)!r} -> {one_line(m.replace)!r}{why}")
        if r.warning:
            lines.append(f"WARNING {r.mutation.name}: {r.warning}")
    stillborn = sum(r.status == STILLBORN for r in run.results)
    equivalent = sum(r.status == EQUIVALENT for r in run.results)
    errors = sum(r.status == ERROR for r in run.results)
    killed, counted = run.kill_rate()
    percent = f"{100 * killed / counted:.0f}%" if counted else "no mutants counted"
    lines.append(f"kill rate: {killed} of {counted} non-equivalent mutants ({percent}); "
                 f"{equivalent} equivalent, {stillborn} stillborn, {errors} not graded")
    return "\n".join(lines)


def to_json(run: LabRun) -> dict:
    killed, counted = run.kill_rate()
    return {"lab": run.lab, "emu": run.emu, "asan": run.asan, "killed": killed, "counted": counted,
            "mutants": [r.to_json() for r in run.results]}


def list_mutations(lab: Lab, lab_dir: Path | None = None) -> str:
    lines = []
    for m in load_mutations(lab, lab_dir):
        where = f" (occurrence {m.occurrence})" if m.occurrence and m.origin != "automatic" else ""
        eq = "".join(f"  [{label}: {value}]" for label, value in
                     (("equivalent", m.equivalent), ("caught by", m.caught_by), ("note", m.note)) if value)
        lines.append(f"{m.name:40s} {m.kind:18s} {m.file}{where}: {one_line(m.find)!r} -> {one_line(m.replace)!r}{eq}")
    return "\n".join(lines)


# ---- the command -------------------------------------------------------------------------

def cmd_mutants(args, fail) -> int:
    from grader.gpu import has_gpu
    lab = load_lab(args.lab)
    try:
        if args.list:
            print(list_mutations(lab))
            return 0
        if args.gpu and args.asan:
            return fail("--asan is for the CPU emulator; on a GPU the grader's --sanitize runs memcheck")
        if args.gpu and not has_gpu():
            return fail("--gpu: no CUDA GPU found on this machine (nvidia-smi lists none); "
                        "leave --gpu out to grade the mutants under the CPU emulator")
        if args.jobs < 1:
            return fail(f"--jobs {args.jobs}: grade at least one mutant at a time")
        run = run_lab(lab, emu=not args.gpu, asan=args.asan, only=args.only, sandbox=args.sandbox,
                      log=(lambda *_: None) if args.quiet else lambda line: print(line, flush=True),
                      jobs=args.jobs)
    except MutationError as e:
        return fail(str(e))
    print(table(run))
    if args.json:
        args.json.write_text(json.dumps(to_json(run), indent=2) + "\n")
    return 1 if any(r.status in (STILLBORN, ERROR) for r in run.results) else 0


def add_parser(sub, fail) -> None:
    p = sub.add_parser("mutants", help="kill rate of the lab's cases on mutants of the reference solution")
    p.add_argument("lab")
    p.add_argument("--gpu", action="store_true", help="grade on the GPU (default: the CPU emulator)")
    p.add_argument("--asan", action="store_true", help="with the emulator: AddressSanitizer on (as check --asan)")
    p.add_argument("--only", nargs="+", metavar="NAME", help="only these mutants (names from --list)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="grade N mutants at a time (default 1; on a GPU the builds gain most)")
    p.add_argument("--list", action="store_true", help="list the mutants and grade nothing")
    p.add_argument("--json", type=Path, metavar="FILE", help="write the results as JSON too")
    p.add_argument("--quiet", action="store_true", help="print only the table")
    p.add_argument("--sandbox", choices=MODES, default=None,
                   help="as for check (default: auto, or LABKIT_SANDBOX)")
    p.set_defaults(func=lambda args: cmd_mutants(args, fail))
