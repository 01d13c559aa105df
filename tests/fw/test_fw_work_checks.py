"""labs/fw/work_checks.py on hand-made profiles: one kernel launch per k."""

from grader.labs import lab_work_checks
from grader.testing import profile_launch as launch
from grader.work import CaseFacts

CHECKS = lab_work_checks("fw")


def test_launch_per_step():
    facts = CaseFacts("c", "fw", {"n": 3})
    launch_per_step = CHECKS["launch_per_step"]
    assert launch_per_step({"launches": [launch()] * 3}, facts, {}) is None
    assert "1 kernel launch for n = 3" in launch_per_step({"launches": [launch()]}, facts, {})
    # The harness's own launches are not the student's.
    kit = launch(file="labs/common/device.cu", origin="harness")
    assert "1 kernel launch for n = 3" in launch_per_step({"launches": [launch(), kit, kit]}, facts, {})
