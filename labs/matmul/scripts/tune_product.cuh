// What the tuning tools (tune_fast.cu, tune_tensor.cu) share: seeded A and B on the device, a
// candidate's C from one run, the float64 rows of A·B to check it against, and cuBLAS's status
// check. Included after the solution's matmul.c (CUDA_CHECK).
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <cublas_v2.h>

#include "seeded.h"

#define CUBLAS_CHECK(call)                                                                         \
    do {                                                                                           \
        cublasStatus_t s_ = (call);                                                                \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            fprintf(stderr, "cuBLAS error %d at %s:%d: %s\n", (int)s_, __FILE__, __LINE__, #call); \
            exit(3);                                                                               \
        }                                                                                          \
    } while (0)

struct DeviceProduct {
    int n;
    size_t count, bytes;
    std::vector<float> host;  // A then B
    float *A, *B, *C;
    DeviceProduct(int n_, uint64_t seed) : n(n_), count((size_t)n_ * n_), bytes(count * sizeof(float))
    {
        host.resize(2 * count);
        seeded_uniform_floats(host.data(), host.size(), seed);
        CUDA_CHECK(cudaMalloc(&A, bytes));
        CUDA_CHECK(cudaMalloc(&B, bytes));
        CUDA_CHECK(cudaMalloc(&C, bytes));
        CUDA_CHECK(cudaMemcpy(A, host.data(), bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(B, host.data() + count, bytes, cudaMemcpyHostToDevice));
    }
    ~DeviceProduct()
    {
        cudaFree(A);
        cudaFree(B);
        cudaFree(C);
    }
    DeviceProduct(const DeviceProduct &) = delete;
    DeviceProduct &operator=(const DeviceProduct &) = delete;

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
