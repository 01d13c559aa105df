"""The matmul lab's exploration scripts, where they can run without a GPU: the occupancy
arithmetic and its reading of the compiler's report."""

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from grader.paths import KIT_ROOT

SCRIPTS = KIT_ROOT / "labs/matmul/scripts"
spec = importlib.util.spec_from_file_location("matmul_occupancy", SCRIPTS / "occupancy.py")
occupancy = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = occupancy  # dataclasses look their module up there
spec.loader.exec_module(occupancy)


@pytest.mark.parametrize("registers, smem, threads, blocks, limit", [
    (32, 2048, 256, 8, "warp slots and registers"),     # 16x16 tiles: 8 x 8 warps = 64
    (128, 16640, 256, 2, "registers"),                   # 128 registers: 4 warps a sub-partition
    (129, 16640, 256, 1, "registers"),                   # one more rounds up to 136: 3 warps
    (32, 128, 16, 32, "block slots"),                    # 4x4 blocks: 32 blocks, half the warps
    (16, 100 * 1024, 128, 2, "shared memory"),           # 101 KB + 1 KB reserved, twice in 228 KB
])
def test_blocks_per_multiprocessor_on_sm_90(registers, smem, threads, blocks, limit):
    kernel = occupancy.Kernel("k", registers, smem)
    assert occupancy.blocks_per_sm(occupancy.ARCHS["sm_90"], kernel, threads) == (blocks, limit)


def test_block_shapes_follow_the_kernel_names():
    assert occupancy.block_shapes(occupancy.Kernel("tiled_kernel<16>", 32, 2048)) == [("16x16", 256)]
    assert ("2x256", 512) in occupancy.block_shapes(occupancy.Kernel("naive_kernel", 32, 0))
    fast = occupancy.Kernel("fast_kernel<TileShape<128, 128, 8, 32, 64, 4, 8, 2, true>, true>", 128, 16640)
    assert occupancy.block_shapes(fast) == [("256", 256)]


@pytest.mark.skipif(shutil.which("nvcc") is None and not Path("/usr/local/cuda/bin/nvcc").exists(),
                    reason="nvcc is not installed: the resource report needs the CUDA compiler")
def test_resource_report_of_the_starter_names_its_kernels():
    kernels = occupancy.resource_usage(KIT_ROOT / "starter/matmul/matmul.c", "sm_90")
    assert "naive_kernel" in [k.name for k in kernels]
    assert all(k.registers > 0 for k in kernels)


banks_spec = importlib.util.spec_from_file_location("matmul_ffma_banks", SCRIPTS / "ffma_banks.py")
ffma_banks = importlib.util.module_from_spec(banks_spec)
banks_spec.loader.exec_module(ffma_banks)

# A loop as cuobjdump prints it: the backward branch closes it; the FFMA before it is outside.
SASS_LOOP = """
        /*0000*/                   FFMA R1, R2, R4, R1 ;
        /*0010*/                   LDS.128 R8, [R3] ;
        /*0020*/                   FFMA R10, R12.reuse, R14, R10 ;
        /*0030*/                   FFMA R11, R12, R16, R11 ;
        /*0040*/                   FFMA R13, R17, R21, R13 ;
        /*0050*/                   BRA 0x10 ;
"""


def test_the_loop_is_the_longest_backward_branch():
    body = ffma_banks.loop_body(SASS_LOOP)
    assert body[0].startswith("LDS.128") and body[-1] == "BRA 0x10"
    assert sum(t.startswith("FFMA") for t in body) == 3


def test_bank_conflicts_count_same_bank_sources_not_reused():
    body = ffma_banks.loop_body(SASS_LOOP)
    # mod 4: R12 R14 R10 -> banks 0 2 2 (1); R16 R11 after R12 reused -> 0 3 (0); R17 R21 R13 -> 1 1 1 (2)
    assert ffma_banks.bank_cycles(body, 4) == 3
    # mod 2: 0 0 0 (2); 0 1 (0); 1 1 1 (2)
    assert ffma_banks.bank_cycles(body, 2) == 4


def test_candidate_names_match_tune_fast():
    assert ffma_banks.candidate_name("void rows_kernel<RowsShape<64, 128, 8, 32, 64, 4, 8, 2, 3, false, false>, true>"
                                     "(float const*, float const*, float*, int)") == \
        "rows <64, 128, 8, 32, 64, 4, 8, 2, 3, false, false>"
    assert ffma_banks.candidate_name("void other_kernel<int>()") is None
