"""What a .cu file sees through nvcc-emu's includes, as through nvcc's: a header's own quoted
include is searched beside that header, then in the -I folders, never in the folder of the
.cu file that included it (HeCBench's interval ships part of Boost in its folder; Boost's
config includes its platform header by a quoted name, which must come from the -I or system
Boost); and the C headers the runtime's headers include (<limits.h>: warpsort's INT_MIN)."""

import os
import subprocess
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NVCC_EMU = os.path.join(ROOT, "labs", "emu", "bin", "nvcc-emu")


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def test_a_headers_quoted_include_is_not_searched_in_the_programs_folder(tmp_path):
    library = tmp_path / "library"
    write(library / "lib" / "api.h", """\
        #pragma once
        #define LIBRARY_CONFIG "conf/platform.h"
        #include LIBRARY_CONFIG
        """)
    write(library / "conf" / "platform.h", "#define PLATFORM_FROM_LIBRARY 1\n")
    program = tmp_path / "program"
    write(program / "conf" / "platform.h",
          '#error "a quoted include of a header found in the .cu file\'s folder, which nvcc does not search"\n')
    write(program / "local.h", "#define LOCAL_VALUE 3\n")
    write(program / "main.cu", """\
        #include <lib/api.h>
        #include "local.h"
        #include <cstdio>
        __global__ void twice(int *x) { *x = 2 * LOCAL_VALUE * PLATFORM_FROM_LIBRARY; }
        int main()
        {
            int *x;
            cudaMallocManaged(&x, sizeof(int));
            twice<<<1, 1>>>(x);
            cudaDeviceSynchronize();
            printf("%d\\n", *x);
            return *x == 6 ? 0 : 1;
        }
        """)
    built = subprocess.run([NVCC_EMU, "-I", str(library), "main.cu", "-o", "main"], cwd=program,
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(program / "main")], capture_output=True, text=True)
    assert (ran.returncode, ran.stdout.strip()) == (0, "6")


def test_the_runtime_headers_bring_limits_h_as_nvccs_do(tmp_path):
    (tmp_path / "main.cu").write_text(textwrap.dedent("""\
        __device__ int lowest() { return INT_MIN; }
        __global__ void bounds(int *out) { out[0] = lowest(); out[1] = INT_MAX; out[2] = (int)sizeof(size_t); }
        int main()
        {
            int *out;
            cudaMallocManaged(&out, 3 * sizeof(int));
            bounds<<<1, 1>>>(out);
            cudaDeviceSynchronize();
            return out[0] < 0 && out[1] > 0 && out[2] == 8 ? 0 : 1;
        }
        """))
    built = subprocess.run([NVCC_EMU, "main.cu", "-o", "main"], cwd=tmp_path, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    assert subprocess.run([str(tmp_path / "main")]).returncode == 0
