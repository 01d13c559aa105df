"""The nbody lab's testcases: every case's compare is gen.py's compare_rule for its n and
softening (the bound of labs/nbody/reference.h), the public cases are small and cover the edges
the handout names, the hidden recipes use the rule at their largest n, and the text form's case
states its own body count."""

import re

import pytest

from grader.cases import load_generator
from grader.labs import load_lab

LAB = load_lab("nbody")
GEN = load_generator(LAB)


def test_every_case_compare_is_the_rule_for_its_n_and_softening():
    for case in LAB.cases:
        rule = GEN.compare_rule(case.params["n"], case.params["softening"], 1.5)
        assert case.compare is not None, f"{case.name} has no compare of its own"
        assert case.compare.rtol == pytest.approx(rule["rtol"], rel=1e-12), case.name
        assert case.compare.atol == pytest.approx(rule["atol"], rel=1e-12), case.name
        assert case.compare.rtol == pytest.approx((case.params["n"] + 32) * 2.0 ** -24, rel=1e-12)


def test_the_lab_default_is_the_rule_at_the_largest_case():
    largest = max(LAB.cases, key=lambda c: c.params["n"])
    assert (LAB.compare.rtol, LAB.compare.atol) == (largest.compare.rtol, largest.compare.atol)


def test_public_cases_are_small_and_cover_the_edges():
    public = [c for c in LAB.cases if c.group == "public"]
    assert max(c.params["n"] for c in public) <= 256 and not any(c.timed for c in public)
    for kernel in ("naive", "tiled"):
        mine = [c for c in public if c.params["kernel"] == kernel]
        assert any(c.params["n"] % c.params["block"] for c in mine), f"{kernel}: no partial last block or tile"
        assert any(c.params.get("dist") == "lattice" for c in mine), f"{kernel}: no exact cancellation"
        assert any(c.input and c.input.endswith(".txt") for c in mine), f"{kernel}: the text form is not graded"
    assert any(c.params["n"] % c.params["block"] == 0 for c in public if c.params["kernel"] == "tiled")


def test_the_timed_cases_time_both_kernels():
    timed = [c for c in LAB.cases if c.timed]
    assert {c.params["kernel"] for c in timed} == {"naive", "tiled"}
    assert all(c.group == "large" for c in timed)


def test_the_text_case_states_its_body_count():
    for case in LAB.cases:
        if case.input:
            text = (LAB.testcases_dir / case.input).read_text()
            bodies = [line for line in text.splitlines() if line.split("#")[0].strip()]
            assert len(bodies) == case.params["n"], case.name


def test_hidden_recipes_use_the_rule_at_their_largest_n():
    assert LAB.hidden_recipes
    for recipe in LAB.hidden_recipes:
        largest = recipe["params"]["n"]["range"][1]
        rule = GEN.compare_rule(largest, recipe["params"]["softening"], 1.5)
        assert recipe["compare"] == pytest.approx(rule), recipe["name"]
        assert re.search(r"--softening", " ".join(recipe["args"]))
