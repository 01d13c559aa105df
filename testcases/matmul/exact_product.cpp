// The matmul lab's expected outputs for large n: the exact product of the seeded A and B,
// rounded to float32. testcases/matmul/gen.py compiles and runs this (pure Python is too slow
// past n of about 100) and does the same in Python for small n; the two agree bit for bit.
//
//   exact_product N SEED OUTPUT
//
// Every input is k * 2^-24 with 0 <= k < 2^24 (labs/common/seeded.h), so a product is an
// integer times 2^-48 below 2^48, and a sum of n <= 2^16 of them is an exact uint64. The
// exact sum is rounded to double, scaled by 2^-48 (exact), then rounded to float32: an
// algorithm independent of any float32 summation order the kernels use.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "seeded.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: exact_product N SEED OUTPUT\n");
        return 2;
    }
    long n = std::strtol(argv[1], nullptr, 10);
    uint64_t seed = std::strtoull(argv[2], nullptr, 10);
    if (n < 1 || n > 65536) {
        std::fprintf(stderr, "exact_product: N must be between 1 and 65536, got %s\n", argv[1]);
        return 2;
    }
    size_t count = static_cast<size_t>(n) * n;
    std::vector<float> inputs(2 * count);
    seeded_uniform_floats(inputs.data(), inputs.size(), seed);
    // The integers k = value * 2^24, exact.
    std::vector<uint32_t> A(count), B(count);
    for (size_t i = 0; i < count; ++i) {
        A[i] = static_cast<uint32_t>(inputs[i] * 16777216.0f);
        B[i] = static_cast<uint32_t>(inputs[count + i] * 16777216.0f);
    }
    std::vector<float> C(count);
    auto rows = [&](long first, long last) {
        std::vector<uint64_t> sum(n);
        for (long i = first; i < last; ++i) {
            std::fill(sum.begin(), sum.end(), 0);
            for (long k = 0; k < n; ++k) {
                uint64_t a = A[i * n + k];
                const uint32_t *b = &B[k * n];
                for (long j = 0; j < n; ++j)
                    sum[j] += a * b[j];
            }
            for (long j = 0; j < n; ++j)
                C[i * n + j] = static_cast<float>(std::ldexp(static_cast<double>(sum[j]), -48));
        }
    };
    unsigned workers = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    long per = (n + workers - 1) / workers;
    for (long first = 0; first < n; first += per)
        pool.emplace_back(rows, first, std::min(n, first + per));
    for (std::thread &t : pool)
        t.join();
    FILE *out = std::fopen(argv[3], "wb");
    if (!out || std::fwrite(C.data(), sizeof(float), count, out) != count || std::fclose(out) != 0) {
        std::perror(argv[3]);
        return 1;
    }
    return 0;
}
