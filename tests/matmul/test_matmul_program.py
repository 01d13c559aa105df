"""The matmul lab's program under the CPU emulator: the harness's errors for bad options, every
kernel of the reference solution against the exact product on small and odd n, the harness's
own check catching wrong results (with its hints), --baseline, and --bench without cuBLAS."""

import json

import pytest

from grader.build import build_lab
from grader.cases import load_generator
from grader.compare import compare_files
from grader.labs import Compare, load_lab
from grader.paths import SOLUTIONS_DIR
from grader.testing import lab_program, run

LAB = load_lab("matmul")
GEN = load_generator(LAB)
KERNELS = ["naive", "tiled", "fast", "naive_uncoalesced", "tiled_uncoalesced"]


def rtol(n: int) -> float:
    return (n + 2) * 2.0 ** -24


@pytest.fixture(scope="module")
def matmul():
    return lab_program("matmul", "matmul")


@pytest.fixture(scope="module")
def starter():
    return lab_program("matmul", "matmul", flavor="starter")


@pytest.mark.parametrize("args, message", [
    ([], "say how large the matrices are with --n N"),
    (["--n", "0"], "--n must be between 1 and 32768, got 0"),
    (["--n", "40000"], "--n must be between 1 and 32768, got 40000"),
    (["--n", "x"], "--n must be a whole number, got 'x'"),
    (["--n", "8", "--kernel", "blocked"], "--kernel blocked names no kernel; the kernels are: naive, tiled, fast"),
    (["--n", "8", "--baseline", "slow"], "--baseline slow names no kernel"),
    (["--n", "8", "--ntx", "64", "--nty", "32"], "makes blocks of 2048 threads; a block holds at most 1024"),
    (["--n", "8", "--ntx", "0"], "--ntx must be between 1 and 1024, got 0"),
    (["--n", "8", "--kernel", "tiled", "--ntx", "16", "--nty", "8"], "needs square blocks"),
    (["--n", "8", "--kernel", "tiled", "--ntx", "12", "--nty", "12"], "tile must be 4, 8, 16 or 32, got --ntx 12"),
    (["--n", "8", "--rep", "3"], "unknown option --rep"),
    (["--n", "8", "extra"], "unexpected argument 'extra'"),
    (["--n", "8", "--reps", "0"], "--reps must be between 1 and 100000, got 0"),
])
def test_bad_options_say_what_to_do(matmul, args, message):
    done = run([matmul, *args])
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("n", [1, 17, 64, 100])
def test_every_kernel_matches_the_exact_product(matmul, tmp_path, kernel, n):
    ntx, nty = (16, 16) if kernel.startswith("tiled") or kernel == "fast" else (8, 4)
    out, expected = tmp_path / "c.bin", tmp_path / "expected.bin"
    done = run([matmul, "--n", n, "--kernel", kernel, "--ntx", ntx, "--nty", nty, "--seed", n, "--out", out])
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"CORRECT ({kernel})" in done.stdout
    GEN.make_expected({"n": n, "seed": n}, None, expected)
    assert compare_files(expected, out, Compare("f32", rtol=rtol(n))) is None


@pytest.mark.parametrize("n", [257, 260])  # the emulator has 8 multiprocessors: big tiles from n = 257
def test_fast_kernel_large_tiles_scalar_and_vector_paths(matmul, tmp_path, n):
    out, expected = tmp_path / "c.bin", tmp_path / "expected.bin"
    done = run([matmul, "--n", n, "--kernel", "fast", "--seed", 7, "--out", out])
    assert done.returncode == 0, done.stdout + done.stderr
    GEN.make_expected({"n": n, "seed": 7}, None, expected)
    assert compare_files(expected, out, Compare("f32", rtol=rtol(n))) is None


@pytest.mark.parametrize("tile", [4, 8, 32])
def test_tiled_kernel_every_tile_size_on_a_ragged_edge(matmul, tile):
    done = run([matmul, "--n", 37, "--kernel", "tiled", "--ntx", tile, "--nty", tile])
    assert done.returncode == 0 and "CORRECT (tiled)" in done.stdout, done.stdout + done.stderr


def test_result_figures_and_baseline(matmul, tmp_path):
    result = tmp_path / "result.json"
    done = run([matmul, "--n", 20, "--kernel", "tiled", "--baseline", "naive", "--reps", 2],
               env={"LABKIT_RESULT": str(result), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "CORRECT (tiled)" in done.stdout and "CORRECT (naive)" in done.stdout
    assert "baseline naive:" in done.stdout
    figures = json.loads(result.read_text())
    for name in ("kernel_ms", "kernel_host_ms", "total_ms", "gflops", "baseline_ms", "time_vs_baseline"):
        assert figures[name] >= 0, name
    assert figures["time_vs_baseline"] == pytest.approx(figures["kernel_ms"] / figures["baseline_ms"], rel=1e-6)
    assert figures["checked_entries"] == 400 and figures["wrong_entries"] == 0


def test_fast_ignores_block_options_and_says_so(matmul):
    done = run([matmul, "--n", 9, "--kernel", "fast", "--ntx", 8])
    assert done.returncode == 0
    assert "--ntx and --nty are ignored" in done.stdout


def test_bench_says_cublas_is_unavailable_under_emulation(matmul):
    done = run([matmul, "--bench"])
    assert done.returncode == 2
    assert "cuBLAS is unavailable under CPU emulation (EMU=1)" in done.stderr


def test_starter_stops_at_its_todos(starter):
    for kernel, todo in [("naive", "launch naive_kernel in matmul_naive"),
                         ("tiled", "launch tiled_kernel in launch_tiled"),
                         ("fast", "optional: write matmul_fast"),
                         ("tiled_uncoalesced", "exploration: write matmul_tiled_uncoalesced")]:
        done = run([starter, "--n", 4, "--kernel", kernel])
        assert done.returncode == 4, (kernel, done.stderr)
        assert "TODO not done: " in done.stderr and todo in done.stderr


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    """The solution with two classic bugs: the slides' grid(n / threads.x, ...) in the naive
    launch, and a tiled loop that stops before the last, partial tile."""
    lab_program("matmul", "matmul")  # skips without the emulator
    folder = tmp_path_factory.mktemp("broken")
    source = (SOLUTIONS_DIR / "matmul" / "matmul.c").read_text()
    dropped_edge = source.replace("dim3 grid(blocks_to_cover(n, ntx), blocks_to_cover(n, nty));\n    naive_kernel<<<",
                                  "dim3 grid(n / ntx, n / nty);\n    naive_kernel<<<", 1)
    short_loop = dropped_edge.replace("for (int k0 = 0; k0 < n; k0 += TILE) {", "for (int k0 = 0; k0 + TILE <= n; k0 += TILE) {", 1)
    assert short_loop.count("n / ntx") == 1 and "k0 + TILE <= n" in short_loop
    (folder / "matmul.c").write_text(short_loop)
    built = build_lab(LAB, src_root=folder, build_dir=folder / "build", emu=True, submission=True)
    assert built.ok, built.log
    return built.programs["matmul"]


def test_check_names_unwritten_edge_and_suggests_rounding_up(broken):
    done = run([broken, "--n", 100, "--kernel", "naive", "--ntx", 16, "--nty", 8])
    assert done.returncode == 1
    assert "WRONG (naive): 784 of 10000 checked entries" in done.stdout
    assert "the first, C[0][96], is NaN" in done.stdout
    assert "never written" in done.stdout
    assert "the last n % nty = 4 rows or the last n % ntx = 4 columns: does the grid round" in done.stdout


def test_check_catches_a_missing_partial_tile(broken):
    done = run([broken, "--n", 100, "--kernel", "tiled", "--ntx", 16, "--nty", 16])
    assert done.returncode == 1
    assert "WRONG (tiled): 10000 of 10000 checked entries" in done.stdout
    assert "never written" not in done.stdout


def test_a_right_kernel_in_the_broken_file_still_passes(broken):
    done = run([broken, "--n", 96, "--kernel", "naive", "--ntx", 16, "--nty", 8])  # 96: no edge to drop
    assert done.returncode == 0 and "CORRECT" in done.stdout


def test_hidden_cases_pass_with_the_reference(matmul, tmp_path):
    from grader.cases import argv_for
    from grader.hidden import Secret, hidden_cases, prepare_hidden
    secret = Secret(b"a test secret, not a real one", "test")
    cases = hidden_cases(LAB, secret)
    assert len(cases) == 6
    for case in cases:
        ready = prepare_hidden(LAB, case, secret)
        out = tmp_path / f"{case.name}.out"
        done = run(argv_for(matmul, ready, out))
        assert done.returncode == 0, (case.name, case.params, done.stdout + done.stderr)
        assert compare_files(ready.expected_path, out, case.compare) is None, case.name
