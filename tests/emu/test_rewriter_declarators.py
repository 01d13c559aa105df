"""Declarations the access rewriter (labs/emu/rewriter/accesses.py) must leave alone: a pointer
declarator after a comma, `T *first, *last;`, is not a read through `last` (HeCBench's
quicksort declares `uint* psstart, *psend, ...;` in its kernel, which did not compile)."""

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NVCC_EMU = os.path.join(ROOT, "labs", "emu", "bin", "nvcc-emu")
REWRITER = os.path.join(ROOT, "labs", "emu", "rewriter")

PROGRAM = textwrap.dedent("""\
    #include <cstdio>
    template <class T>
    __global__ void ends(T *data, T *out)
    {
        T *first, *last, value = 1;
        unsigned int *counter = nullptr, *unused;
        first = data;
        last = data + 3;
        (void)counter, (void)unused;
        out[0] = *first + *last + value;
        *last = 0;
    }
    int main()
    {
        int host[4] = {10, 20, 30, 40}, sum = 0, *data, *out;
        cudaMalloc(&data, sizeof host);
        cudaMalloc(&out, sizeof(int));
        cudaMemcpy(data, host, sizeof host, cudaMemcpyHostToDevice);
        ends<<<1, 1>>>(data, out);
        cudaMemcpy(&sum, out, sizeof(int), cudaMemcpyDeviceToHost);
        cudaMemcpy(host, data, sizeof host, cudaMemcpyDeviceToHost);
        printf("%d %d\\n", sum, host[3]);
        return 0;
    }
    """)


def test_pointer_declarators_after_a_comma_are_not_reads(tmp_path):
    source = tmp_path / "declarators.cu"
    source.write_text(PROGRAM)
    rewritten = tmp_path / "declarators.emu.cpp"
    subprocess.run([sys.executable, REWRITER, str(source), str(rewritten)], check=True)
    text = rewritten.read_text()
    assert "T *first, *last, value = 1;" in text
    assert "unsigned int *counter = nullptr, *unused;" in text
    assert 'global_read(*last, CUDAEMU_SITE("last"))' in text  # the use below is still watched


def test_a_kernel_declaring_several_pointers_builds_and_runs(tmp_path):
    source = tmp_path / "declarators.cu"
    source.write_text(PROGRAM)
    built = subprocess.run([sys.executable, NVCC_EMU, str(source), "-o", str(tmp_path / "declarators")],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(tmp_path / "declarators")], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["51", "0"]
