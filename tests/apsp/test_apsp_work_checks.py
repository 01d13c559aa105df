"""labs/apsp/work_checks.py on hand-made profiles: blocks in shared memory; every GPU computes."""

from grader.labs import lab_work_checks
from grader.testing import KERNEL_WRITER as KERNEL, PROFILE_WRITERS
from grader.testing import profile_launch as launch, result_part as part
from grader.work import CaseFacts

CHECKS = lab_work_checks("apsp")


def test_blocked_in_shared():
    n, block = 64, 64
    facts = CaseFacts("c", "gpu", {}, n=n, m=1)
    settings = {"block": block, "max_global_fraction": 0.5}
    blocked = {"requests": 1, "sectors": 1, "bytes": 4 * 3 * n ** 3 // block, "accesses": 1}
    naive = {"requests": 1, "sectors": 1, "bytes": 4 * n ** 3, "accesses": 1}
    blocked_in_shared = CHECKS["blocked_in_shared"]

    def with_shared_reads(loads, reads):
        profile = {"launches": [launch(loads=loads, shared_loads=8)]}
        profile["launches"][0]["sites"][1]["shared_load"]["accesses"] = reads
        return profile

    assert blocked_in_shared(with_shared_reads(blocked, n ** 3 // block), facts, settings) is None
    assert "read shared memory 1 times" in blocked_in_shared(with_shared_reads(blocked, 1), facts, settings)
    reason = blocked_in_shared({"launches": [launch(loads=naive)]}, facts, settings)
    assert "1.00 n^3 ints" in reason and "no __shared__" in reason


def test_every_device_works():
    facts = CaseFacts("c", "multigpu", {}, devices=2)
    writers = PROFILE_WRITERS + [{"id": 4, "kind": "kernel", "name": "k", "file": "x.c", "line": 1, "device": 1}]
    both = {"writers": writers, "launches": [],
            "devices": [{"device": 0, "launches": 3, "from_other_devices": 64},
                        {"device": 1, "launches": 3, "from_other_devices": 64}],
            "outputs": [{"what": "d", "bytes": 8, "parts": [part([(KERNEL, 4)], device=0), part([(4, 4)], device=1)]}]}
    every_device_works = CHECKS["every_device_works"]
    assert every_device_works(both, facts, {}) is None
    one = dict(both, devices=[{"device": 0, "launches": 3}, {"device": 1, "launches": 0}])
    assert "device 1 of 2 ran no kernel" in every_device_works(one, facts, {})
    silent = dict(both, devices=[{"device": 0, "launches": 3}, {"device": 1, "launches": 3}])
    assert "never exchanged" in every_device_works(silent, facts, {})
    staged = dict(both, outputs=[{"what": "d", "bytes": 8, "staged_own_by_device": [[0, 64], [1, 64]],
                                  "parts": [part([], device=-1)]}])
    assert every_device_works(staged, facts, {}) is None
    staged["outputs"][0]["staged_own_by_device"] = [[0, 64]]
    assert "from device 1's kernels" in every_device_works(staged, facts, {})
    # One 64 x 64 block and two devices: one of them owns no rows, and is not asked to work.
    assert every_device_works(one, CaseFacts("c", "multigpu", {}, n=1, devices=2), {"block": 64}) is None
