"""The nbody lab's own work checks (labs/nbody/work_checks.py) on hand-made profiles: one thread
per destination body applying all n sources, and the tiled kernel's sources through __shared__."""

import importlib.util

from grader.paths import KIT_ROOT
from grader.work import CaseFacts

SPEC = importlib.util.spec_from_file_location("nbody_work_checks", KIT_ROOT / "labs/nbody/work_checks.py")
CHECKS = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(CHECKS)

N = 100


def facts(n=N, kernel="tiled"):
    return CaseFacts("case", "nbody", {"n": n, "kernel": kernel, "block": 32})


def launch(kernel, threads, block, global_loads, global_bytes, shared_loads=0):
    sites = [{"file": "sub/nbody/nbody.c", "line": 30, "name": "pos",
              "global_load": {"requests": global_loads // 32 + 1, "sectors": 4, "bytes": global_bytes,
                              "accesses": global_loads}}]
    if shared_loads:
        sites.append({"file": "sub/nbody/nbody.c", "line": 40, "name": "tile",
                      "shared_load": {"requests": shared_loads // 32 + 1, "accesses": shared_loads}})
    return {"kernel": kernel, "file": "sub/nbody/nbody.c", "line": 1, "device": 0, "block": [block, 1, 1],
            "threads": threads, "sites": sites}


def profile(*launches):
    return {"launches": list(launches)}


STEP = launch("integrate_kernel", 128, 128, 3 * N, 48 * N)
NAIVE = launch("forces_naive_kernel", 128, 32, N * N + N, 16 * (N * N + N))
TILED = launch("forces_tiled_kernel", 128, 32, 4 * N + N, 16 * 5 * N, shared_loads=128 * N)


def test_one_thread_per_body_passes():
    assert CHECKS.thread_per_body(profile(NAIVE, STEP), facts(kernel="naive"), {}) is None
    assert CHECKS.thread_per_body(profile(TILED, STEP), facts(), {}) is None


def test_a_thread_per_pair_is_named():
    pairs = launch("pair_kernel", N * N, 256, 2 * N * N, 32 * N * N)
    reason = CHECKS.thread_per_body(profile(pairs, STEP), facts(kernel="naive"), {})
    assert reason and "pair_kernel ran 10000 threads for n = 100 bodies" in reason
    assert "one thread per destination body" in reason and "not P^2" in reason


def test_too_few_threads_are_named():
    few = launch("forces_naive_kernel", 64, 32, N * N, 16 * N * N)
    reason = CHECKS.thread_per_body(profile(few, STEP), facts(kernel="naive"), {})
    assert reason and "ran 64 threads for n = 100" in reason and "rounded up" in reason


def test_sources_split_over_launches_are_not_judged():
    """No launch shows the n^2 loads (split over launches, or read member by member, which the
    emulator does not profile): the thread count of the all-pairs launch is not judged."""
    quarter = launch("forces_naive_kernel", 64, 32, N * N // 4, 4 * N * N)
    assert CHECKS.thread_per_body(profile(quarter, quarter, STEP), facts(kernel="naive"), {}) is None


def test_a_step_kernel_with_a_thread_per_pair_is_named_without_loads():
    pairs = launch("pair_kernel", N * N, 256, 0, 0)
    reason = CHECKS.thread_per_body(profile(NAIVE, pairs), facts(kernel="naive"), {})
    assert reason and "pair_kernel ran 10000 threads" in reason


def test_the_tile_in_shared_passes():
    assert CHECKS.tile_in_shared(profile(TILED, STEP), facts(), {"max_global_fraction": 0.25}) is None


def test_an_untiled_tiled_kernel_is_named():
    reason = CHECKS.tile_in_shared(profile(NAIVE, STEP), facts(), {"max_global_fraction": 0.25})
    assert reason and "read 1.01 n^2 bodies from global memory for n = 100 and used no __shared__" in reason


def test_shared_memory_beside_n_squared_global_reads_is_named():
    both = launch("forces_tiled_kernel", 128, 32, N * N + N, 16 * (N * N + N), shared_loads=N * N)
    reason = CHECKS.tile_in_shared(profile(both, STEP), facts(), {"max_global_fraction": 0.25})
    assert reason and "read 1.01 n^2 bodies" in reason and "used no __shared__" not in reason


def test_few_bodies_are_not_judged():
    pairs = launch("pair_kernel", 25, 32, 50, 800)
    assert CHECKS.thread_per_body(profile(pairs), facts(n=5, kernel="naive"), {}) is None
    assert CHECKS.tile_in_shared(profile(pairs), facts(n=5), {}) is None


def test_the_lab_names_its_checks():
    assert set(CHECKS.CHECKS) == {"thread_per_body", "tile_in_shared"}
