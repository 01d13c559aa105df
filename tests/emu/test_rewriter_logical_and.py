"""A read right after a logical and, `k < n && open[k]`, is a read the profile and the race
detector watch: the lexer gives `&&` as two `&`, and the second once made the read look like an
address taken (`&open[k]`), so the spmv lab's add_carry_kernel showed a quarter of its loads."""

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REWRITER = os.path.join(ROOT, "labs", "emu", "rewriter")

KERNEL = textwrap.dedent("""\
    __global__ void carry(int n, const int *open, float *sums, const int *const *rows)
    {
        int k = threadIdx.x;
        if (k < n && open[k])
            sums[k] = 1;
        bool both = open[k] && k < n, masked = k & open[k];
        const int *where = both && masked ? &open[k] : rows[k];
        sums[k] += where != 0;
    }
    """)


def test_reads_after_a_logical_and_are_watched(tmp_path):
    source = tmp_path / "carry.cu"
    source.write_text(KERNEL)
    rewritten = tmp_path / "carry.emu.cpp"
    subprocess.run([sys.executable, REWRITER, "--cuda", str(source), str(rewritten)], check=True)
    text = rewritten.read_text()
    read = 'global_read(open[k], CUDAEMU_SITE("open"))'
    assert f"if (k < n && ::cudaemu::{read})" in text
    assert f"bool both = ::cudaemu::{read} && k < n, masked = k & ::cudaemu::{read};" in text
    assert "? &open[k] :" in text  # an address taken after `&&` and a space is still no read
