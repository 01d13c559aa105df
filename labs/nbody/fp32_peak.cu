#include "fp32_peak.h"

#include <algorithm>

#include "cuda_check.h"
#include "gpu_timer.h"

// FP32 units a SM by compute capability (the CUDA C++ Programming Guide's table of arithmetic
// throughput: 128 results of fp32 fused multiply-add a clock a SM, 64 on 6.0, 7.x and 8.0).
static int fp32_lanes_per_sm(int major, int minor)
{
    if ((major == 6 && minor == 0) || major == 7 || (major == 8 && minor == 0))
        return 64;
    return 128;
}

static const int kChains = 8;         // independent accumulators: enough to hide the FMA latency
static const int kIterations = 1 << 14;

__global__ void fma_ceiling_kernel(float *out, float a, float b)
{
    float acc[kChains];
    for (int k = 0; k < kChains; ++k)
        acc[k] = threadIdx.x + k;
    for (int i = 0; i < kIterations; ++i) {
#pragma unroll
        for (int k = 0; k < kChains; ++k)
            acc[k] = fmaf(acc[k], a, b);
    }
    float sum = 0;
    for (int k = 0; k < kChains; ++k)
        sum += acc[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // kept: the compiler may not drop the loop
}

Fp32Peak measure_fp32_peak()
{
    Fp32Peak peak;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    peak.sms = prop.multiProcessorCount;
    peak.lanes_per_sm = fp32_lanes_per_sm(prop.major, prop.minor);
    peak.clock_mhz = clock_khz / 1e3;
    peak.peak_gflops = 2.0 * peak.sms * peak.lanes_per_sm * peak.clock_mhz / 1e3;

    // One wave: 4 blocks of 256 threads a SM are resident together on every GPU since 2012.
    const int threads = 256, blocks = 4 * peak.sms;
    float *out = nullptr;
    CUDA_CHECK(cudaMalloc((void **)&out, sizeof(float) * threads * blocks));
    GpuTimer timer;
    double best_ms = 1e30;
    for (int run = 0; run < 4; ++run) {  // the first warms the clock up; the fastest counts
        timer.start();
        fma_ceiling_kernel<<<blocks, threads>>>(out, 0.999f, 0.001f);
        CUDA_CHECK_LAUNCH();
        timer.stop();
        best_ms = std::min(best_ms, static_cast<double>(timer.ms()));
    }
    CUDA_CHECK(cudaFree(out));
    double flops = 2.0 * kChains * kIterations * static_cast<double>(threads) * blocks;
    peak.fma_gflops = flops / (best_ms * 1e6);
    return peak;
}
