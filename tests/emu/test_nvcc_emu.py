"""labs/emu/bin/nvcc-emu, the drop-in nvcc for the emulator, on command lines a course or a
sample uses; and labs/emu/conformance/run.py on a made-up checkout."""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NVCC_EMU = os.path.join(ROOT, "labs", "emu", "bin", "nvcc-emu")
CONFORMANCE = os.path.join(ROOT, "labs", "emu", "conformance", "run.py")

KERNEL = textwrap.dedent("""\
    #pragma once
    __global__ void scale(float *data, float factor, int n)
    {
        extern __shared__ float staged[];
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        staged[threadIdx.x] = i < n ? data[i] : 0.0f;
        __syncthreads();
        if (i < n) data[i] = staged[threadIdx.x] * factor;
    }
    inline void launch_scale(float *data, float factor, int n)
    {
        scale<< <(n + 63) / 64, 64, 64 * sizeof(float)>> >(data, factor, n);
    }
    """)

MAIN = textwrap.dedent("""\
    #include <cstdio>
    #include "scale.cuh"
    extern "C" int c_offset(void);
    int host_check(const float *values, int n);
    int main()
    {
        const int n = 1000;
        float *data;
        cudaMallocManaged(&data, n * sizeof(float));
        for (int i = 0; i < n; ++i) data[i] = i;
        launch_scale(data, 2.0f, n);
        cudaDeviceSynchronize();
        printf("%d %d\\n", host_check(data, n), c_offset());
        return 0;
    }
    """)


def nvcc(args, cwd, env=None, check=True):
    result = subprocess.run([sys.executable, NVCC_EMU] + args, cwd=cwd, capture_output=True, text=True,
                            env=dict(os.environ, **(env or {})))
    if check:
        assert result.returncode == 0, result.stderr
    return result


def write(folder, name, text):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture
def project(tmp_path):
    write(tmp_path, "include/scale.cuh", KERNEL)
    write(tmp_path, "main.cu", MAIN)
    write(tmp_path, "check.cpp", """\
        #include <cuda_runtime.h>
        int host_check(const float *values, int n)
        {
            for (int i = 0; i < n; ++i)
                if (values[i] != 2.0f * i) return i;
            return -1;
        }
        """)
    write(tmp_path, "offset.c", "int c_offset(void) { return 42; }\n")
    return tmp_path


def test_compiles_and_links_cu_cpp_and_c_in_one_command_ignoring_gpu_options(project):
    nvcc(["-O3", "-arch=sm_90", "-gencode", "arch=compute_80,code=sm_80", "-lineinfo", "--use_fast_math",
          "-Xcompiler", "-Wall,-Wextra", "-Iinclude", "-DUNUSED=1", "-std=c++17", "-lcudart",
          "main.cu", "check.cpp", "offset.c", "-o", "app"], project)
    assert subprocess.run(["./app"], cwd=project, capture_output=True, text=True).stdout == "-1 42\n"


def test_compiles_separately_then_links_objects(project):
    for source in ("main.cu", "check.cpp", "offset.c"):
        nvcc(["-c", "-rdc=true", "-I", "include", source], project)
    nvcc(["main.o", "check.o", "offset.o", "-o", "app", "-lcuda"], project)
    assert subprocess.run(["./app"], cwd=project, capture_output=True, text=True).stdout == "-1 42\n"


def test_a_makefile_project_builds_with_make_nvcc(project):
    write(project, "Makefile", """\
        NVCC ?= nvcc
        app: main.o check.o offset.o
        \t$(NVCC) -arch=sm_80 $^ -o $@
        %.o: %.cu
        \t$(NVCC) -arch=sm_80 -Iinclude -c $< -o $@
        %.o: %.cpp
        \t$(NVCC) -x cu -arch=sm_80 -c $< -o $@
        %.o: %.c
        \t$(NVCC) -c $< -o $@
        """)
    result = subprocess.run(["make", "-s", "NVCC=" + NVCC_EMU], cwd=project, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert subprocess.run(["./app"], cwd=project, capture_output=True, text=True).stdout == "-1 42\n"


def test_dependencies_name_the_source_and_the_inlined_header(project):
    nvcc(["-c", "-Iinclude", "-MD", "-MF", "main.d", "main.cu", "-o", "main.o"], project)
    deps = (project / "main.d").read_text()
    assert deps.startswith("main.o:")
    assert "main.cu" in deps and "scale.cuh" in deps and ".emu.cpp" not in deps


def test_an_error_in_a_local_header_names_the_header_and_its_line(project):
    write(project, "include/broken.cuh", """\
        __global__ void broken(int *out)
        {
            out[threadIdx.x] = undeclared_name;
        }
        """)
    write(project, "uses_broken.cu", '#include "broken.cuh"\nint main() { return 0; }\n')
    result = nvcc(["-c", "-Iinclude", "uses_broken.cu"], project, check=False)
    assert result.returncode != 0
    assert "broken.cuh:3" in result.stderr, result.stderr


def test_a_store_through_a_macro_that_ends_in_a_semicolon_compiles(tmp_path):
    # cuda-samples' dwtHaar1D: `#define INV_SQRT_2 0.7071f;` used as `out[i] = x * INV_SQRT_2;`.
    write(tmp_path, "macro.cu", """\
        #include <cstdio>
        #define HALF 0.5f;
        __global__ void halve(float *out) { out[threadIdx.x] = threadIdx.x * HALF }
        int main()
        {
            float *out;
            cudaMallocManaged(&out, 4 * sizeof(float));
            halve<<<1, 4>>>(out);
            cudaDeviceSynchronize();
            printf("%g\\n", out[3]);
        }
        """)
    nvcc(["macro.cu", "-o", "macro"], tmp_path)
    assert subprocess.run(["./macro"], cwd=tmp_path, capture_output=True, text=True).stdout == "1.5\n"


def test_removed_runtime_calls_fail_as_in_cuda_13_and_warn_as_in_cuda_12(tmp_path):
    write(tmp_path, "old.cu", """\
        #include <cstdio>
        __global__ void k(int *a) { a[threadIdx.x] = threadIdx.x; }
        int main()
        {
            int *a;
            cudaMallocManaged(&a, 32 * sizeof(int));
            k<<<1, 32>>>(a);
            printf("%d %d\\n", (int)cudaThreadSynchronize(), a[31]);
        }
        """)
    strict = nvcc(["old.cu", "-o", "old"], tmp_path, check=False)
    assert strict.returncode != 0 and "old.cu:8" in strict.stderr and "cudaDeviceSynchronize" in strict.stderr
    lenient = nvcc(["--cuda-version=12", "old.cu", "-o", "old"], tmp_path)
    assert "deprecated" in lenient.stderr
    assert subprocess.run(["./old"], cwd=tmp_path, capture_output=True, text=True).stdout == "0 31\n"


@pytest.mark.parametrize("body, named", [
    ('__device__ unsigned lane() { unsigned l;\n asm volatile("mov.u32 %0, %%laneid;" : "=r"(l)); return l; }\n'
     '__global__ void k(unsigned *o) { o[0] = lane(); }\nint main() { k<<<1, 1>>>(nullptr); }\n',
     ["inline PTX", "source.cu:2"]),
    ('#include <cuda.h>\nint main() {\n cuInit(0);\n}\n', ["cuInit", "driver API", "source.cu:3"]),
    ('#include <cublas_v2.h>\nint main() {}\n', ["cuBLAS is not emulated"]),
])
def test_what_the_emulator_cannot_do_fails_at_build_time_naming_it(tmp_path, body, named):
    write(tmp_path, "source.cu", body)
    result = nvcc(["source.cu", "-o", "program"], tmp_path, check=False)
    assert result.returncode != 0
    for text in named:
        assert text in result.stderr, result.stderr


def test_nvtx_annotations_and_a_ptx_clock_read_build_and_run(tmp_path):
    # cudaGraphsPerfScaling: NVTX ranges (no profiler attached: they do nothing) and a kernel
    # that reads %globaltimer with inline PTX, the one PTX statement the rewriter translates.
    write(tmp_path, "timed.cu", """\
        #include <cstdio>
        #include <nvtx3/nvToolsExt.h>
        __device__ unsigned long long globaltimer()
        {
            unsigned long long t;
            asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
            return t;
        }
        __global__ void wait_ns(long long ns, int *waited)
        {
            long long start = globaltimer(), now;
            do now = globaltimer(); while (now < start + ns);
            *waited = now - start >= ns;
        }
        int main()
        {
            int *waited;
            cudaMallocManaged(&waited, sizeof(int));
            nvtxRangePushA("wait");
            wait_ns<<<1, 1>>>(1000000, waited);
            cudaDeviceSynchronize();
            printf("%d %d\\n", nvtxRangePop(), *waited);
        }
        """)
    nvcc(["timed.cu", "-o", "timed"], tmp_path)
    run = subprocess.run(["./timed"], cwd=tmp_path, capture_output=True, text=True)
    assert run.stdout == "-2 1\n", run.stderr


def test_options_it_cannot_take_are_errors_that_say_what_to_do(tmp_path):
    write(tmp_path, "a.cu", "int main() {}\n")
    unknown = nvcc(["--no-such-option", "a.cu"], tmp_path, check=False)
    assert unknown.returncode == 2 and "-Xcompiler" in unknown.stderr
    library = nvcc(["a.cu", "-lcublas"], tmp_path, check=False)
    assert library.returncode == 2 and "not emulated" in library.stderr


def test_openmp_is_given_to_the_host_compiler_where_the_source_uses_it(tmp_path):
    write(tmp_path, "omp.cu", """\
        #include <omp.h>
        #include <cstdio>
        int main()
        {
            int threads = 0;
        #pragma omp parallel num_threads(2)
            {
        #pragma omp atomic
                threads += 1;
            }
            printf("%d\\n", threads);
        }
        """)
    nvcc(["-c", "omp.cu", "-o", "omp.o"], tmp_path)
    nvcc(["omp.o", "-o", "omp"], tmp_path)
    assert subprocess.run(["./omp"], cwd=tmp_path, capture_output=True, text=True).stdout == "2\n"


BARRIERS = """\
    #include <cstdio>
    __global__ void rotate(int *data)
    {
        __shared__ int tile[256];
        for (int round = 0; round < 8; ++round) {
            tile[threadIdx.x] = data[threadIdx.x];
            __syncthreads();
            data[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
            __syncthreads();
        }
    }
    int main()
    {
        int *data;
        cudaMallocManaged(&data, 256 * sizeof(int));
        for (int i = 0; i < 256; ++i) data[i] = i;
        rotate<<<1, 256>>>(data);
        cudaDeviceSynchronize();
        printf("%d %d\\n", data[0], data[255]);
    }
    """


def test_the_ucontext_fibers_run_barriers_as_boost_context_does(tmp_path):
    # EMU_FIBER=ucontext forces the fallback a machine without Boost.Context gets.
    write(tmp_path, "barriers.cu", BARRIERS)
    for backend in ("ucontext", ""):
        nvcc(["barriers.cu", "-o", "barriers"], tmp_path, env={"EMU_FIBER": backend} if backend else {})
        for schedule in ("default", "random:3"):
            run = subprocess.run(["./barriers"], cwd=tmp_path, capture_output=True, text=True,
                                 env=dict(os.environ, EMU_SCHEDULE=schedule))
            assert run.stdout == "8 7\n", (backend, schedule, run.stdout, run.stderr)


def test_the_race_detector_and_asan_work_through_it(tmp_path):
    write(tmp_path, "racy.cu", BARRIERS.replace("        __syncthreads();\n            data", "        data"))
    nvcc(["racy.cu", "-o", "racy"], tmp_path)
    race = subprocess.run(["./racy"], cwd=tmp_path, capture_output=True, text=True,
                          env=dict(os.environ, EMU_RACECHECK="1"))
    assert race.returncode == 6 and "data race on __shared__ tile" in race.stderr, race.stderr
    write(tmp_path, "overflow.cu", """\
        __global__ void past(int *data) { data[threadIdx.x + 1] = 1; }
        int main() { int *data; cudaMalloc(&data, 32 * sizeof(int)); past<<<1, 32>>>(data); cudaDeviceSynchronize(); }
        """)
    nvcc(["--asan", "overflow.cu", "-o", "overflow"], tmp_path)
    asan = subprocess.run(["./overflow"], cwd=tmp_path, capture_output=True, text=True,
                          env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
    assert asan.returncode != 0 and "heap-buffer-overflow" in asan.stderr and "overflow.cu:1" in asan.stderr


def test_the_conformance_run_tells_passing_failing_and_regressed_programs(tmp_path):
    checkout = tmp_path / "samples"
    write(checkout, "cpp/good/good.cu", """\
        #include <cstdio>
        __global__ void one(int *x) { *x = 1; }
        int main()
        {
            for (volatile long spin = 0; spin < 200000000; spin = spin + 1) {}  // CPU time the run reports
            int *x; cudaMallocManaged(&x, 4); one<<<1, 1>>>(x); cudaDeviceSynchronize(); return *x == 1 ? 0 : 1;
        }
        """)
    write(checkout, "cpp/good/helper.cpp", "int helper() { return 0; }\n")
    write(checkout, "cpp/bad/bad.cu", "int main() { return 3; }\n")
    # Exits 0 but says it failed: its own verdict counts.
    write(checkout, "cpp/says_failed/says_failed.cu", '#include <cstdio>\nint main() { printf("Test failed!\\n"); }\n')
    write(checkout, "cpp/broken/broken.cu", "int main() { return missing; }\n")
    write(checkout, "Common/empty.h", "")
    programs = write(tmp_path, "programs.json", json.dumps({"suites": {"cuda-samples": {
        "defaults": {"sources": ["*.cu", "*.cpp"], "include": ["Common"], "waived_exit": 2},
        "programs": [{"dir": "cpp/good"}, {"dir": "cpp/bad"}, {"dir": "cpp/broken"},
                     {"dir": "cpp/gone"}, {"dir": "cpp/good", "name": "needs_data", "inputs": ["data/x.dat"]},
                     {"dir": "cpp/says_failed"}]}}}))
    baseline = write(tmp_path, "baseline.json", json.dumps({"status": {"cuda-samples/bad": "passed"}}))
    result = subprocess.run([sys.executable, CONFORMANCE, "--cuda-samples", str(checkout), "--programs", str(programs),
                             "--baseline", str(baseline), "--work", str(tmp_path / "work"),
                             "--json", str(tmp_path / "results.json")], capture_output=True, text=True)
    results = json.loads((tmp_path / "results.json").read_text())
    assert {key: r["status"] for key, r in results.items()} == {
        "cuda-samples/good": "passed", "cuda-samples/bad": "failed", "cuda-samples/broken": "build_failed",
        "cuda-samples/gone": "not_found", "cuda-samples/needs_data": "input_missing",
        "cuda-samples/says_failed": "failed"}
    assert results["cuda-samples/good"]["cpu_s"] >= 0.1
    assert "missing" in results["cuda-samples/broken"]["detail"]
    assert "Test failed!" in results["cuda-samples/says_failed"]["detail"]
    assert result.returncode == 1 and "regressions (passed in the baseline): cuda-samples/bad" in result.stdout
    assert "cuda-samples: 1 of 6 pass, 4 build" in result.stdout
    # A run of some of them again (comma-separated globs): only those.
    subprocess.run([sys.executable, CONFORMANCE, "--cuda-samples", str(checkout), "--programs", str(programs),
                    "--baseline", str(baseline), "--work", str(tmp_path / "work"), "--filter",
                    "cuda-samples/bad,*/gone", "--json", str(tmp_path / "again.json")], capture_output=True, text=True)
    again = json.loads((tmp_path / "again.json").read_text())
    assert {key: r["status"] for key, r in again.items()} == {"cuda-samples/bad": "failed",
                                                              "cuda-samples/gone": "not_found"}


def test_the_conformance_run_can_limit_the_cpu_time_a_program_gets_rather_than_the_wall_time(tmp_path):
    # A shared machine's other work stretches a run's wall time, not its CPU time: with
    # --clock cpu a program that waits passes, and one that computes past the limit times out.
    checkout = tmp_path / "samples"
    write(checkout, "cpp/waits/waits.cu", "#include <unistd.h>\nint main() { sleep(2); return 0; }\n")
    write(checkout, "cpp/spins/spins.cu", "int main() { for (volatile long i = 0;; i = i + 1) {} }\n")
    write(checkout, "Common/empty.h", "")
    programs = write(tmp_path, "programs.json", json.dumps({"suites": {"cuda-samples": {
        "defaults": {"sources": ["*.cu"], "include": ["Common"]},
        "programs": [{"dir": "cpp/waits"}, {"dir": "cpp/spins"}]}}}))
    subprocess.run([sys.executable, CONFORMANCE, "--cuda-samples", str(checkout), "--programs", str(programs),
                    "--baseline", str(tmp_path / "none.json"), "--work", str(tmp_path / "work"), "--timeout", "1",
                    "--clock", "cpu", "--jobs", "2", "--json", str(tmp_path / "results.json")],
                   capture_output=True, text=True)
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["cuda-samples/waits"]["status"] == "passed" and results["cuda-samples/waits"]["run_s"] >= 2
    assert results["cuda-samples/spins"]["status"] == "timeout"
    assert results["cuda-samples/spins"]["cpu_s"] >= 1
    assert "no exit after 1 s of CPU" in results["cuda-samples/spins"]["detail"]


def test_build_tools_read_it_as_nvcc_version_options_files_and_ccbin(tmp_path):
    version = nvcc(["--version"], tmp_path).stdout.splitlines()
    assert version[0].startswith("nvcc: NVIDIA (R) Cuda compiler driver") and "nvcc-emu" in version[0]
    assert re.search(r"release 13\.0, V13\.0\.0", version[1])
    write(tmp_path, "answer.cu", "int answer = ANSWER;\n")
    write(tmp_path, "options.rsp", '-DANSWER=42 "-I include dir"\n')
    preprocessed = nvcc(["@options.rsp", "-ccbin", shutil.which("g++"), "-E", "-x", "cu", "answer.cu"], tmp_path)
    assert "int answer = 42;" in preprocessed.stdout
    preprocessed = nvcc(["--options-file", "options.rsp", "-E", "answer.cu"], tmp_path)
    assert "int answer = 42;" in preprocessed.stdout
    missing = nvcc(["@nowhere.rsp", "answer.cu"], tmp_path, check=False)
    assert missing.returncode == 2 and "cannot read the options file nowhere.rsp" in missing.stderr


def test_a_lone_known_ptx_instruction_runs_as_its_cuda_cpp_equivalent(tmp_path):
    # stereoDisparity's sum of absolute differences, split over two string literals as there.
    write(tmp_path, "sad.cu", """\
        #include <cstdio>
        __device__ unsigned sad(unsigned a, unsigned b, unsigned c)
        {
            unsigned result;
            asm("vabsdiff4.u32.u32.u32.add"
                " %0, %1, %2, %3;" : "=r"(result) : "r"(a), "r"(b), "r"(c));
            return result;
        }
        __global__ void kernel(unsigned *out, float *power)
        {
            out[0] = sad(0x01020304u, 0x04030201u, 10u);
            asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(power[1]) : "f"(power[0]));
        }
        int main()
        {
            unsigned *out;
            float *power;
            cudaMallocManaged(&out, sizeof(unsigned));
            cudaMallocManaged(&power, 2 * sizeof(float));
            power[0] = 3.0f;
            kernel<<<1, 1>>>(out, power);
            cudaDeviceSynchronize();
            printf("%u %g\\n", out[0], power[1]);
        }
        """)
    nvcc(["sad.cu", "-o", "sad"], tmp_path)
    ran = subprocess.run([str(tmp_path / "sad")], capture_output=True, text=True, timeout=60)
    assert ran.stdout.split() == ["18", "8"], ran.stdout + ran.stderr  # 3 + 1 + 1 + 3 + 10; 2^3


def test_a_template_kernel_launched_with_some_template_arguments_deduces_the_rest(tmp_path):
    # HeCBench's aop: generate_paths_kernel<256><<<grid, 256>>>(..., payoff, ...), Payoff deduced.
    write(tmp_path, "partial.cu", """\
        #include <cstdio>
        struct Payoff { float strike; };
        template <int N, typename P>
        __global__ __launch_bounds__(N) void paths(int n, P payoff, float *out) { out[threadIdx.x] = payoff.strike * N + n; }
        template <int N, typename T = float>
        __global__ void filled(T *out) { out[threadIdx.x] = N; }
        int main()
        {
            float *out;
            cudaMallocManaged(&out, 4 * sizeof(float));
            paths<2><<<1, 4>>>(3, Payoff{1.5f}, out);
            cudaDeviceSynchronize();
            printf("%g ", out[1]);
            filled<7><<<1, 4>>>(out);
            cudaDeviceSynchronize();
            printf("%g\\n", out[2]);
        }
        """)
    nvcc(["partial.cu", "-o", "partial"], tmp_path)
    ran = subprocess.run([str(tmp_path / "partial")], capture_output=True, text=True, timeout=60)
    assert ran.stdout.split() == ["6", "7"], ran.stdout + ran.stderr


def test_device_code_gets_per_loop_register_allocation_from_gcc_only(tmp_path):
    # An accumulator live across __syncthreads() stays in a register within the inner loop
    # (nvcc-emu's device_code_tuning says why); clang does not take the option.
    write(tmp_path, "k.cu", "__global__ void k(float *x) { x[0] = 1; }\n")
    gcc = nvcc(["-dryrun", "-c", "k.cu", "-o", "k.o"], tmp_path, env={"EMU_CXX": "g++"}).stderr
    assert re.search(r"^#\$ g\+\+ .*-fira-region=all .*k\.cu\.emu\.cpp", gcc, re.M), gcc
    if shutil.which("clang++"):
        clang = nvcc(["-dryrun", "-c", "k.cu", "-o", "k.o"], tmp_path, env={"EMU_CXX": "clang++"}).stderr
        assert "k.cu.emu.cpp" in clang and "-fira-region" not in clang, clang
