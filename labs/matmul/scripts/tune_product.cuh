// What the tuning tools (tune_fast.cu, tune_tensor.cu) share: seeded A and B on the device, a
// candidate's C from one run, the float64 rows of A·B to check it against, cuBLAS's status check
// and the command line. Included after the solution's matmul.c (CUDA_CHECK).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <cublas_v2.h>

#include "device_memory.h"
#include "library_check.h"
#include "seeded.h"
#include "timed_runs.h"

#define CUBLAS_CHECK(call) LAB_LIBRARY_CHECK("cuBLAS", call, CUBLAS_STATUS_SUCCESS, cublasGetStatusString)

struct DeviceProduct {
    DeviceMemory memory;  // frees A, B and C
    int n;
    size_t count, bytes;
    std::vector<float> host;  // A then B
    float *A = nullptr, *B = nullptr, *C = nullptr;
    DeviceProduct(int n_, uint64_t seed) : n(n_), count((size_t)n_ * n_), bytes(count * sizeof(float)), host(2 * count)
    {
        seeded_uniform_floats(host.data(), host.size(), seed);
        A = memory.copy_of<float>(host.data(), count);
        B = memory.copy_of<float>(host.data() + count, count);
        C = memory.alloc<float>(count);
    }

    // C after one run on a NaN-poisoned C (0xFF bytes): unwritten entries stay NaN.
    template <class F>
    std::vector<float> result_of(F run)
    {
        CUDA_CHECK(cudaMemset(C, 0xFF, bytes));
        run();
        CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<float> out(count);
        CUDA_CHECK(cudaMemcpy(out.data(), C, bytes, cudaMemcpyDeviceToHost));
        return out;
    }
};

// The figure both tools compare: the median GPU time of `reps` runs after a warm-up.
template <class F>
static float time_ms(F run, int reps)
{
    return time_runs(run, reps).ms;
}

// Rows `rows` of the float64 product of A and B (`host`: A then B), on every CPU core; row r of
// the result is row rows[r] of A·B.
static std::vector<double> float64_rows(const std::vector<float> &host, int n, const std::vector<int> &rows)
{
    const float *A = host.data(), *B = host.data() + (size_t)n * n;
    std::vector<double> C(rows.size() * (size_t)n, 0.0);
    unsigned workers = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w)
        pool.emplace_back([&, w] {
            for (size_t r = w; r < rows.size(); r += workers)
                for (int k = 0; k < n; ++k) {
                    double a = A[(size_t)rows[r] * n + k];
                    for (int j = 0; j < n; ++j)
                        C[r * n + j] += a * B[(size_t)k * n + j];
                }
        });
    for (std::thread &t : pool)
        t.join();
    return C;
}

// The check's table: each candidate's worst error over its bound across the sizes checked, and
// the n it came at. NaN (an entry left unwritten) counts as the worst, infinite.
class WorstErrors {
public:
    explicit WorstErrors(size_t candidates) : worst_(candidates, 0.0), at_n_(candidates, 0) {}
    void see(size_t candidate, double error_over_bound, int n)
    {
        if (!(error_over_bound <= worst_[candidate])) {
            worst_[candidate] = std::isnan(error_over_bound) ? INFINITY : error_over_bound;
            at_n_[candidate] = n;
        }
    }
    // Prints one line a candidate (names `width` wide) and a verdict; returns 1 if a candidate
    // went over its bound (the tool's exit status), else 0. `bound` names the bound in the verdict.
    template <class Candidate, size_t N>
    int report(const Candidate (&candidates)[N], int width, const char *heading, const char *bound) const
    {
        int failures = 0;
        printf("%-*s %s\n", width, "candidate", heading);
        for (size_t c = 0; c < N; ++c) {
            bool ok = worst_[c] <= 1.0;
            failures += !ok;
            printf("%-*s %8.3f at n = %-5d %s\n", width, candidates[c].name, worst_[c], at_n_[c], ok ? "ok" : "WRONG");
        }
        if (failures)
            printf("check: %d candidates WRONG\n", failures);
        else
            printf("check: every candidate within %s at every n\n", bound);
        return failures ? 1 : 0;
    }

private:
    std::vector<double> worst_;
    std::vector<int> at_n_;
};

// The command line both tools take: `check` runs `check_all` (its status is the exit status);
// otherwise `time_all` at each size given (4096 if none), 50 timed runs a candidate up to
// n = 1024, 15 above.
static int tune_main(int argc, char **argv, int (*check_all)(), void (*time_all)(int n, int reps))
{
    if (argc > 1 && std::strcmp(argv[1], "check") == 0)
        return check_all();
    std::vector<int> sizes;
    for (int i = 1; i < argc; ++i)
        sizes.push_back(atoi(argv[i]));
    if (sizes.empty())
        sizes.push_back(4096);
    for (int n : sizes)
        time_all(n, n <= 1024 ? 50 : 15);
    return 0;
}
