"""Exploration 3 of handouts/apsp.md: the reference gpu.c at blocking factors 16 and 32
(make apsp SOL=1 DEFINES=-DBLOCK=B) gives the same distances as at 64, on the committed cases
and on a random graph that spans several blocks at every factor."""

import random
import struct
import subprocess

import pytest

from grader.paths import KIT_ROOT
from grader.testing import EMU_READY, lab_program

pytestmark = pytest.mark.skipif(not EMU_READY, reason="the CPU emulator is not ready here")
CASES = KIT_ROOT / "testcases" / "apsp"


def build_gpu(build_dir, block):
    proc = subprocess.run(["make", "-s", "-C", str(KIT_ROOT), f"BUILD={build_dir}",
                           f"{build_dir}/apsp/gpu", "SOL=1", "EMU=1", f"DEFINES=-DBLOCK={block}"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return build_dir / "apsp" / "gpu"


def random_graph(path, n=203, m=1500, seed=5):
    rng = random.Random(seed)
    edges = [(rng.randrange(n), rng.randrange(n), rng.randint(0, 1000)) for _ in range(m)]
    path.write_bytes(struct.pack("<ii", n, m) + b"".join(struct.pack("<iii", *e) for e in edges))


@pytest.mark.parametrize("block", [16, 32])
def test_other_blocking_factors_give_the_same_distances(block, tmp_path):
    gpu = build_gpu(tmp_path / "build", block)
    inputs = [CASES / "c07-long-path.in", CASES / "c06-complete.in", tmp_path / "r203.in"]
    random_graph(inputs[-1])
    reference = lab_program("apsp", "gpu")  # the reference's own build: BLOCK is 64 unless DEFINES says otherwise
    for case in inputs:
        for program, out in ((gpu, tmp_path / "b.out"), (reference, tmp_path / "b64.out")):
            proc = subprocess.run([program, case, out], capture_output=True, text=True)
            assert proc.returncode == 0, proc.stderr
        assert (tmp_path / "b.out").read_bytes() == (tmp_path / "b64.out").read_bytes(), case.name
        expected = case.with_suffix(".out")
        if expected.exists():
            assert (tmp_path / "b.out").read_bytes() == expected.read_bytes(), case.name


def test_an_unsupported_blocking_factor_is_refused(tmp_path):
    proc = subprocess.run(["make", "-s", "-C", str(KIT_ROOT), f"BUILD={tmp_path}", f"{tmp_path}/apsp/gpu",
                           "SOL=1", "EMU=1", "DEFINES=-DBLOCK=48"], capture_output=True, text=True)
    assert proc.returncode != 0
    assert "BLOCK (the blocking factor) must be 16, 32 or 64" in proc.stderr
