"""What a bundle carries: the kit as a student may see it, and the lab's cases and points.

The kit's files are the student edition's (`make dist-student`: no solutions, answers, tests or
secrets), chosen by the kit's own edition code, plus this package. The lab's cases and points
come from the kit (grader.labs.load_lab and testcases/<lab>/cases.toml): nothing here names a lab.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

KIT_ROOT = Path(__file__).resolve().parent.parent
# What grading under the emulator needs on a bare Debian or Ubuntu (the packages of
# grader/deps.py that the tests alone need are left out); python3 must be 3.11 or newer.
TEST_ONLY_PACKAGES = {"libgtest-dev", "pandoc", "graphviz"}
FALLBACK_PACKAGES = ("g++", "make", "bubblewrap", "libboost-context-dev")
CONFIG_NAME = "lms-lab.json"
TIMING_NOTE = ("Graded under the kit's CPU emulator, because this grader has no GPU: correctness only. "
               "Timing is not graded here (a CPU's times say nothing about a GPU's); your course grades "
               "timing on its GPU cluster.")


class BundleError(Exception):
    """A bundle that cannot be made; the message says what failed and what to do."""


def _edition_module():
    """The kit's edition packer, wherever this kit keeps it (grader/dist.py, or authoring/dist.py)."""
    for name in ("authoring.dist", "grader.dist"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise BundleError("cannot find the kit's edition code (authoring/dist.py or grader/dist.py), which "
                      "says what the student edition holds; check that this is a complete kit checkout")


LAB_TREES = ("labs", "starter", "solutions", "testcases")


def other_labs_file(rel: str, lab: str, labs: set[str]) -> bool:
    """Whether `rel` belongs to a lab other than `lab`: its folder in one of the lab trees, or its
    handout. A bundle for one lab carries that lab's cases and handout alone."""
    parts = rel.split("/")
    if len(parts) >= 3 and parts[0] in LAB_TREES and parts[1] in labs:
        return parts[1] != lab
    if parts[0] == "handouts" and parts[-1].endswith((".md", ".html")):
        return parts[-1].rsplit(".", 1)[0] in labs - {lab}
    return False


def student_kit_files(root: Path = KIT_ROOT, lab: str | None = None) -> list[str]:
    """Kit-relative paths of the student edition's files, plus lms/ itself (committed or not);
    with `lab`, less every other lab's folders and handouts."""
    dist = _edition_module()
    try:
        files, _left_out = dist.edition_files("student", root)
    except Exception as e:  # the edition code is another module's: say where it failed
        raise BundleError(f"the kit's edition code ({dist.__name__}.edition_files) failed: {e}") from None
    own = [p.relative_to(root).as_posix() for p in sorted((root / "lms").rglob("*"))
           if p.is_file() and not p.is_symlink() and "__pycache__" not in p.parts]
    if lab is not None:
        labs = {p.parent.name for p in (root / "labs").glob("*/lab.toml")}
        files = [rel for rel in files if not other_labs_file(rel, lab, labs)]
    return sorted(set(files) | set(own))


def check_no_secret(files: list[str], secret: bytes | None, root: Path = KIT_ROOT) -> None:
    """Refuses a kit file that holds the instructor's secret (it would reach students)."""
    if not secret:
        return
    for rel in files:
        if secret in (root / rel).read_bytes():
            raise BundleError(f"{rel} holds the instructor's hidden-case secret: take it out of the kit "
                              f"and make a new secret (python3 -m grader secret)")


def grading_packages() -> list[str]:
    """The Debian/Ubuntu packages grading under the emulator needs, from the kit's deps list."""
    try:
        deps = importlib.import_module("grader.deps")
        packages = [p for p in deps.DEBIAN if p not in TEST_ONLY_PACKAGES]
    except (ImportError, AttributeError):
        packages = list(FALLBACK_PACKAGES)
    return sorted(set(packages) | {"python3"})


@dataclass(frozen=True)
class CaseInfo:
    name: str
    points: float
    hidden: bool = False
    time_limit_s: float = 60.0


@dataclass(frozen=True)
class LabInfo:
    """What a bundle knows of its lab; written into it as lms-lab.json."""
    lab: str
    title: str
    programs: list[str]
    cases: list[CaseInfo]
    hidden_cases: bool  # the bundle carries a secret: hidden cases are graded
    budget_s: int  # the most one grading may take, all cases and the build together
    kit_version: str = ""
    packages: list[str] = field(default_factory=list)

    @property
    def max_score(self) -> float:
        return sum(c.points for c in self.cases)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2) + "\n"

    @staticmethod
    def from_json(text: str) -> "LabInfo":
        raw = json.loads(text)
        raw["cases"] = [CaseInfo(**c) for c in raw["cases"]]
        return LabInfo(**raw)


def lab_info(lab_id: str, *, with_hidden: bool, root: Path = KIT_ROOT) -> LabInfo:
    """The lab's public cases (the ones `make check` runs) and, with a secret, its hidden ones."""
    from grader.labs import PUBLIC, ConfigError, load_lab
    try:
        lab = load_lab(lab_id)
    except ConfigError as e:
        raise BundleError(str(e)) from None
    graded = [c for c in lab.cases if c.group == PUBLIC]
    cases = [CaseInfo(c.name, c.points, False, c.time_limit_s) for c in graded]
    if with_hidden:
        from grader.hidden import HIDDEN_GROUP, hidden_cases
        if not lab.hidden_recipes:
            raise BundleError(f"a secret was given but testcases/{lab.id}/cases.toml has no [[hidden]] "
                              f"recipes: leave SECRET_FILE out for lab {lab.id}, or add recipes")
        graded += hidden_cases(lab, None)
        cases += [CaseInfo(c.name, c.points, True, c.time_limit_s) for c in graded if c.group == HIDDEN_GROUP]
    from grader import KIT_VERSION
    from grader.budget import grading_budget  # the grader's own, from its plans: bundles grade under the emulator
    budget = grading_budget(lab, graded, emu=True, gpus=0).total_s
    return LabInfo(lab.id, lab.title, list(lab.programs), cases, with_hidden, budget, KIT_VERSION,
                   grading_packages())


def read_secret(path: Path | None) -> bytes | None:
    if path is None:
        return None
    try:
        value = Path(path).read_bytes().strip()
    except OSError as e:
        raise BundleError(f"cannot read the secret file {path}: {e.strerror}; make one with "
                          f"python3 -m grader secret > FILE") from None
    if len(value) < 16:
        raise BundleError(f"the secret in {path} has {len(value)} characters; use at least 16 "
                          f"(python3 -m grader secret prints a fresh one)")
    return value
