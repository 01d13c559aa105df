"""Prints the reference solution with its kernel replaced by the slides' one-thread-per-element
kernel whose guard is one short (idx < n - 1): the classic bug, which must get WA naming the
last element. Used by gpu_verify.sh and grader/tests/test_gpu.py."""

import re
import sys
from pathlib import Path

KIT = Path(__file__).resolve().parents[3]
BUGGY_KERNEL = """__global__ void increment_kernel(float *data, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n - 1)
        data[idx] = data[idx] + 1.0f;
}
"""


def planted_source() -> str:
    source = (KIT / "solutions/increment/increment.c").read_text()
    source = re.sub(r"__global__ void increment_kernel.*?\n}\n", BUGGY_KERNEL, source, count=1, flags=re.S)
    # one thread per element again
    return source.replace("int threads_needed = (n + ELEMENTS_PER_THREAD - 1) / ELEMENTS_PER_THREAD;",
                          "int threads_needed = n;")


if __name__ == "__main__":
    sys.stdout.write(planted_source())
