"""Expected outputs of the matmul lab: the exact product of the seeded A and B, rounded to
float32 (the harness makes A and B itself: A is the first n*n values of the seeded stream,
B the next n*n, see labs/matmul/main.cpp).

Every input is an integer k below 2^24 times 2^-24, so the product is an exact integer sum
times 2^-48: no float32 summation order is involved, which makes the reference independent of
every kernel. Small n is done here in Python; larger n by exact_product.cpp, compiled once
into build/cases/matmul/ with the C++ compiler (CXX, else g++): Python takes minutes past
n of about 200. The two agree bit for bit (tests/matmul/test_matmul_cases.py).
"""

import os
import shutil
import subprocess
from array import array
from pathlib import Path

from grader.paths import BUILD_DIR, KIT_ROOT
from grader.seeded import uniform_floats

PYTHON_MAX_N = 128
HERE = Path(__file__).resolve().parent


def exact_product_python(n: int, seed: int) -> array:
    values = uniform_floats(2 * n * n, seed)
    scale = 1 << 24
    a = [int(v * scale) for v in values[: n * n]]
    b = [int(v * scale) for v in values[n * n:]]
    columns = [b[j::n] for j in range(n)]
    out = array("f")
    for i in range(n):
        row = a[i * n:(i + 1) * n]
        for j in range(n):
            exact = sum(x * y for x, y in zip(row, columns[j]))
            out.append(float(exact) * 2.0 ** -48)  # int -> double rounds once; array('f') once more
    return out


def helper_program() -> Path:
    """exact_product.cpp, compiled into build/cases/matmul/ when missing or older than its source."""
    source = HERE / "exact_product.cpp"
    program = BUILD_DIR / "cases" / "matmul" / "exact_product"
    if program.exists() and program.stat().st_mtime >= source.stat().st_mtime:
        return program
    compiler = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if not compiler:
        raise RuntimeError("no C++ compiler found (set CXX): the large matmul cases need one "
                           "to compute their expected outputs")
    program.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([compiler, "-std=c++17", "-O3", "-pthread", f"-I{KIT_ROOT / 'labs/common'}",
                    str(source), "-o", str(program)], check=True)
    return program


def make_expected(params: dict, input_path, path: Path) -> None:
    n, seed = params["n"], params["seed"]
    if n <= PYTHON_MAX_N:
        path.write_bytes(exact_product_python(n, seed).tobytes())
    else:
        subprocess.run([str(helper_program()), str(n), str(seed), str(path)], check=True)
