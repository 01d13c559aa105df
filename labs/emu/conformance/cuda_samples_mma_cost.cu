// What one warp's wmma::mma_sync costs the emulator, per fragment type of the tensor-core GEMM
// samples, and what the samples would need at their own sizes (why programs.json's "resize"
// shrinks them). CPU time of the process, so that a shared machine's other work does not count:
//
//     labs/emu/bin/nvcc-emu -O2 labs/emu/conformance/cuda_samples_mma_cost.cu -o mma_cost
//     EMU_THREADS=1 ./mma_cost
#include <cuda_bf16.h>
#include <mma.h>

#include <cstdio>
#include <ctime>

using namespace nvcuda;

namespace {
double cpu_seconds()
{
    timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return now.tv_sec + now.tv_nsec * 1e-9;
}

// Each warp loads its fragments once and multiplies them `rounds` times into its accumulator.
template <class T, class S, class Acc, int M, int N, int K>
__global__ void repeated_products(const S *a, const S *b, Acc *c, int rounds)
{
    wmma::fragment<wmma::matrix_a, M, N, K, T, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, M, N, K, T, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, M, N, K, Acc> acc;
    wmma::fill_fragment(acc, 0);
    wmma::load_matrix_sync(a_frag, a, K);
    wmma::load_matrix_sync(b_frag, b, K);
    for (int r = 0; r < rounds; ++r) wmma::mma_sync(acc, a_frag, b_frag, acc);
    wmma::store_matrix_sync(c + (threadIdx.x / 32) * M * N, acc, N, wmma::mem_row_major);
}

// Microseconds of CPU per warp mma_sync, and the sample's need at its own M x N x K.
template <class T, class S, class Acc, int M, int N, int K>
void report(const char *sample, const char *fragment, double m, double n, double k)
{
    S *a = nullptr, *b = nullptr;
    Acc *c = nullptr;
    const int blocks = 32, warps = 8, rounds = 200;
    if (cudaMallocManaged(&a, 256 * sizeof(S)) != cudaSuccess || cudaMallocManaged(&b, 256 * sizeof(S)) != cudaSuccess ||
        cudaMallocManaged(&c, warps * 256 * sizeof(Acc)) != cudaSuccess) {
        std::fprintf(stderr, "mma_cost: cudaMallocManaged failed: %s\n", cudaGetErrorString(cudaGetLastError()));
        std::exit(1);
    }
    for (int i = 0; i < 256; ++i) {
        a[i] = S(i % 3);
        b[i] = S(i % 2);
    }
    double start = cpu_seconds();
    repeated_products<T, S, Acc, M, N, K><<<blocks, warps * 32>>>(a, b, c, rounds);
    cudaError_t status = cudaDeviceSynchronize();
    if (status != cudaSuccess) {
        std::fprintf(stderr, "mma_cost: the %s kernel failed: %s\n", fragment, cudaGetErrorString(status));
        std::exit(1);
    }
    double us = (cpu_seconds() - start) * 1e6 / (blocks * warps * rounds);
    double calls = m * n * k / (M * N * K);
    std::printf("%-20s %-16s %6.2f us a warp mma_sync; at its own %.0f x %.0f x %.0f: %.2g calls, %.0f s of CPU\n",
                sample, fragment, us, m, n, k, calls, calls * us * 1e-6);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
}
}  // namespace

int main()
{
    report<__half, __half, float, 16, 16, 16>("cudaTensorCoreGemm", "half m16n16k16", 4096, 4096, 4096);
    report<unsigned char, unsigned char, int, 16, 16, 16>("immaTensorCoreGemm", "u8 m16n16k16", 4096, 4096, 4096);
    report<wmma::precision::tf32, float, float, 16, 16, 8>("tf32TensorCoreGemm", "tf32 m16n16k8", 8192, 8192, 4096);
    report<__nv_bfloat16, __nv_bfloat16, float, 16, 16, 16>("bf16TensorCoreGemm", "bf16 m16n16k16", 8192, 8192, 8192);
    report<double, double, double, 8, 8, 4>("dmmaTensorCoreGemm", "double m8n8k4", 8192, 8192, 4096);
    return 0;
}
