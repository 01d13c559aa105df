"""labs/spmv/work_checks.py on hand-made profiles: one thread per row; a thread per nonzero with
every lane busy and a bounded load count per thread; the hybrid's split at the rule's line."""

from grader.labs import lab_work_checks
from grader.testing import profile_launch
from grader.work import CaseFacts

CHECKS = lab_work_checks("spmv")


def launch(threads, requests=1, accesses=32, block=256, kernel="k"):
    made = profile_launch(kernel=kernel, threads=threads,
                          loads={"requests": requests, "sectors": 4, "bytes": 4 * accesses, "accesses": accesses})
    made["block"] = [block, 1, 1]
    return made


def test_thread_per_row():
    facts = CaseFacts("c", "spmv", {"kernel": "row"}, n=1000, m=9000)
    check = CHECKS["thread_per_row"]
    assert check({"launches": [launch(1024, requests=300, accesses=9000 * 3)]}, facts, {}) is None
    # A thread per nonzero, or one block for everything: not a thread per row.
    assert "no launch ran one thread per row" in check({"launches": [launch(9216, accesses=9000 * 3)]}, facts, {})
    assert "no launch ran one thread per row" in check({"launches": [launch(256, accesses=9000 * 3)]}, facts, {})
    # A Matrix Market case states its sizes in params, which win over the file's first bytes.
    mtx = CaseFacts("c", "spmv", {"kernel": "row", "rows": 5, "nnz": 7}, n=1632445733, m=2019912052)
    assert check({"launches": [launch(256, accesses=30)]}, mtx, {}) is None


def test_element_work_even():
    facts = CaseFacts("c", "spmv", {"kernel": "element"}, n=400, m=4252)
    settings = {"max_requests_per_warp": 64, "min_lanes_per_request": 16}
    check = CHECKS["element_work_even"]
    even = launch(4352, requests=136, accesses=136 * 32)  # 17 blocks of 8 warps, one load each
    assert check({"launches": [even]}, facts, settings) is None
    # Rows' threads only: nobody runs a thread per nonzero.
    assert "no launch ran a thread per nonzero" in check({"launches": [launch(512, accesses=4252)]}, facts, settings)
    # A loop over long rows: many loads per warp.
    looping = launch(4352, requests=136 * 100, accesses=4352 * 3)
    assert "times per warp" in check({"launches": [looping]}, facts, settings)
    # Few loads per warp, but most lanes idle in each.
    idle = launch(4352, requests=136 * 10, accesses=136 * 10 * 4)
    assert "lanes busy" in check({"launches": [idle]}, facts, settings)
    # A handful of nonzeros fills few lanes whatever the code: not judged on lanes.
    small = CaseFacts("c", "spmv", {"kernel": "element"}, n=6, m=9)
    assert check({"launches": [launch(256, requests=2, accesses=9)]}, small, settings) is None


def test_hybrid_split():
    params = {"kernel": "hybrid", "line": 4, "past_line": 4670}
    facts = CaseFacts("c", "spmv", params, n=800, m=7106)
    check = CHECKS["hybrid_split"]
    per_row = launch(1024, requests=32 * 4, accesses=800 * 4)  # 32 warps, 4 loads each
    per_element = launch(4864, requests=152, accesses=4670)
    assert check({"launches": [per_row, per_element]}, facts, {}) is None
    whole_rows = launch(1024, requests=32 * 60, accesses=7106)
    assert "walks past the rule's line, K = 4" in check({"launches": [whole_rows, per_element]}, facts, {})
    too_many = launch(5632, requests=176, accesses=5400)  # the line one too far left
    assert "no launch ran one thread per nonzero past the line" in check({"launches": [per_row, too_many]}, facts, {})
    assert "no launch ran one thread per row" in check({"launches": [per_element]}, facts, {})
    # A hidden case states no line: only the harness judges the hybrid there.
    assert check({"launches": [whole_rows]}, CaseFacts("c", "spmv", {"kernel": "hybrid"}, n=800, m=7106), {}) is None
