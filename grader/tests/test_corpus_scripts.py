"""The corpora's scripts run where only the grader's own needs are installed: a TA's account on a
GPU node has no pytest (grader/scripts/grade_of_record_gpu_verify.sh's `user` step runs them there)."""

import subprocess
import sys

import pytest

from grader.paths import KIT_ROOT

SCRIPTS = ["tests/hostile/corpus.py", "tests/hostile/evidence/evidence_corpus.py", "tests/students/grade_all.py"]

# Runs a script as `python3 SCRIPT --help` would, with pytest made unimportable.
WITHOUT_PYTEST = """
import runpy, sys
sys.modules["pytest"] = None
script = sys.argv[1]
sys.path.insert(0, script.rsplit("/", 1)[0])
sys.argv = [script, "--help"]
runpy.run_path(script, run_name="__main__")
"""


@pytest.mark.parametrize("script", SCRIPTS)
def test_script_needs_no_pytest(script):
    run = subprocess.run([sys.executable, "-c", WITHOUT_PYTEST, script], cwd=KIT_ROOT, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, f"{script} --help without pytest:\n{run.stderr[-2000:]}"
    assert "usage:" in run.stdout
