"""lab.toml's [evidence]: how a lab's GPU record is held against its emulated run (compare.py) and
which timed cases' figures the record must back (timing.py). Every key is optional:

    [evidence]
    launch_counts = "exact"   # or "set": a kernel launched until a flag stays set
    geometry = true           # false: grids sized from the device's properties
    counters = true           # Nsight Compute's counters on the first small case of each program

    [[evidence.case]]         # other settings for the cases whose params match `when`
    when = { kernel = "fast" }   # case params, or "program"
    geometry = false

    [evidence.timing]         # the timed cases whose repetitions the record must show
    warmups = 1               # untimed repetitions before the timed ones
    reps = "reps"             # the case param that holds the timed repetitions
    when = { baseline = "" }  # the cases it applies to ("" matches a case without that param)

A lab without [evidence.timing] has its timed figures judged as before (timing.py: figure_doubts).
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.work import ForCases


class EvidenceConfigError(Exception):
    """lab.toml's [evidence] is wrong: the message says where and what to write."""


@dataclass(frozen=True)
class Timing(ForCases):
    warmups: int
    reps: str


@dataclass(frozen=True)
class CaseSettings(ForCases):
    settings: dict  # launch_counts, geometry


@dataclass(frozen=True)
class EvidenceRules:
    launch_counts: str = "exact"
    geometry: bool = True
    counters: bool = True
    cases: tuple[CaseSettings, ...] = ()
    timing: Timing | None = None

    def for_case(self, params: dict, program: str) -> tuple[str, bool]:
        """(launch_counts, geometry) for a case of `program` with these params (work.case_options's)."""
        launch_counts, geometry = self.launch_counts, self.geometry
        for rule in self.cases:
            if rule.applies(params, program):
                launch_counts = rule.settings.get("launch_counts", launch_counts)
                geometry = rule.settings.get("geometry", geometry)
        return launch_counts, geometry


def _launch_counts(value, where: str) -> str:
    if value not in ("exact", "set"):
        raise EvidenceConfigError(f"{where}: launch_counts = {value!r}: use \"exact\" or \"set\"")
    return value


def parse_rules(table: dict, where: str) -> EvidenceRules:
    """lab.toml's [evidence]; ConfigError names the key that is wrong."""
    unknown = set(table) - {"launch_counts", "geometry", "counters", "case", "timing"}
    if unknown:
        raise EvidenceConfigError(f"{where}: [evidence] has unknown keys {sorted(unknown)}")
    cases = []
    for raw in table.get("case", []):
        settings = {k: v for k, v in raw.items() if k != "when"}
        if set(settings) - {"launch_counts", "geometry"}:
            raise EvidenceConfigError(f"{where}: [[evidence.case]] takes when, launch_counts and geometry")
        if "launch_counts" in settings:
            _launch_counts(settings["launch_counts"], where)
        cases.append(CaseSettings(dict(raw.get("when", {})), settings))
    timing = None
    if "timing" in table:
        raw = table["timing"]
        try:
            timing = Timing(dict(raw.get("when", {})), int(raw.get("warmups", 0)), str(raw.get("reps", "reps")))
        except (TypeError, ValueError) as e:
            raise EvidenceConfigError(f"{where}: [evidence.timing] is malformed ({e})") from None
    return EvidenceRules(_launch_counts(table.get("launch_counts", "exact"), where), bool(table.get("geometry", True)),
                         bool(table.get("counters", True)), tuple(cases), timing)
