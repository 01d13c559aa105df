"""labs/bfs/work_checks.py on hand-made profiles: one thread per edge; a frontier's work in n + m."""

from grader.labs import lab_work_checks
from grader.testing import profile_launch as launch
from grader.work import CaseFacts

CHECKS = lab_work_checks("bfs")


def test_thread_per_edge():
    facts = CaseFacts("c", "bfs", {}, n=10, m=100)
    edges = {"requests": 4, "sectors": 4, "bytes": 800, "accesses": 200}
    init = launch(threads=1024)  # reads no edges: not judged
    thread_per_edge = CHECKS["thread_per_edge"]
    assert thread_per_edge({"launches": [init, launch(threads=128, loads=edges)]}, facts, {}) is None
    assert "with 1 thread in a launch" in thread_per_edge({"launches": [init, launch(threads=1, loads=edges)]},
                                                           facts, {})


def test_linear_work():
    facts = CaseFacts("c", "frontier", {}, n=10, m=20)  # n + 2m + 1 = 51
    settings = {"max_accesses_per_vertex_and_edge": 4}
    few = {"requests": 1, "sectors": 1, "bytes": 1, "accesses": 4 * 51}
    many = {"requests": 1, "sectors": 1, "bytes": 1, "accesses": 4 * 51 + 1}
    linear_work = CHECKS["linear_work"]
    assert linear_work({"launches": [launch(loads=few)]}, facts, settings) is None
    assert "205 global reads and writes for n = 10, m = 20" in linear_work({"launches": [launch(loads=many)]},
                                                                           facts, settings)
    # Without the input's sizes nothing is judged.
    assert linear_work({"launches": [launch(loads=many)]}, CaseFacts("c", "frontier", {}), settings) is None
