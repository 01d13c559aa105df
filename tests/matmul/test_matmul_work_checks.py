"""labs/matmul/work_checks.py on hand-made profiles: the tiled kernel stages its tiles in shared memory."""

from grader.labs import lab_work_checks
from grader.testing import profile_launch as launch
from grader.work import CaseFacts

CHECKS = lab_work_checks("matmul")


def test_tiled_in_shared():
    n = 16
    naive = {"requests": 1, "sectors": 1, "bytes": 2 * n ** 3 * 4, "accesses": 1}
    tiled = {"requests": 1, "sectors": 1, "bytes": 2 * n ** 3 * 4 // 16, "accesses": 1}
    facts = CaseFacts("c", "matmul", {"n": n})
    settings = {"max_global_fraction": 0.25}
    tiled_in_shared = CHECKS["tiled_in_shared"]
    assert tiled_in_shared({"launches": [launch(loads=tiled, shared_loads=5)]}, facts, settings) is None
    reason = tiled_in_shared({"launches": [launch(loads=naive)]}, facts, settings)
    assert "2.00 n^3 floats" in reason and "no __shared__" in reason
    # Tiles staged in shared memory, but every product still reads A and B whole from global memory.
    assert "2.00 n^3 floats" in tiled_in_shared({"launches": [launch(loads=naive, shared_loads=5)]}, facts, settings)
