"""The work folder's cap (run.py's watchdog) holds against a program that fills the folder
between two polls, hides it behind modes, and ends before the next poll."""

import sys

from grader.limits import MB, Limits
from grader.run import run_program

FILL_AND_LEAVE = """
import os, sys
folder = sys.argv[1]
os.mkdir(os.path.join(folder, "hide"), 0o700)
for i in range(3):
    with open(os.path.join(folder, "hide", f"junk{i}"), "wb") as f:
        f.write(b"x" * (2 << 20))
os.chmod(os.path.join(folder, "hide"), 0o300)
os.chmod(folder, 0o300)
"""


def test_a_folder_filled_between_two_polls_is_over_the_cap(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    limits = Limits(wall_s=30, disk_bytes=1 * MB, work_dir=work)
    outcome = run_program([sys.executable, "-c", FILL_AND_LEAVE, str(work)], time_limit_s=30, limits=limits)
    assert outcome.exit_code == 0  # it ended on its own, well before a poll could see it
    assert outcome.limit_hit == "disk"


def test_a_folder_within_the_cap_is_not(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    limits = Limits(wall_s=30, disk_bytes=64 * MB, work_dir=work)
    outcome = run_program([sys.executable, "-c", FILL_AND_LEAVE, str(work)], time_limit_s=30, limits=limits)
    assert outcome.exit_code == 0 and outcome.limit_hit == ""
