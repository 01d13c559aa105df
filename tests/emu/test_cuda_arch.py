"""__CUDA_ARCH__ under the emulator (labs/emu/rewriter/cuda_arch.py): defined in device code as
the architecture cudaGetDeviceProperties reports, undefined in host code, as nvcc's two passes
see it."""

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NVCC_EMU = os.path.join(ROOT, "labs", "emu", "bin", "nvcc-emu")

# Each branch a GPU would not take stores a value the check below names.
PROGRAM = textwrap.dedent("""\
    #include <cstdio>
    #ifndef __CUDA_ARCH__
    #include <vector>  // host code's view at file scope
    #endif
    #if __CUDA_ARCH__ >= 700
    __device__ int twice(int x) { return 2 * x; }  // only the device pass defines it
    #endif
    __host__ __device__ int arch_seen()
    {
    #ifdef __CUDA_ARCH__
        return __CUDA_ARCH__;
    #else
        return -1;
    #endif
    }
    __global__ void kernel(int *out)
    {
    #if __CUDA_ARCH__ >= 700
        out[0] = twice(21);
    #else
        out[0] = -7;
    #endif
    #if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
        out[1] = -8;
    #else
        out[1] = 2;
    #endif
        out[2] = arch_seen();
    }
    int main()
    {
        int host_arch = 0;
    #ifdef __CUDA_ARCH__
        host_arch = __CUDA_ARCH__;
    #endif
        std::vector<int> seen(3);
        int *device;
        cudaMalloc(&device, 3 * sizeof(int));
        kernel<<<1, 1>>>(device);
        cudaMemcpy(seen.data(), device, 3 * sizeof(int), cudaMemcpyDeviceToHost);
        cudaDeviceProp prop;
        cudaGetDeviceProperties(&prop, 0);
        printf("%d %d %d %d %d\\n", seen[0], seen[1], seen[2], prop.major * 100 + prop.minor * 10, host_arch);
        return 0;
    }
    """)


def test_device_code_sees_the_reported_architecture_and_host_code_none(tmp_path):
    source = tmp_path / "arch.cu"
    source.write_text(PROGRAM)
    built = subprocess.run([sys.executable, NVCC_EMU, "-arch=sm_90", str(source), "-o", str(tmp_path / "arch")],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(tmp_path / "arch")], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    twice, old_arch_branch, arch_in_device, reported, host_arch = map(int, ran.stdout.split())
    assert (twice, old_arch_branch, host_arch) == (42, 2, 0)
    assert arch_in_device == reported == 900


def test_a_host_function_body_keeps_the_host_view(tmp_path):
    source = tmp_path / "host.cu"
    source.write_text("void f()\n{\n#ifdef __CUDA_ARCH__\n    device_only();\n#endif\n}\n")
    out = tmp_path / "host.emu.cpp"
    subprocess.run([sys.executable, os.path.join(ROOT, "labs", "emu", "rewriter"), str(source), str(out)], check=True)
    rewritten = out.read_text()
    assert "#ifdef __CUDA_ARCH__" in rewritten and "CUDAEMU_CUDA_ARCH" not in rewritten
