"""The nbody lab's tolerance is fair and tight (labs/nbody/reference.h): a float32 all-pairs sum
in another order passes the harness's check on every public case, and the same sums with one tile
of sources left out, or one body, fail it. The check is the harness's own (nbody_tool check
links the same reference.cpp); the grader's file compare (gen.py compare_rule) passes the float32
sums too, while a tolerance relative to |expected| alone fails them."""

import math
import shutil
import struct
from array import array
from pathlib import Path

import pytest

from grader.cases import load_generator, prepare
from grader.labs import load_lab

if shutil.which("g++") is None:
    pytest.skip("no C++ compiler for nbody_tool", allow_module_level=True)

LAB = load_lab("nbody")
GEN = load_generator(LAB)
PUBLIC = [c for c in LAB.cases if c.group == "public"]


def f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def read_positions(path: Path) -> list[tuple[float, float, float, float]]:
    """Positions and masses of a bodies file, binary or text (bodies.h)."""
    if path.suffix == ".txt":
        rows = [line.split("#")[0].split() for line in path.read_text().splitlines()]
        return [tuple(f32(float(v)) for v in row[:4]) for row in rows if row]
    n, _ = struct.unpack("<ii", path.read_bytes()[:8])
    values = array("f", path.read_bytes()[8:8 + 16 * n])
    return [tuple(values[4 * i:4 * i + 4]) for i in range(n)]


def float32_terms(bodies, i: int, eps2: float) -> list[tuple[float, float, float]]:
    """Body i's n terms as a float32 kernel makes them: each operation rounded to float32."""
    xi, yi, zi, _ = bodies[i]
    terms = []
    for xj, yj, zj, mj in bodies:
        dx, dy, dz = f32(xj - xi), f32(yj - yi), f32(zj - zi)
        d2 = f32(f32(f32(f32(dx * dx) + f32(dy * dy)) + f32(dz * dz)) + eps2)
        inv = f32(1 / math.sqrt(d2))
        s = f32(f32(f32(mj * inv) * inv) * inv)
        terms.append((f32(dx * s), f32(dy * s), f32(dz * s)))
    return terms


def float32_sums(terms, keep) -> list[float]:
    """The float32 sum of the kept terms, in reverse order (not the reference's)."""
    acc = [0.0, 0.0, 0.0]
    for j in reversed(range(len(terms))):
        if keep(j):
            acc = [f32(a + t) for a, t in zip(acc, terms[j])]
    return acc


def accelerations(bodies, eps2: float, keep=lambda i, j: True) -> array:
    out = array("f")
    for i in range(len(bodies)):
        out.extend(float32_sums(float32_terms(bodies, i, eps2), lambda j: keep(i, j)) + [0.0])
    return out


def check(input_path: Path, acc: array, softening: float, tmp_path: Path):
    acc_path = tmp_path / "acc.bin"
    acc_path.write_bytes(acc.tobytes())
    return GEN.run_tool(["check", str(input_path), str(acc_path), "--softening", str(softening)])


@pytest.fixture(scope="module")
def ready():
    return {case.name: prepare(LAB, case) for case in PUBLIC}


@pytest.mark.parametrize("case", PUBLIC, ids=[c.name for c in PUBLIC])
def test_a_float32_sum_in_another_order_passes(case, ready, tmp_path):
    softening = case.params["softening"]
    bodies = read_positions(ready[case.name].input_path)
    acc = accelerations(bodies, f32(f32(softening) * f32(softening)))
    done = check(ready[case.name].input_path, acc, softening, tmp_path)
    assert done.returncode == 0, done.stdout


@pytest.mark.parametrize("case", [c for c in PUBLIC if c.params["n"] > c.params["block"]],
                         ids=lambda c: c.name)
def test_leaving_out_one_tile_of_sources_is_wrong(case, ready, tmp_path):
    """The last tile (the edge) and the first, each left out of every body's sum in turn."""
    p, n, softening = case.params["block"], case.params["n"], case.params["softening"]
    bodies = read_positions(ready[case.name].input_path)
    eps2 = f32(f32(softening) * f32(softening))
    last = (n - 1) // p * p
    for start in (0, last):
        acc = accelerations(bodies, eps2, lambda i, j: not start <= j < start + p)
        done = check(ready[case.name].input_path, acc, softening, tmp_path)
        assert done.returncode == 1 and "WRONG" in done.stdout, (start, done.stdout)


@pytest.mark.parametrize("case", [c for c in PUBLIC if c.params["n"] > 1], ids=lambda c: c.name)
def test_leaving_out_one_body_is_wrong(case, ready, tmp_path):
    n, softening = case.params["n"], case.params["softening"]
    bodies = read_positions(ready[case.name].input_path)
    missing = n - 1  # the last body: the one an unrounded grid or an unguarded tile loses
    acc = accelerations(bodies, f32(f32(softening) * f32(softening)), lambda i, j: j != missing)
    done = check(ready[case.name].input_path, acc, softening, tmp_path)
    assert done.returncode == 1 and "WRONG" in done.stdout, done.stdout


def test_the_grader_compare_passes_right_sums_a_relative_one_would_not(ready):
    """On the lattice, the float32 sums pass compare_rule's atol and fail rtol * |expected| alone:
    its centre body's forces cancel."""
    case = next(c for c in PUBLIC if c.name == "naive-lattice-125")
    bodies = read_positions(ready[case.name].input_path)
    softening = case.params["softening"]
    got = accelerations(bodies, f32(f32(softening) * f32(softening)))
    want = array("f", ready[case.name].expected_path.read_bytes())
    rule = GEN.compare_rule(case.params["n"], softening, 1.5)
    assert case.compare.rtol == rule["rtol"] and case.compare.atol == rule["atol"]
    assert all(abs(g - w) <= rule["atol"] + rule["rtol"] * abs(w) for g, w in zip(got, want))
    assert any(abs(g - w) > rule["rtol"] * abs(w) for g, w in zip(got, want))


def test_the_edge_tile_left_out_hides_inside_the_file_compare_not_inside_each_bodys_bound(tmp_path):
    """Why the harness checks each component against its own sum of |contributions|: on the GPU
    case tiled-cube-12345 (the last tile holds 57 of 12345 sources), forces without that tile
    pass the grader's file compare (one atol for every body), and fail the harness's bound. A
    sample of bodies gets the tile-less sums (float32, as a kernel makes them); every other body
    keeps the expected value, which is right."""
    from grader.compare import compare_files
    case = next(c for c in LAB.cases if c.name == "tiled-cube-12345")
    ready = prepare(LAB, case)
    n, p, softening = case.params["n"], case.params["block"], case.params["softening"]
    bodies = read_positions(ready.input_path)
    eps2 = f32(f32(softening) * f32(softening))
    acc = array("f", ready.expected_path.read_bytes())
    whole_tiles = n // p * p
    for i in range(0, n, 1000):
        acc[4 * i:4 * i + 3] = array("f", float32_sums(float32_terms(bodies, i, eps2), lambda j: j < whole_tiles))
    acc_path = tmp_path / "acc.bin"
    acc_path.write_bytes(acc.tobytes())
    assert compare_files(ready.expected_path, acc_path, case.compare) is None
    done = GEN.run_tool(["check", str(ready.input_path), str(acc_path), "--softening", str(softening)])
    assert done.returncode == 1 and "WRONG" in done.stdout, done.stdout
