#include "device.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda_check.h"
#include "gpu_timer.h"
#include "median.h"

cudaDeviceProp require_gpu(const char *program)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        std::fprintf(stderr,
                     "%s: no CUDA GPU found (%s).\n"
                     "  Run on a machine with an NVIDIA GPU and driver, or build for the CPU\n"
                     "  emulator instead: make EMU=1 ... (see handouts/emulation.md).\n",
                     program, err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
        std::exit(LAB_EXIT_NO_GPU);
    }
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    return prop;
}

bool is_emulated(const cudaDeviceProp &prop)
{
    return std::strstr(prop.name, "emulation") != nullptr;
}

double median_copy_ms(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, int runs)
{
    std::vector<double> times;
    GpuTimer timer;
    for (int run = 0; run < runs; ++run) {
        timer.start();
        CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
        timer.stop();
        times.push_back(timer.ms());
    }
    return median(times);
}

double copy_ceiling_gbps(size_t bytes, int runs)
{
    void *src = nullptr, *dst = nullptr;
    CUDA_CHECK(cudaMalloc(&src, bytes));
    CUDA_CHECK(cudaMalloc(&dst, bytes));
    CUDA_CHECK(cudaMemset(src, 1, bytes));
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));  // warm-up
    double median_ms = median_copy_ms(dst, src, bytes, cudaMemcpyDeviceToDevice, runs);
    CUDA_CHECK(cudaFree(src));
    CUDA_CHECK(cudaFree(dst));
    return 2.0 * bytes / (median_ms * 1e6);
}
