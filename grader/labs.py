"""A lab's configuration: labs/<lab>/lab.toml and its testcases, testcases/<lab>/cases.toml.

The labs are the folders that hold a lab.toml; nothing else lists them.
"""

from __future__ import annotations

import functools
import importlib.util
import tomllib
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from grader.limits import LabLimits
from grader.paths import KIT_ROOT, LABS_DIR, STARTER_DIR, TESTCASES_DIR
from grader.evidence.rules import EvidenceConfigError, EvidenceRules
from grader.evidence.rules import parse_rules as parse_evidence
from grader.work import CheckFunction, WorkConfigError, WorkRules, parse_rules

WORK_CHECKS_FILE = "work_checks.py"  # labs/<lab>/work_checks.py: the lab's own work checks


class ConfigError(Exception):
    """A lab.toml or cases.toml that is missing or malformed; the message says where."""


# A case's group says who runs it. The optional cases check the optional versions and the
# explorations of the reference (a faster kernel, another version of a program): a student's stub there
# is no fault, so they are worth nothing; they keep the kit's own code honest (grader mutants).
PUBLIC, LARGE, OPTIONAL = "public", "large", "optional"
CASE_GROUPS = {
    PUBLIC: "small: make check runs them, under the emulator too",
    LARGE: "GPU-sized: --cases all",
    OPTIONAL: "the optional versions and explorations, 0 points: --cases optional, and grader mutants",
}
# What `grader check --cases` and `grader batch --cases` take.
CASE_SELECTIONS = {PUBLIC: (PUBLIC,), LARGE: (LARGE,), "all": (PUBLIC, LARGE), OPTIONAL: (OPTIONAL,)}


@dataclass(frozen=True)
class Compare:
    format: str = "f32"  # f32 | i32 | text
    rtol: float = 0.0
    atol: float = 0.0
    matrix: bool = False  # the output is a square matrix (a wrong entry named by row and column)


@dataclass(frozen=True)
class Timing:
    metric: str = "kernel_ms"  # a figure from the program's result file, or "wall_ms"
    slow_factor: float = 0.0  # SLOW if metric > slow_factor x the reference's (0: no check)
    slow_credit: float = 0.5  # fraction of the points a SLOW case keeps


@dataclass(frozen=True)
class Sanitize:
    """[sanitize]: what a grading on a GPU checks beyond the output, on a few small cases
    (grader/sanitize.py); a finding makes an otherwise right case RE."""
    cases: tuple[str, ...] = ()  # the cases checked (none named: the first public case)
    racecheck: bool = False  # compute-sanitizer's shared-memory race check
    synccheck: bool | None = None  # barriers misused (unset: as racecheck)
    # The cases again under the emulator's checks: built with AddressSanitizer, run with its race
    # detector (EMU_RACECHECK=1), which takes a store of the value already there for the read it
    # is. For labs whose seed code stores unchanged values while other threads read them,
    # which racecheck counts as hazards, and whose races slip past a GPU's schedule.
    emulator_checks: bool = False


@dataclass(frozen=True)
class Case:
    name: str
    group: str  # one of CASE_GROUPS
    program: str
    args: tuple[str, ...]
    points: float
    time_limit_s: float
    params: dict = field(default_factory=dict)
    input: str | None = None  # committed input file, relative to testcases/<lab>/
    expected: str | None = None  # committed expected output, relative to testcases/<lab>/
    input_sha256: str | None = None  # generated cases: what the generator must reproduce
    expected_sha256: str | None = None
    compare: Compare | None = None  # overrides the lab's
    timed: bool = False  # timing threshold applies


@dataclass(frozen=True)
class Lab:
    id: str
    title: str
    programs: tuple[str, ...]
    compare: Compare
    timing: Timing
    cases: tuple[Case, ...]
    bench: tuple[tuple[str, ...], ...]  # argument lists run by `make bench`, program first
    build: dict
    # [bench] emu_runs: the same runs at sizes the CPU emulator finishes in about a minute in all
    emu_bench: tuple[tuple[str, ...], ...] = ()
    # figure -> the most a timed case may report, e.g. time_vs_baseline (a tiled kernel's over the naive one's)
    margins: dict = field(default_factory=dict)
    limits: LabLimits = LabLimits()  # [limits]: what a case may use (grader/limits.py)
    sanitize: Sanitize = Sanitize()
    symbols: dict = field(default_factory=dict)  # [symbols]: forbid / allow (grader/symbols.py)
    # [devices]: programs that must work on any number of GPUs, and the counts each is graded on
    multi_device_programs: tuple[str, ...] = ()
    device_counts: tuple[int, ...] = ()
    no_peer_counts: tuple[int, ...] = ()  # of those, the counts emulated without peer access
    hidden_recipes: tuple[dict, ...] = ()  # cases.toml's [[hidden]] (grader/hidden.py draws the cases)
    instructor_only: tuple[str, ...] = ()  # [dist]: kit-relative globs the student edition leaves out
    # What of the kit no student sees (the edition leaves it out, a sandbox hides it): the files
    # those globs name, found when the lab is loaded.
    instructor_only_files: tuple[Path, ...] = ()
    work: WorkRules = WorkRules()  # [work]: what the run must have done (grader/work.py)
    evidence: EvidenceRules = EvidenceRules()  # [evidence]: the GPU record against the emulated run

    @property
    def testcases_dir(self) -> Path:
        return TESTCASES_DIR / self.id


def lab_ids() -> list[str]:
    return sorted(p.parent.name for p in LABS_DIR.glob("*/lab.toml"))


def _read_toml(path: Path) -> dict:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"{path} is missing") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: {e}") from None


def _case(raw: dict, where: str, lab_compare: Compare) -> Case:
    group = raw.get("group", PUBLIC)
    if group not in CASE_GROUPS:
        raise ConfigError(f"{where}: case {raw.get('name', '?')!r} has group {group!r}; a group is one of "
                          + "; ".join(f"{g} ({meaning})" for g, meaning in CASE_GROUPS.items()))
    if group == OPTIONAL and float(raw.get("points", 0)) != 0:
        raise ConfigError(f"{where}: case {raw.get('name', '?')!r} is optional, so it is worth 0 points "
                          f"(a student's stub of an optional part is no fault); say points = 0")
    try:
        compare = Compare(**{**lab_compare.__dict__, **raw["compare"]}) if "compare" in raw else None
        return Case(
            name=raw["name"],
            group=group,
            program=raw["program"],
            args=tuple(str(a) for a in raw["args"]),
            points=float(raw.get("points", 0 if group == OPTIONAL else 1)),
            time_limit_s=float(raw.get("time_limit_s", 60)),
            params=dict(raw.get("params", {})),
            input=raw.get("input"),
            expected=raw.get("expected"),
            input_sha256=raw.get("input_sha256"),
            expected_sha256=raw.get("expected_sha256"),
            compare=compare,
            timed=bool(raw.get("timed", False)),
        )
    except (KeyError, TypeError) as e:
        raise ConfigError(f"{where}: case {raw.get('name', '?')!r} is malformed ({e})") from None


def _table(kind, config: dict, name: str, lab_id: str):
    """A lab.toml table as its dataclass; an unknown key is a ConfigError naming it."""
    try:
        return kind(**config.get(name, {}))
    except TypeError as e:
        raise ConfigError(f"labs/{lab_id}/lab.toml: [{name}] {e}") from None


def _sanitize(config: dict, lab_id: str, cases: tuple[Case, ...]) -> Sanitize:
    raw = config.get("sanitize", {})
    sanitize = _table(Sanitize, {"sanitize": {**raw, "cases": tuple(raw.get("cases", ()))}}, "sanitize", lab_id)
    unknown = [name for name in sanitize.cases if name not in {c.name for c in cases}]
    if unknown:
        raise ConfigError(f"labs/{lab_id}/lab.toml: [sanitize] cases names {', '.join(unknown)}, "
                          f"not a case of testcases/{lab_id}/cases.toml")
    return sanitize


def _evidence(config: dict, lab_id: str) -> EvidenceRules:
    try:
        return parse_evidence(config.get("evidence", {}), f"labs/{lab_id}/lab.toml")
    except EvidenceConfigError as e:
        raise ConfigError(str(e)) from None


def lab_work_checks(lab_id: str) -> dict[str, CheckFunction]:
    """The CHECKS of labs/<lab>/work_checks.py (none where the lab has no such file): the checks
    that are about this lab alone, which lab.toml's [[work.check]] names (grader/work.py)."""
    path = LABS_DIR / lab_id / WORK_CHECKS_FILE
    if not path.is_file():
        return {}
    stat = path.stat()
    return _load_work_checks(path, f"labs/{lab_id}/{WORK_CHECKS_FILE}", stat.st_mtime_ns, stat.st_size)


@functools.cache
def _load_work_checks(path: Path, where: str, mtime_ns: int, size: int) -> dict[str, CheckFunction]:
    """Loaded once a version of the file: every load_lab of a grading gets the same functions."""
    name = f"labkit_work_checks_{path.parent.name}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # the kit's own file: whatever it raises is a fault to fix there
        frames = [frame for frame in traceback.extract_tb(e.__traceback__) if frame.filename == str(path)]
        line = f":{frames[-1].lineno}" if frames else ""
        raise ConfigError(f"{where}{line} does not load ({type(e).__name__}: {e}): fix it there") from None
    checks = getattr(module, "CHECKS", None)
    if not isinstance(checks, dict) or not all(isinstance(k, str) and callable(f) for k, f in checks.items()):
        raise ConfigError(f"{where} must define CHECKS, a dict from each check's name (as lab.toml's "
                          f"[[work.check]] says it) to its function (profile, facts, settings) -> str | None")
    return checks


def _limits(config: dict, lab_id: str) -> LabLimits:
    """lab.toml's [limits] (what one run of a case may use beyond its time: grader/limits.py)."""
    raw = config.get("limits", {})
    unknown = set(raw) - {"output_mb", "processes", "memory_mb"}
    if unknown:
        raise ConfigError(f"labs/{lab_id}/lab.toml: [limits] has unknown keys {sorted(unknown)}")
    return LabLimits(**raw)


def _work(config: dict, lab_id: str, own_checks: dict[str, CheckFunction]) -> WorkRules:
    try:
        return parse_rules(config.get("work", {}), f"labs/{lab_id}/lab.toml", own_checks,
                           f"labs/{lab_id}/{WORK_CHECKS_FILE}")
    except WorkConfigError as e:
        raise ConfigError(str(e)) from None


def load_lab(lab_id: str) -> Lab:
    if lab_id not in lab_ids():
        raise ConfigError(f"no lab named {lab_id!r}; the labs are: {', '.join(lab_ids())}")
    config = _read_toml(LABS_DIR / lab_id / "lab.toml")
    compare = _table(Compare, config, "compare", lab_id)
    timing = _table(Timing, config, "timing", lab_id)
    cases_path = TESTCASES_DIR / lab_id / "cases.toml"
    cases_toml = _read_toml(cases_path)
    raw_cases = cases_toml.get("case", [])
    cases = tuple(_case(raw, str(cases_path), compare) for raw in raw_cases)
    for case in cases:
        if case.expected is None and case.expected_sha256 is None:
            raise ConfigError(f"{cases_path}: case {case.name!r} needs an expected output file or "
                              f"an expected_sha256 (python3 -m grader cases {lab_id} --print-sha)")
    names = [c.name for c in cases]
    if len(set(names)) != len(names):
        raise ConfigError(f"{cases_path}: two cases share a name")
    programs = tuple(sorted(p.stem for p in (STARTER_DIR / lab_id).glob("*.c")))
    for case in cases:
        if case.program not in programs:
            raise ConfigError(f"{cases_path}: case {case.name!r} runs {case.program!r}, "
                              f"which is not one of the lab's programs {programs}")
    devices = config.get("devices", {})
    device_counts = tuple(int(c) for c in devices.get("counts", [2, 3]))
    no_peer_counts = tuple(int(c) for c in devices.get("without_peer_access", []))
    if not set(no_peer_counts) <= set(device_counts):
        raise ConfigError(f"labs/{lab_id}/lab.toml: [devices] without_peer_access {list(no_peer_counts)} names a "
                          f"count that is not in counts {list(device_counts)}")
    # This file's own readers first, then the tables other modules read (evidence, work).
    sanitize = _sanitize(config, lab_id, cases)
    instructor_only = read_instructor_only(config, f"labs/{lab_id}/lab.toml")
    limits = _limits(config, lab_id)
    own_checks = lab_work_checks(lab_id)
    evidence = _evidence(config, lab_id)
    work = _work(config, lab_id, own_checks)
    return Lab(
        id=lab_id,
        title=config.get("title", lab_id),
        programs=programs,
        compare=compare,
        timing=timing,
        cases=cases,
        bench=tuple(tuple(str(a) for a in run) for run in config.get("bench", {}).get("runs", [])),
        build=config.get("build", {}),
        emu_bench=tuple(tuple(str(a) for a in run) for run in config.get("bench", {}).get("emu_runs", [])),
        margins={name: float(most) for name, most in config.get("margins", {}).items()},
        limits=limits,
        sanitize=sanitize,
        symbols={key: [str(p) for p in config.get("symbols", {}).get(key, [])] for key in ("forbid", "allow")},
        multi_device_programs=tuple(devices.get("programs", [])),
        device_counts=device_counts,
        no_peer_counts=no_peer_counts,
        hidden_recipes=tuple(cases_toml.get("hidden", [])),
        instructor_only=instructor_only,
        instructor_only_files=tuple(sorted({path for pattern in instructor_only for path in KIT_ROOT.glob(pattern)})),
        work=work,
        evidence=evidence,
    )


def read_instructor_only(config: dict, where: str) -> tuple[str, ...]:
    """lab.toml's [dist] instructor_only: kit-relative globs (the one reader of [dist])."""
    patterns = config.get("dist", {}).get("instructor_only", [])
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise ConfigError(f"{where}: [dist] instructor_only must be a list of kit-relative globs")
    return tuple(patterns)
