"""What a starter gives is what the reference runs: the code starter/<lab>/*.c hands the student
(the host side around the TODOs, the helpers, the CPU versions) is the same, to the character,
in solutions/<lab>/*.c, so a fix to one copy cannot miss the other.

Why a test and not a header both include: a student reads the starter as one program, the
TODOs in their place among the given code that calls them (multigpu.c's rounds, the barriers and
the exchange around send_pivot_row). Taken out into a header, the given half of that story would
be in a file the student does not edit, and reads last, if at all.

The unit is a top-level definition (a function, a struct, a table), matched by name, comments
left out (the reference may explain more). The starter gives one when neither it nor the comment
above it has a TODO. A given definition the reference replaces on purpose is named in lab.toml:

    [given]
    rewritten_by_reference = ["gpu.c:apsp_solve"]   # file:definition
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass

import pytest

from grader.labs import lab_ids
from grader.paths import LABS_DIR, SOLUTIONS_DIR, STARTER_DIR

# A string or character literal (kept), or a comment (blanked, its newlines kept).
TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)
ATTRIBUTES = {"__launch_bounds__", "__align__", "__attribute__", "__declspec"}


@dataclass(frozen=True)
class Definition:
    name: str
    code: str  # comments left out, blank lines dropped
    given: bool  # no TODO in it or in the comment above it


def _blank_comments(text: str) -> str:
    return TOKEN.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'" else re.sub(r"[^\n]", " ", m.group(0)), text)


def _name(code: str) -> str:
    if code.startswith("typedef"):
        return re.findall(r"\w+", code.rsplit("}", 1)[-1])[0]
    head = re.split(r"[{=]", code, maxsplit=1)[0]
    calls = [name for name in re.findall(r"(\w+)\s*\(", head) if name not in ATTRIBUTES]
    if calls:
        return calls[0]
    return re.findall(r"\w+", re.split(r"[\[;]", head, maxsplit=1)[0])[-1]


def definitions(text: str) -> dict[str, Definition]:
    """The file's top-level definitions and declarations by name (preprocessor lines left out)."""
    raw_lines = text.splitlines()
    code_lines = _blank_comments(text).splitlines()
    found: dict[str, Definition] = {}
    start, depth, above = None, 0, []
    for number, (raw, code) in enumerate(zip(raw_lines, code_lines)):
        if start is None:
            # The comments above a definition: since the one before it, or a preprocessor line.
            if code.lstrip().startswith("#"):
                above = []
            if not code.strip() or code.lstrip().startswith("#"):
                above += [raw] if raw.strip() and not code.strip() else []
                continue
            start = number
        depth += TOKEN.sub('""', code).count("{") - TOKEN.sub('""', code).count("}")
        if depth == 0 and code.rstrip().endswith((";", "}")):
            body = [line.rstrip() for line in code_lines[start:number + 1] if line.strip()]
            raw_text = "\n".join(above + raw_lines[start:number + 1])
            name = _name("\n".join(body))
            found[name] = Definition(name, "\n".join(body), "TODO" not in raw_text)
            start, above = None, []
    return found


def given_pairs():
    """(lab, file) for every starter file that has a reference of the same name."""
    return [(lab, path.name) for lab in lab_ids() for path in sorted((STARTER_DIR / lab).glob("*.c"))
            if (SOLUTIONS_DIR / lab / path.name).is_file()]


def rewritten(lab: str) -> set[str]:
    with open(LABS_DIR / lab / "lab.toml", "rb") as f:
        return set(tomllib.load(f).get("given", {}).get("rewritten_by_reference", []))


@pytest.mark.parametrize("lab, file", given_pairs())
def test_the_reference_keeps_what_the_starter_gives(lab, file):
    starter = definitions((STARTER_DIR / lab / file).read_text())
    reference = definitions((SOLUTIONS_DIR / lab / file).read_text())
    meant = {entry.split(":", 1)[1] for entry in rewritten(lab) if entry.startswith(f"{file}:")}
    differ = []
    for name, given in starter.items():
        if not given.given or name not in reference or name in meant:
            continue
        if given.code != reference[name].code:
            ours, theirs = given.code.splitlines(), reference[name].code.splitlines()
            first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
            differ.append(f"{name}: starter/{lab}/{file} has {ours[first] if first < len(ours) else '(its end)'!r}, "
                          f"solutions/{lab}/{file} {theirs[first] if first < len(theirs) else '(its end)'!r}")
    assert not differ, ("code the starter gives differs in the reference: make the two copies the same, or name "
                        f"the definition in labs/{lab}/lab.toml [given] rewritten_by_reference:\n" + "\n".join(differ))


@pytest.mark.parametrize("lab", lab_ids())
def test_each_rewrite_lab_toml_names_is_one(lab):
    """A name in [given] rewritten_by_reference is a definition the starter gives and the
    reference writes otherwise; one that no longer is comes off the list."""
    for entry in sorted(rewritten(lab)):
        file, name = entry.split(":", 1)
        starter = definitions((STARTER_DIR / lab / file).read_text())
        reference = definitions((SOLUTIONS_DIR / lab / file).read_text())
        assert name in starter and starter[name].given and name in reference, \
            f"labs/{lab}/lab.toml [given] names {entry}, which starter/{lab}/{file} does not give"
        assert starter[name].code != reference[name].code, \
            f"labs/{lab}/lab.toml [given] names {entry}, the same in both copies now: take it off the list"


def test_definitions_are_found_by_name_with_their_todos():
    text = """// A helper, given.
static int twice(int x) { return 2 * x; }  /* { in a comment */

// TODO 1: the kernel.
__global__ void __launch_bounds__(64) step_kernel(int *d)
{
    const char *brace = "}";
}

typedef struct {
    int n;
} Plan;
#define N 4
const int table[] = {1, 2};
"""
    found = definitions(text)
    assert list(found) == ["twice", "step_kernel", "Plan", "table"]
    assert found["twice"].given and not found["step_kernel"].given and found["Plan"].given
    assert found["twice"].code == "static int twice(int x) { return 2 * x; }"


def test_the_kit_has_given_code_to_compare():
    given = sum(d.given and d.name in definitions((SOLUTIONS_DIR / lab / file).read_text())
                for lab, file in given_pairs() for d in definitions((STARTER_DIR / lab / file).read_text()).values())
    assert given >= 10
