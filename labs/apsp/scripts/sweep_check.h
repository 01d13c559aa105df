// What the apsp sweeps (phase3_variants.cu, phase3_sweep.cu, band_sweep.cu) share besides the
// reference's kernels, which each includes from solutions/apsp/gpu.c before this file: the random
// matrix they all run on, the count of entries in which a variant's result differs from the
// reference's, and the check of the reference itself against a plain Floyd-Warshall.
#pragma once

#include <algorithm>
#include <cstdio>
#include <vector>

#include "seeded.h"

// The n x n distance matrix of a random graph: about 1 edge in 64 pairs, weights 0..1000 (zeros
// too), 0 on the diagonal, APSP_INF elsewhere.
static std::vector<int> sweep_matrix(int n, uint64_t seed)
{
    size_t count = (size_t)n * n;
    std::vector<int> host(count);
    uint64_t state = seed;
    for (size_t i = 0; i < count; ++i) {
        uint64_t r = splitmix64_next(&state);
        host[i] = (r & 63) == 0 ? (int)((r >> 8) % 1001) : APSP_INF;
    }
    for (int i = 0; i < n; ++i)
        host[(size_t)i * n + i] = 0;
    return host;
}

__global__ void count_differences(const int *a, const int *b, size_t count, unsigned long long *differences)
{
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        mine += a[i] != b[i];
    if (mine)
        atomicAdd(differences, mine);
}

// The entries of device matrix a that differ from b's, through the device counter `differences`.
static unsigned long long count_wrong(const int *a, const int *b, size_t count, unsigned long long *differences)
{
    CUDA_CHECK(cudaMemset(differences, 0, sizeof *differences));
    count_differences<<<1024, 256>>>(a, b, count, differences);
    CUDA_CHECK_LAUNCH();
    unsigned long long wrong = 0;
    CUDA_CHECK(cudaMemcpy(&wrong, differences, sizeof wrong, cudaMemcpyDeviceToHost));
    return wrong;
}

// Plain Floyd-Warshall on the CPU, the check of the reference itself at small n.
static void cpu_floyd_warshall(std::vector<int> &d, int n)
{
    for (int k = 0; k < n; ++k)
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                d[(size_t)i * n + j] = std::min(d[(size_t)i * n + j], d[(size_t)i * n + k] + d[(size_t)k * n + j]);
}

// The reference's result (on the device) against a plain Floyd-Warshall of the input; says which.
static bool reference_equals_cpu(const std::vector<int> &input, const int *reference, int n)
{
    std::vector<int> expected = input, got(input.size());
    cpu_floyd_warshall(expected, n);
    CUDA_CHECK(cudaMemcpy(got.data(), reference, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    bool same = expected == got;
    printf("reference against CPU Floyd-Warshall: %s\n", same ? "equal" : "DIFFERENT");
    return same;
}
