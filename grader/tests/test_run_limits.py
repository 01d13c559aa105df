"""The work folder's cap (run.py's watchdog) holds against a program that fills the folder
between two polls, hides it behind modes, and ends before the next poll."""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from grader import limits as limits_module
from grader.limits import MB, Limits
from grader.paths import KIT_ROOT
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


# ---- RLIMIT_NPROC where the grader is not root: shared by every grading of the account ---------

GROW_THEN_START_THREADS = """
import sys, threading, time
time.sleep(1.0)  # the gradings beside this one grow meanwhile
started = []
for _ in range(20):
    t = threading.Thread(target=time.sleep, args=(1,))
    t.start()
    started.append(t)
print(len(started))
"""

TWO_GRADINGS = """
import os, sys, threading, time
sys.path.insert(0, sys.argv[1])
from grader.limits import Limits
from grader.run import run_program
outcome = []
run = threading.Thread(target=lambda: outcome.append(run_program(
    [sys.executable, "-c", sys.argv[2]], time_limit_s=30, limits=Limits(wall_s=30, processes=64))))
run.start()
time.sleep(0.3)
# Another grading of the same account grows by more than this run's own cap while it runs.
others = [threading.Thread(target=time.sleep, args=(2.5,)) for _ in range(150)]
for t in others:
    t.start()
run.join()
print(outcome[0].exit_code, outcome[0].limit_hit, outcome[0].stdout.strip(), outcome[0].stderr.strip()[-200:])
"""


def test_gradings_side_by_side_as_one_user_do_not_starve_each_other():
    # As an unprivileged user (RLIMIT_NPROC does not bind root): as root, nobody, with a copy of
    # the grader it can read (in a folder of /tmp open to it) and the system's python.
    python, kit = sys.executable, KIT_ROOT
    if os.geteuid() == 0:
        python = "/usr/bin/python3"
        if not os.path.exists(python):
            pytest.skip("no /usr/bin/python3 for the unprivileged user to run")
        kit = Path(tempfile.mkdtemp(prefix="labkit-nproc."))
        shutil.copytree(KIT_ROOT / "grader", kit / "grader", ignore=shutil.ignore_patterns("tests", "__pycache__"))
        for path in [kit, *kit.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o005)

    def drop():
        if os.geteuid() == 0:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
    try:
        done = subprocess.run([python, "-c", TWO_GRADINGS, str(kit), GROW_THEN_START_THREADS],
                              capture_output=True, text=True, timeout=60, preexec_fn=drop, cwd="/")
    finally:
        if kit != KIT_ROOT:
            shutil.rmtree(kit)
    assert done.returncode == 0, done.stderr
    exit_code, _, started = done.stdout.partition(" ")
    assert exit_code == "0" and started.split()[0] == "20", done.stdout


def test_the_cap_never_passes_the_accounts_hard_limit(monkeypatch):
    monkeypatch.setattr(limits_module, "user_task_count", lambda uid: 1000)
    monkeypatch.setattr(limits_module.resource, "getrlimit", lambda which: (3000, 3000))
    assert limits_module.nproc_cap(256) == 3000
    monkeypatch.setattr(limits_module.resource, "getrlimit", lambda which: (-1, limits_module.resource.RLIM_INFINITY))
    assert limits_module.nproc_cap(256) == 1000 + 256 + limits_module.OTHERS_TASKS
