"""Work requirements: a right answer is not enough, the lab's work must have made it.

lab.toml's [work] says what each lab asks; this module judges it from the emulator's profile of
the run (EMU_PROFILE, labs/emu/src/engine/profiler.h), a pure function of the profile, the
case and the rules (tests: grader/tests/test_work.py). Not met: the verdict WORK, with a reason
that names what is missing, and the case keeps lab.toml's `credit` share of its points.

    [work]
    computed_by_kernels = "all"    # every byte of the result last written by a kernel ("all"),
                                   # some of it ("any": a kernel updates what the host uploaded),
                                   # or "off"; either way never computed or changed on the host
    programs = ["gpu"]             # the programs it applies to (default: every one)
    exempt_cases = ["gpu-c01-one-vertex"]   # cases that leave a kernel nothing to write
    credit = 0.0                   # share of a case's points kept when a requirement is not met

    input_header = ["n", "m"]      # the input file opens with these int32 sizes (the facts n, m)

    [[work.check]]                 # more checks, each on the cases whose params match `when`
    check = "tiled_in_shared"      # the lab's own (labs/<lab>/work_checks.py) or one below
    when = { kernel = "tiled" }    # case params, or "program"
    max_global_fraction = 0.25     # the check's own settings

A check about CUDA in general is here (GENERIC_CHECKS), worded without any lab's nouns. A check
about one lab is that lab's: labs/<lab>/work_checks.py defines functions
`name(profile, facts, settings) -> str | None` (None when met, else the student-facing reason) and
`CHECKS = {"name": name, ...}`, reading the profile with the helpers below (student_launches,
total, kernels); grader/labs.py loads it, and a name is looked up there first, then here. Their
tests are the lab's: tests/<lab>/.

Whose work is whose: the profile marks each launch and each copy with its origin, "harness" where
the trusted build of the kit's own sources made it (they alone are compiled with
-DCUDAEMU_HARNESS: the Makefile's harness objects, labs/emu/CONTRACT.md), else "program"; a file
name decides nothing (a student's `#line 1 "labs/common/device.cu"` changes only what a reason shows).
Code in the student's process can forge the mark (tests/hostile/forged_origin does), so the mark
may only ever cost them where it can: the harness launches no kernel in a graded case, so a
harness launch in one is refused (judge), and a harness kernel's bytes are never counted as the
kernels' (computed_by_kernels), and a result no kernel wrote fails even when a copy marked as the
harness's wrote it ("any" mode): the cases where the harness's upload is the answer are named in
the lab's exempt_cases.

Where the profile comes from: under the emulator, the first run of each case writes it into its
work folder (grade.py's run_case sets EMU_PROFILE; the case's other runs, in a random order or
on other device counts, make none). A GPU run has none: on a GPU node each case that is not
GPU-sized runs once more under the emulated build (case_grade.py, CaseGrader._work_on_gpu_node).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from grader.labs import Case

WORK = "WORK"  # the verdict (grader/verdict.py)
PROFILE_NAME = "profile.json"
HARNESS_ORIGIN = "harness"  # a launch's or writer's "origin" when the kit's harness made it (profile_report.cpp)


class WorkConfigError(Exception):
    """lab.toml's [work] is wrong: the message says where and what to write."""


# (profile, facts, settings) -> None when met, else the reason
CheckFunction = Callable[[dict, "CaseFacts", dict], "str | None"]
HEADER_FACTS = ("n", "m")  # what [work] input_header may name: CaseFacts' sizes


@dataclass(frozen=True)
class ForCases:
    """A lab.toml table that applies to the cases whose params match its `when` ([[work.check]],
    [[evidence.case]], [evidence.timing]): each key a case param (case_options'), or "program";
    a value of "" matches a case without that param: when = { kernel = "tiled", baseline = "" }."""
    when: dict

    def applies(self, params: dict, program: str) -> bool:
        return all(program == value if key == "program" else params.get(key, "") == value
                   for key, value in self.when.items())


@dataclass(frozen=True)
class Check(ForCases):
    name: str
    settings: dict
    run: CheckFunction


@dataclass(frozen=True)
class WorkRules:
    computed_by_kernels: str = "off"
    programs: tuple[str, ...] = ()
    exempt_cases: tuple[str, ...] = ()
    credit: float = 0.0
    checks: tuple[Check, ...] = field(default_factory=tuple)
    input_header: tuple[str, ...] = ()  # the int32 sizes the input file opens with, in order

    @property
    def active(self) -> bool:
        return self.computed_by_kernels != "off" or bool(self.checks)


def parse_rules(table: dict, where: str, own_checks: dict[str, CheckFunction] | None = None,
                own_file: str = "labs/<lab>/work_checks.py") -> WorkRules:
    """lab.toml's [work] table; WorkConfigError names the key that is wrong. `own_checks` are the
    lab's own (the CHECKS of `own_file`), looked up before the generic ones."""
    mode = table.get("computed_by_kernels", "off")
    if mode not in ("all", "any", "off"):
        raise WorkConfigError(f"{where}: [work] computed_by_kernels = {mode!r}: use \"all\", \"any\" or \"off\"")
    known = {**GENERIC_CHECKS, **(own_checks or {})}
    checks = []
    for raw in table.get("check", []):
        name = raw.get("check")
        if name not in known:
            raise WorkConfigError(
                f"{where}: [[work.check]] check = {name!r} is neither the lab's own (CHECKS in {own_file}: "
                f"{', '.join(sorted(own_checks or {})) or 'none'}) nor a generic one (grader/work.py: "
                f"{', '.join(sorted(GENERIC_CHECKS))}): write it in {own_file}, or use one of those")
        settings = {k: v for k, v in raw.items() if k not in ("check", "when")}
        checks.append(Check(dict(raw.get("when", {})), name, settings, known[name]))
    header = tuple(table.get("input_header", ()))
    if not set(header) <= set(HEADER_FACTS) or len(set(header)) != len(header):
        raise WorkConfigError(f"{where}: [work] input_header = {list(header)}: name each of "
                              f"{', '.join(HEADER_FACTS)} at most once, in the order the input file holds them")
    credit = float(table.get("credit", 0.0))
    if not 0.0 <= credit <= 1.0:
        raise WorkConfigError(f"{where}: [work] credit = {credit}: a share of the points, from 0 to 1")
    return WorkRules(mode, tuple(table.get("programs", ())), tuple(table.get("exempt_cases", ())), credit,
                     tuple(checks), header)


@dataclass(frozen=True)
class CaseFacts:
    """What the grader knows of the case, not from the program: its name, program, params, the
    sizes in its input file's header ([work] input_header), the emulated devices."""
    name: str
    program: str
    params: dict
    n: int | None = None
    m: int | None = None
    devices: int = 1


def read_header(path: Path | None, names: tuple[str, ...]) -> dict[str, int]:
    """The sizes `names` from the little-endian int32s the input file opens with; none where the
    file is missing, short, or holds a negative size (it is not what the lab declared)."""
    if not names:
        return {}
    try:
        with open(path, "rb") as f:
            head = f.read(4 * len(names))
        sizes = struct.unpack(f"<{len(names)}i", head)
    except (OSError, TypeError, struct.error):
        return {}
    return dict(zip(names, sizes)) if min(sizes) >= 0 else {}


def case_facts(rules: WorkRules, case: Case, input_path: Path | None, devices: int) -> CaseFacts:
    """The facts of one run of `case` on `devices` (emulated) devices."""
    sizes = read_header(input_path, rules.input_header)
    return CaseFacts(case.name, case.program, case_options(case.args, dict(case.params)),
                     sizes.get("n"), sizes.get("m"), devices)


# ---- Reading the profile.
def from_harness(entry: dict) -> bool:
    """A launch, writer or timeline event the kit's harness made (its "origin")."""
    return entry.get("origin") == HARNESS_ORIGIN


def student_launches(profile: dict) -> list[dict]:
    return [launch for launch in profile.get("launches", []) if not from_harness(launch)]


def harness_launches(profile: dict) -> list[dict]:
    return [launch for launch in profile.get("launches", []) if from_harness(launch)]


def total(launches: list[dict], kind: str, field_name: str) -> int:
    """The sum of one counter of one kind of access (global_load, shared_load, ...) over the launches."""
    return sum(site.get(kind, {}).get(field_name, 0) for launch in launches for site in launch.get("sites", []))


def kernels(launches: list[dict]) -> str:
    """The launches' kernel names for a reason: the first three, then "..."."""
    names = list(dict.fromkeys(launch["kernel"] for launch in launches))
    return ", ".join(names[:3]) + (" ..." if len(names) > 3 else "") if names else "no kernel"


def _where(writer: dict) -> str:
    file = writer.get("file") or "?"
    return f"{writer.get('name', 'a copy')} at {file}:{writer.get('line', 0)}" if writer.get("line") else \
        f"a {writer.get('name', 'copy')} (its line unknown)"


# ---- The generic checks. Each: (profile, facts, settings) -> None when met, else the reason.
def computed_by_kernels(profile: dict, facts: CaseFacts, mode: str) -> str | None:
    writers = {w["id"]: w for w in profile.get("writers", [])}
    outputs = profile.get("outputs", [])
    for output in outputs:
        what = output.get("what", "the result")
        kernel_bytes, host_copies, other = 0, {}, 0
        for part in output.get("parts", []):
            if part.get("device", -1) < 0:
                # Through a buffer of its own (copied back, then into the result on the host): as
                # many bytes as the part must have come back from what kernels wrote.
                staged = output.get("staged_kernel_bytes", 0)
                if staged >= part["bytes"] or mode == "any" and staged > 0:
                    kernel_bytes += min(staged, part["bytes"])
                    continue
                return (f"{part['bytes']} bytes of {what} were never copied back from the device: they were "
                        f"computed on the host, not by your kernels")
            if part.get("changed_on_host"):
                return (f"{what} was changed on the host after the copy back from the device at "
                        f"{part.get('file') or '?'}:{part.get('line', 0)}: the kernels must compute all of it")
            for writer_id, count in part.get("writers", []):
                writer = writers.get(writer_id, {})
                if writer.get("kind") == "kernel" and not from_harness(writer):
                    kernel_bytes += count
                elif writer.get("kind") in ("host_copy", "kernel"):  # a harness kernel: not the student's kernels
                    host_copies[writer_id] = host_copies.get(writer_id, 0) + count
                else:
                    other += count
        total = max(1, output.get("bytes", 1))
        if mode == "all" and kernel_bytes < total:
            if host_copies:
                worst = max(host_copies, key=host_copies.get)
                return (f"{100 * host_copies[worst] / total:.0f}% of {what} was last written by "
                        f"{_where(writers[worst])}, not by a kernel: the kernels must compute all of it")
            return (f"{100 * (total - kernel_bytes) / total:.0f}% of {what} was never written by a kernel "
                    f"(a cudaMemset's or nothing's): the kernels must compute all of it")
        # Even the harness's upload counts: its mark can be forged in the student's process. A case
        # that leaves a kernel nothing to write is named in the lab's exempt_cases instead.
        if mode == "any" and kernel_bytes == 0 and host_copies:
            worst = max(host_copies, key=host_copies.get)
            return (f"no kernel wrote any of {what}: it is what {_where(writers[worst])} put there, "
                    f"computed on the host")
    return None


def coalesced_loads(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """Each array a warp reads: sectors per request near 4 (coalesced), not 32."""
    launches = student_launches(profile)
    limit = float(settings.get("max_sectors_per_request", 8))
    # Blocks narrower than a few lanes make a warp span rows: even the coalesced indexing reads
    # apart. The case param that holds the block's width is the lab's (block_width_param).
    width_param = settings.get("block_width_param")
    if width_param and int(facts.params.get(width_param, 32)) < int(settings.get("min_block_width", 8)):
        return None
    sites: dict[tuple, list[int]] = {}
    for launch in launches:
        for site in launch.get("sites", []):
            load = site.get("global_load")
            if load:
                key = (site["file"], site["line"], site["name"])
                sums = sites.setdefault(key, [0, 0])
                sums[0] += load["requests"]
                sums[1] += load["sectors"]
    requests = sum(r for r, _ in sites.values())
    for (file, line, name), (req, sectors) in sites.items():
        if req >= 0.1 * requests and sectors / req > limit:
            return (f"{name} is read at {Path(file).name}:{line} with {sectors / req:.1f} 32-byte sectors per warp "
                    f"request: the lanes of a warp read addresses far apart (uncoalesced); make threadIdx.x walk "
                    f"along the row, so a warp's loads are near 4 sectors (at most {limit:g} here)")
    return None


# What lab.toml's [[work.check]] may name besides the lab's own checks.
GENERIC_CHECKS: dict[str, CheckFunction] = {
    "coalesced_loads": coalesced_loads,
}


def case_options(args: tuple[str, ...] | list[str], params: dict) -> dict:
    """The case's `--name value` arguments, its params filled in ({n} -> 17), with its params:
    what `when` matches (a hidden case spells `--kernel tiled` in its args, not its params)."""
    options = {}
    for i, arg in enumerate(args[:-1]):
        if arg.startswith("--") and not args[i + 1].startswith("--"):
            try:
                value = args[i + 1].format_map(params)
            except (KeyError, ValueError, IndexError):
                continue
            options[arg[2:]] = int(value) if value.isdigit() else value
    return {**options, **params}


def judge(rules: WorkRules, facts: CaseFacts, profile: dict | None) -> str | None:
    """None when the run did the lab's work (or nothing is asked of this case), else the reason."""
    if not rules.active or (rules.programs and facts.program not in rules.programs):
        return None
    if profile is None:
        return ("the emulator's profile of the run is missing (it is written at exit): did the program end "
                "with _exit() or a signal? let main() return")
    launched = harness_launches(profile)
    if launched:
        return (f"the run launched {kernels(launched)} from code built as the kit's harness (at "
                f"{launched[0].get('file') or '?'}:{launched[0].get('line', 0)}), and the harness launches no kernel "
                f"in a graded case: launch your kernels from your own code, without the harness's mark (CUDAEMU_HARNESS)")
    if rules.computed_by_kernels != "off" and facts.name not in rules.exempt_cases:
        reason = computed_by_kernels(profile, facts, rules.computed_by_kernels)
        if reason:
            return reason
    for check in rules.checks:
        if check.applies(facts.params, facts.program):
            reason = check.run(profile, facts, check.settings)
            if reason:
                return reason
    return None
