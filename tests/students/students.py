"""The student corpus: submissions written the way students write them, each a folder
<lab>/<name>/ that the grader takes as it is (`python3 -m grader check <lab> --submission
tests/students/<lab>/<name> --emu`). expectations.toml says what each one is and what it must
get; this module reads that table and grades. test_students.py checks the table on a few
public cases a lab (CASES below), grade_all.py grades every public case and prints one line a
submission.

The table, one [name] entry a submission:
    lab        the lab id
    what       one line: what it is (the seed's file name for a transcription)
    programs   optional: the programs it was written for (default: all of the lab's); the
               others are left as the starter has them (bfs: frontier.c, the optional stretch)
    cases      optional: only these of CASES[lab] (a submission that never ends costs each case
               its whole time limit twice: the profiled run, then the plain one)
    time_limit_s  optional: the graded cases' own time limit, lower than lab.toml's (the grader
               takes the lower of it and its rule's), for a submission that never ends
    known_gap  optional: why the grader does not yet give what the table asks (a grader bug, a
               missing check). The test then still requires every listed case to lose its points,
               and expects the rest to fail until the grader is fixed (strict: it says when).
    flaky      optional: why the verdict depends on the run (a race between host threads):
               test_students.py skips it, saying so; grade_all.py grades it as any other
    requires   optional: "racecheck" (the emulator's race detector, EMU_RACECHECK) or
               "removed-api" (a build that refuses cudaThreadSynchronize): the test is skipped,
               with the reason, where this tree does not have it yet
    [[name.fail]]  each case (of CASES[lab]) that must lose its points: case, verdict (one or a
               list of the acceptable ones), reason (words that must all be in the reason).
               Every other case of CASES[lab] must be AC.
"""

from __future__ import annotations

import dataclasses
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
KIT = HERE.parent.parent
sys.path.insert(0, str(KIT))

from grader.grade import Grader  # noqa: E402
from grader.intake import Source
from grader.labs import load_lab  # noqa: E402
from grader.testing import hand_in  # noqa: E402

TABLE = HERE / "expectations.toml"

# The public cases test_students.py grades every submission of a lab on: few and small, so the
# whole corpus stays within CI's minutes, and the same for every submission of a lab, so the
# reference solution's times (the time limits) are measured once a lab.
CASES = {
    "increment": ["n1", "small", "ragged"],
    "matmul": ["naive-n17", "tiled-n17", "tiled-n64-8"],
    "fw": ["spot-check-4", "dircycle-100"],
    "apsp": ["cpu-g05-one-past", "gpu-g05-one-past", "multigpu-g01-sparse"],
    "bfs": ["bfs-lecture", "bfs-chain", "frontier-lecture", "frontier-chain"],
    "nbody": ["naive-cube-100", "tiled-cube-100"],
    "spmv": ["row-powerlaw", "element-powerlaw", "hybrid-powerlaw"],
}


@dataclass(frozen=True)
class Fail:
    case: str
    verdicts: tuple[str, ...]
    reason: tuple[str, ...]  # all of these words in the reason


@dataclass(frozen=True)
class Expectation:
    name: str
    lab: str
    what: str
    programs: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()
    time_limit_s: float | None = None
    requires: str = ""
    known_gap: str = ""
    flaky: str = ""
    fails: tuple[Fail, ...] = field(default_factory=tuple)

    @property
    def folder(self) -> Path:
        return HERE / self.lab / self.name


def load_table(path: Path = TABLE) -> dict[str, Expectation]:
    table = {}
    for name, raw in tomllib.loads(path.read_text()).items():
        fails = []
        for f in raw.get("fail", []):
            verdicts = f["verdict"] if isinstance(f["verdict"], list) else [f["verdict"]]
            reason = f.get("reason", [])
            fails.append(Fail(f["case"], tuple(verdicts), tuple([reason] if isinstance(reason, str) else reason)))
        table[name] = Expectation(name, raw["lab"], raw["what"], tuple(raw.get("programs", [])),
                                  tuple(raw.get("cases", [])), raw.get("time_limit_s"), raw.get("requires", ""),
                                  raw.get("known_gap", ""), raw.get("flaky", ""), tuple(fails))
    return table


def missing_requirement(requires: str) -> str | None:
    """Why this tree cannot check the expectation yet, or None when it can."""
    if requires == "racecheck":
        if not any("EMU_RACECHECK" in p.read_text(errors="replace")
                   for p in (KIT / "labs" / "emu").rglob("*") if p.is_file() and p.suffix in (".cpp", ".h", ".hpp", ".cc")):
            return ("the emulator's race detector (EMU_RACECHECK) is not in labs/emu yet: without it only "
                    "the random-order pass can catch this race, and it may not")
    elif requires == "removed-api":
        header = KIT / "labs" / "emu" / "include" / "cuda_runtime_api.h"
        if header.exists() and "cudaThreadSynchronize" in header.read_text():
            return ("the emulator still declares cudaThreadSynchronize (labs/emu/include/cuda_runtime_api.h), "
                    "so the build does not fail as nvcc's does")
    elif requires:
        return f"unknown requirement {requires!r} in expectations.toml"
    return None


def cases_for(expect: Expectation) -> list[str]:
    """CASES[lab], less the cases of programs the submission was not written for."""
    lab = load_lab(expect.lab)
    programs = set(expect.programs or lab.programs)
    by_name = {c.name: c for c in lab.cases}
    return [name for name in CASES[expect.lab]
            if by_name[name].program in programs and (not expect.cases or name in expect.cases)]


def handed_in(expect: Expectation) -> Path:
    """The submission's folder as the grader takes a handed-in one (testing.hand_in)."""
    return hand_in(f"student-{expect.name}", expect.folder)


def grade(expect: Expectation, cases: list[str] | None = None, *, emu: bool = True, checks: bool = True):
    """Grades one submission on the named cases (all public cases of its programs when None);
    returns the grader's Report. checks=False: as the grader's --no-checks."""
    lab = load_lab(expect.lab)
    grader = Grader(lab, Source(f"sub-student-{expect.name}", handed_in(expect), submission=True), emu=emu,
                    log=lambda *_: None, checks=checks)
    if cases is None:
        programs = set(expect.programs or lab.programs)
        grader.cases = [c for c in grader.cases if c.program in programs]
    else:
        by_name = {c.name: c for c in lab.cases}
        grader.cases = [dataclasses.replace(by_name[c]) for c in cases]
    if expect.time_limit_s is not None:
        grader.cases = [dataclasses.replace(c, time_limit_s=min(c.time_limit_s, expect.time_limit_s))
                        for c in grader.cases]
    return grader.grade()


def problems(expect: Expectation, report) -> list[str]:
    """What in the report contradicts the table (empty: as expected)."""
    found = []
    wanted = {f.case: f for f in expect.fails}
    for result in report.results:
        fail = wanted.get(result.case)
        if fail is None:
            if result.verdict != "AC":
                found.append(f"{result.case}: got {result.verdict} ({result.reason}), wanted AC")
        elif result.verdict not in fail.verdicts or not all(w in result.reason for w in fail.reason):
            found.append(f"{result.case}: got {result.verdict} ({result.reason}), wanted "
                         f"{'/'.join(fail.verdicts)} with {list(fail.reason)}")
    return found


def lost_points(expect: Expectation, report) -> list[str]:
    """The listed cases that did not lose their points (the least a known gap must still give)."""
    wanted = {f.case for f in expect.fails}
    return [f"{r.case}: got {r.verdict} ({r.reason})" for r in report.results if r.case in wanted and r.verdict == "AC"]
