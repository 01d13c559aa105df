"""A harness option whose default differs between a GPU and the CPU emulator (the timed
repetitions: 5 on a GPU, 1 emulated) is stated by every case of the lab, public and hidden. On a
GPU node the GPU run's own record is held against an emulated run of the same argv
(grader/evidence/): a default that differs makes the reference itself do other work in the two
runs, and a faithful submission would lose its points for the kit's difference, not its own."""

from __future__ import annotations

import re
import tomllib

import pytest

from grader.paths import LABS_DIR, TESTCASES_DIR

# cli.integer("reps", emulated ? 1 : 5, ...)  and  o.reps ? o.reps : (emulated ? 1 : 5)
MODE_DEFAULT = (re.compile(r'cli\.\w+\(\s*"([\w-]+)"\s*,\s*emulated\s*\?'),
                re.compile(r'\bo\.(\w+)\s*\?\s*o\.\1\s*:\s*\(\s*emulated\s*\?'))


def mode_dependent_options(lab: str) -> set[str]:
    found = set()
    for source in (LABS_DIR / lab).glob("*.cpp"):
        text = source.read_text()
        for pattern in MODE_DEFAULT:
            found |= set(pattern.findall(text))
    return found


LABS = sorted(p.parent.name for p in TESTCASES_DIR.glob("*/cases.toml"))


@pytest.mark.parametrize("lab", LABS)
def test_every_case_states_the_options_whose_default_depends_on_the_mode(lab):
    options = mode_dependent_options(lab)
    table = tomllib.loads((TESTCASES_DIR / lab / "cases.toml").read_text())
    missing = [f"{entry['name']} (--{option})"
               for entry in table.get("case", []) + table.get("hidden", [])
               for option in sorted(options) if f"--{option}" not in entry.get("args", [])]
    assert not missing, (f"labs/{lab}'s harness picks these options' defaults by whether it is emulated; these "
                         f"cases leave them to it, so a GPU run and its emulated twin do other work: {missing}")


def test_the_patterns_find_the_repetitions():
    """The test above is not vacuous: matmul's harness picks its repetitions by the mode."""
    assert "reps" in mode_dependent_options("matmul")
