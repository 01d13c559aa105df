"""The module's cycle generators in C (testcases/fw/tools), built by `make cycleProgs`: they print
exactly what gen.py's dircycle and undircycle print."""

import importlib.util
import shutil
import subprocess

import pytest

from grader.paths import KIT_ROOT

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")

spec = importlib.util.spec_from_file_location("fw_gen_for_tools", KIT_ROOT / "testcases/fw/gen.py")
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)


@pytest.fixture(scope="module")
def tools():
    # NVCC=false: the target must build without the CUDA toolkit (HOST_GOALS in labs/fw/lab.mk).
    proc = subprocess.run(["make", "--no-print-directory", "-C", str(KIT_ROOT), "cycleProgs", "NVCC=false"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return {name: KIT_ROOT / "build/tools/fw" / name for name in ("makeDirCycle", "makeUndirCycle")}


@pytest.mark.parametrize("n", [1, 2, 3, 10, 257])
def test_tools_print_what_gen_prints(tools, n):
    assert subprocess.run([tools["makeDirCycle"], str(n)], capture_output=True, text=True).stdout == gen.dir_cycle(n)
    assert subprocess.run([tools["makeUndirCycle"], str(n)], capture_output=True, text=True).stdout == gen.undir_cycle(n)


@pytest.mark.parametrize("args", [[], ["0"], ["-3"], ["ten"], ["10", "11"], ["46001"]])
def test_tools_refuse_bad_sizes(tools, args):
    for tool in tools.values():
        proc = subprocess.run([tool, *args], capture_output=True, text=True)
        assert proc.returncode == 2 and "usage:" in proc.stderr and proc.stdout == ""
