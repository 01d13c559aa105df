// The emulator's benchmark: helpers shared by its parts (see main.cu).
#pragma once

#include <cuda_runtime.h>
#include <time.h>

#include <algorithm>
#include <vector>

// Wall-clock time (what a CUDA event pair measures, under emulation) and the CPU time all of
// the emulator's threads spent, which a busy machine disturbs less.
struct Timing {
    double wall_ms;
    double cpu_ms;
};

inline double process_cpu_ms()
{
    timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

// Median times of `runs` runs of `work`, wall time from CUDA events.
template <class Work>
Timing median_ms(int runs, Work work)
{
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    work();  // warm-up: fiber stacks and shared memory are made on first use
    std::vector<float> walls;
    std::vector<double> cpus;
    for (int run = 0; run < runs; ++run) {
        double cpu_before = process_cpu_ms();
        cudaEventRecord(start);
        work();
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        cpus.push_back(process_cpu_ms() - cpu_before);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        walls.push_back(ms);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(walls.begin(), walls.end());
    std::sort(cpus.begin(), cpus.end());
    return Timing{walls[walls.size() / 2], cpus[cpus.size() / 2]};
}

// The operands of an n x n matrix product in device memory, the inputs zeroed.
struct ProductOperands {
    float *a = nullptr, *b = nullptr, *c = nullptr;
};
inline ProductOperands product_operands(int n)
{
    ProductOperands m;
    size_t bytes = (size_t)n * n * sizeof(float);
    cudaMalloc(&m.a, bytes);
    cudaMalloc(&m.b, bytes);
    cudaMalloc(&m.c, bytes);
    cudaMemset(m.a, 0, bytes);
    cudaMemset(m.b, 0, bytes);
    return m;
}
inline void free_operands(const ProductOperands &m)
{
    cudaFree(m.a);
    cudaFree(m.b);
    cudaFree(m.c);
}

Timing time_increment_ms(int n, int block_size);
Timing time_barrier_heavy_ms(int blocks, int threads, int rounds);
Timing time_tiled_product_ms(int n);
Timing time_naive_product_ms(int n);
double fiber_switch_ns(long switches);
