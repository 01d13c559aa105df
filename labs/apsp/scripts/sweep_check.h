// What the apsp sweeps (phase3_variants.cu, phase3_sweep.cu, band_sweep.cu) share besides the
// reference's kernels, which each includes from solutions/apsp/gpu.c before this file: the random
// matrix they all run on and its device copies, the count of entries in which a variant's result
// differs from the reference's, the check of the reference itself against a plain
// Floyd-Warshall, the median of a variant's runs, and the main() that sweeps the sizes asked for.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "seeded.h"

// The seed's shape, gpu.c's phase 1 before band_sweep.cu's step 36: HALF x HALF threads, four
// entries each.
#define HALF (BLOCK < 32 ? BLOCK : 32)

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

// The matrices of one size's sweep: the random input on the host and the device, the copy a
// variant works on, the reference's result, and count_wrong's counter.
struct SweepMatrices {
    size_t count, bytes;
    std::vector<int> host;
    int *input, *work, *reference;
    unsigned long long *differences;
};

static SweepMatrices sweep_matrices_create(int n, uint64_t seed)
{
    SweepMatrices m;
    m.count = (size_t)n * n;
    m.bytes = m.count * sizeof(int);
    m.host = sweep_matrix(n, seed);
    CUDA_CHECK(cudaMalloc(&m.input, m.bytes));
    CUDA_CHECK(cudaMalloc(&m.work, m.bytes));
    CUDA_CHECK(cudaMalloc(&m.reference, m.bytes));
    CUDA_CHECK(cudaMalloc(&m.differences, sizeof *m.differences));
    CUDA_CHECK(cudaMemcpy(m.input, m.host.data(), m.bytes, cudaMemcpyHostToDevice));
    return m;
}

static void sweep_matrices_destroy(SweepMatrices *m)
{
    CUDA_CHECK(cudaFree(m->input));
    CUDA_CHECK(cudaFree(m->work));
    CUDA_CHECK(cudaFree(m->reference));
    CUDA_CHECK(cudaFree(m->differences));
}

// A variant's run starts from the input, on a matrix poisoned first so that an entry it leaves
// unwritten shows.
static void restart_work(const SweepMatrices *m)
{
    CUDA_CHECK(cudaMemset(m->work, 0x7f, m->bytes));
    CUDA_CHECK(cudaMemcpy(m->work, m->input, m->bytes, cudaMemcpyDeviceToDevice));
}

// The rate the tables print: Floyd-Warshall's n^3 updates in ms milliseconds, in 10^12 a second.
static double tera_updates_per_s(int n, float ms)
{
    return (double)n * n * n / (ms * 1e-3) / 1e12;
}

// The reference's run has just left its result in m->work: keep it as what the variants must
// equal, and at small n check it against a plain Floyd-Warshall; says whether that holds.
static bool keep_reference(const SweepMatrices *m, int n)
{
    CUDA_CHECK(cudaMemcpy(m->reference, m->work, m->bytes, cudaMemcpyDeviceToDevice));
    return n > 1024 || reference_equals_cpu(m->host, m->reference, n);
}

// A variant's times in ms, `reps` runs of `run`, each from a fresh copy of the input.
template <class Run>
static std::vector<float> variant_times(const SweepMatrices *m, int reps, Run run)
{
    std::vector<float> times;
    for (int rep = 0; rep < reps; ++rep) {
        restart_work(m);
        CUDA_CHECK(cudaDeviceSynchronize());
        GpuTimer timer;
        timer.start();
        run();
        timer.stop();
        times.push_back(timer.ms());
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    return times;
}

// The entries of a variant's result (m->work) that differ from the reference's. The first
// variant of a sweep is the reference itself: its result becomes the one to equal, and a
// failed check of it against a plain Floyd-Warshall clears *ok.
static unsigned long long variant_wrong(const SweepMatrices *m, int n, bool is_reference, bool *ok)
{
    if (is_reference)
        *ok = keep_reference(m, n) && *ok;
    return count_wrong(m->work, m->reference, m->count, m->differences);
}

// A variant's row of the table: its median time, the rate and the entries it got wrong; dashes
// for a variant that is not the whole algorithm (not checked).
static void print_variant_row(int name_width, const char *name, int n, float ms, bool checked, unsigned long long wrong)
{
    if (checked)
        printf("%-*s %10.2f %14.3f %8llu\n", name_width, name, ms, tera_updates_per_s(n, ms), wrong);
    else
        printf("%-*s %10.2f %14s %8s\n", name_width, name, ms, "-", "-");
}

// The median of a variant's times; where there are several, the first (the warm-up) left out.
static float median_after_warm_up(const std::vector<float> &times)
{
    std::vector<float> kept(times.begin() + (times.size() > 1), times.end());
    std::sort(kept.begin(), kept.end());
    return kept[kept.size() / 2];
}

// main() of phase3_sweep.cu and band_sweep.cu: sweep(n, timed) for each size on the command line,
// the first timed and the others only checked; the exit status.
static int sweep_sizes(int argc, char **argv, bool (*sweep)(int n, bool timed))
{
    bool ok = true;
    for (int a = 1; a < argc; ++a) {
        int n = atoi(argv[a]);
        if (n <= 0 || n % BLOCK != 0) {
            fprintf(stderr, "n must be a positive multiple of %d\n", BLOCK);
            return 2;
        }
        ok = sweep(n, a == 1) && ok;
    }
    printf("%s\n", ok ? "all variants equal to the reference" : "SOME VARIANT DIFFERS");
    return ok ? 0 : 1;
}
