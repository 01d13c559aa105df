"""The matmul lab's expected outputs and testcases: the exact product in Python and in the C++
helper agree bit for bit, are exact where the sum is exact, and every case's tolerance is the
float32 bound (n + 2) u of labs/matmul/reference.h."""

import re
import shutil
from array import array

import pytest

from grader.cases import load_generator
from grader.labs import load_lab
from grader.seeded import uniform_floats

LAB = load_lab("matmul")
GEN = load_generator(LAB)


def n_of(case) -> int:
    return case.params["n"]


def test_a_and_b_are_the_two_halves_of_one_seeded_stream():
    values = uniform_floats(2 * 9, 5)
    product = GEN.exact_product_python(3, 5)
    a, b = values[:9], values[9:]
    exact = sum(a[1 * 3 + k] * b[k * 3 + 2] for k in range(3))  # float64: exact for n = 3
    assert product[1 * 3 + 2] == array("f", [exact])[0]


@pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler for exact_product.cpp")
@pytest.mark.parametrize("n, seed", [(1, 1), (17, 3), (100, 9)])
def test_python_and_helper_agree_bit_for_bit(tmp_path, n, seed):
    out = tmp_path / "c.bin"
    import subprocess
    subprocess.run([str(GEN.helper_program()), str(n), str(seed), str(out)], check=True)
    assert out.read_bytes() == GEN.exact_product_python(n, seed).tobytes()


def test_every_case_tolerance_is_the_float32_bound():
    # The kernel computing with TF32 operands has the TF32 bound (labs/matmul/reference.h's
    # tf32_rtol): 2^-10 + 2^-22 for the operands' rounding, 2 (n + 2) u for the truncating sums.
    for case in LAB.cases:
        assert case.compare is not None, f"{case.name} has no rtol of its own"
        float32_bound = (n_of(case) + 2) * 2.0 ** -24
        bound = 2.0 ** -10 + 2.0 ** -22 + 2 * float32_bound if case.params["kernel"] == "tensor_1xtf32" else float32_bound
        assert case.compare.rtol == pytest.approx(bound, rel=1e-12), case.name
        assert case.compare.format == "f32" and case.compare.atol == 0


def test_public_cases_are_small_and_include_odd_sizes():
    public = [c for c in LAB.cases if c.group == "public"]
    assert {n_of(c) for c in public} == {1, 17, 64, 100}
    assert {c.params["kernel"] for c in public} == {"naive", "tiled"}
    assert all(not c.timed for c in public)


def test_the_margin_case_runs_tiled_against_naive():
    case = next(c for c in LAB.cases if c.name == "tiled-beats-naive")
    assert case.timed and "--baseline" in case.args and case.params["baseline"] == "naive"
    text = (LAB.testcases_dir.parent.parent / "labs/matmul/lab.toml").read_text()
    assert re.search(r"^\[margins\]\ntime_vs_baseline = 0\.\d+$", text, re.M)


def test_hidden_recipes_use_the_bound_at_their_largest_n():
    for recipe in LAB.hidden_recipes:
        largest = recipe["params"]["n"]["range"][1]
        assert recipe["compare"]["rtol"] == pytest.approx((largest + 2) * 2.0 ** -24, rel=1e-12), recipe["name"]
