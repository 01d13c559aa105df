// Times shapes of the reference solution's tensor kernel (3xTF32 and 1xTF32 on the tensor
// cores) against cuBLAS SGEMM in FP32 and cuBLAS in TF32 mode, with each one's error against a
// float64 product, to choose the PlaneShape3 and MmaShape1 that matmul_tensor and
// matmul_tensor_1xtf32 launch; and
// checks every candidate on awkward sizes. A developer's tool, not part of the lab's build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Ilabs/common -Ilabs/matmul -Isolutions/matmul \
//        labs/matmul/scripts/tune_tensor.cu labs/matmul/reference.cpp -o build/tune_tensor -lcublas
//   build/tune_tensor check              every candidate on n = 1 .. 1000 against float64: its
//                                        worst error over the (n + 2) u bound (TF32 ones over
//                                        the TF32 bound of labs/matmul/reference.h)
//   build/tune_tensor 2048 4096          times, TFLOP/s, ratio to cuBLAS SGEMM, max and mean
//                                        relative error (64 sampled rows against float64)
//
// Shapes: wmma <BM, BN, BK, WM, WN, STAGES, PASSES, FLUSH, GROUP> (TensorShape, wmma_kernel.cuh);
// mma <BM, BN, BK, WM, WN, STAGES, PASSES, FLUSH, GROUP, MIN_BLOCKS, SPLIT, PRESPLIT> (MmaShape in matmul.c);
// plane <BM, BN, BK, WM, WN, STAGES, FLUSH_K, GROUP, LATE_COPY> (PlaneShape in matmul.c). The candidates round 2
// timed and dropped (FLUSH 2, PRESPLIT, k tiles of 64) are in NOTES.md with their figures.
// labs/matmul/scripts/gpu_tensor.sh builds and runs both, with the bench.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cublas_v2.h>

#include "matmul.c"  // the solution: mma_kernel, MmaShape, matmul_tensor
#include "wmma_kernel.cuh"  // its first version, for comparison
#include "reference.h"
#include "tune_product.cuh"

struct Candidate {
    const char *name;
    int passes;
    void (*launch)(const float *, const float *, float *, int);
    const void *kernel;  // the VEC4 instantiation, for its register count
};

#define SHAPE(...)                                                                            \
    {"wmma <" #__VA_ARGS__ ">", TensorShape<__VA_ARGS__>::PASSES, launch_tensor<TensorShape<__VA_ARGS__>>, \
     (const void *)tensor_kernel<TensorShape<__VA_ARGS__>, true>}
#define MMA(...)                                                                            \
    {"mma <" #__VA_ARGS__ ">", MmaShape<__VA_ARGS__>::PASSES, launch_mma<MmaShape<__VA_ARGS__>>, \
     (const void *)mma_kernel<MmaShape<__VA_ARGS__>, true>}
#define PLANE(...)                                                                          \
    {"plane <" #__VA_ARGS__ ">", PlaneShape<__VA_ARGS__>::PASSES, launch_plane<PlaneShape<__VA_ARGS__>>, \
     (const void *)plane_kernel<PlaneShape<__VA_ARGS__>, true>}
static const Candidate kCandidates[] = {
    // wmma: the 3xTF32 shape the first tuning run chose (labs/matmul/NOTES.md), for comparison.
    SHAPE(128, 128, 32, 64, 32, 2, 3, true),
    // mma.sync, each warp splitting what it reads (round 2's reference, SPLIT 1, and SPLIT 2):
    // 8 warps of 64 x 32, FLUSH 1 (each k tile summed from zero).
    MMA(128, 128, 32, 64, 32, 4, 3, 1, 8, 1, 1),
    MMA(128, 128, 32, 64, 32, 4, 3, 1, 8, 1, 2),
    // planes: each operand split once by a first pass; FLUSH_K k summed from zero a time. The
    // first is matmul_tensor's until round 4 (64 x 128 tiles of 4 warps, two blocks a
    // multiprocessor: 1.330 of SGEMM in tune_tensor on an H100, 1.250 in make bench); the rest,
    // round 4's candidates for the H100's missing 5% (NOTES.md, "round 4"), each one change:
    PLANE(64, 128, 16, 32, 64, 4, 64),
    PLANE(64, 128, 16, 32, 64, 4, 64, 8, true),   // the next tile's copies after the tile's mma
    PLANE(64, 128, 16, 32, 64, 4, 64, 16),        // launch groups of 16 block rows: less DRAM
    PLANE(64, 128, 16, 32, 64, 4, 64, 16, true),  // both
    PLANE(64, 128, 16, 32, 64, 4, 64, 32, true),  // groups of 32
    PLANE(64, 128, 16, 64, 32, 4, 64),            // 64 x 32 warp pieces side by side
    PLANE(64, 128, 16, 64, 32, 4, 64, 8, true),
    PLANE(128, 64, 16, 64, 32, 4, 64),            // 128 x 64 tiles
    PLANE(128, 64, 16, 64, 32, 4, 64, 8, true),
    PLANE(128, 64, 16, 64, 32, 4, 64, 16, true),
    PLANE(64, 256, 16, 32, 64, 4, 64),            // 8 warps, one block: 17% fewer bytes a product
    PLANE(64, 256, 16, 32, 64, 4, 64, 8, true),
    PLANE(128, 128, 32, 64, 32, 3, 64),           // round 3's one-block shape, for comparison
    PLANE(64, 128, 16, 32, 64, 4, 128),           // the 128-k flush: faster, mean error over SGEMM's
    // without any flush (truncating accumulator: the error grows with n): the speed it costs.
    MMA(128, 128, 32, 64, 32, 3, 3, 0, 8, 1, 2),
    // 1xTF32.
    MMA(128, 256, 32, 64, 64, 3, 1, 0),
};

struct Errors {
    double max_rel = 0, mean_rel = 0;
};

static Errors errors_of(const std::vector<float> &got, const std::vector<double> &want, int n,
                        const std::vector<int> &rows)
{
    Errors e;
    double sum = 0;
    for (size_t r = 0; r < rows.size(); ++r)
        for (int j = 0; j < n; ++j) {
            double exact = want[r * n + j];
            double rel = std::fabs(got[(size_t)rows[r] * n + j] - exact) / exact;
            if (!(rel <= e.max_rel))  // NaN counts as worst
                e.max_rel = std::isnan(rel) ? INFINITY : rel;
            sum += rel;
        }
    e.mean_rel = sum / (rows.size() * (double)n);
    return e;
}

static int check_all()
{
    const int sizes[] = {1, 2, 3, 5, 8, 16, 17, 31, 64, 65, 100, 127, 128, 129, 130, 255, 256, 257, 383, 513, 1000};
    const size_t count = sizeof kCandidates / sizeof kCandidates[0];
    WorstErrors worst(count);
    for (int n : sizes) {
        DeviceProduct d(n, 2000 + n);
        std::vector<int> rows(n);
        for (int i = 0; i < n; ++i)
            rows[i] = i;
        std::vector<double> want = float64_rows(d.host, n, rows);
        for (size_t c = 0; c < count; ++c) {
            std::vector<float> got = d.result_of([&] { kCandidates[c].launch(d.A, d.B, d.C, n); });
            double bound = kCandidates[c].passes == 3 ? matmul_rtol(n) : tf32_rtol(n);
            worst.see(c, errors_of(got, want, n, rows).max_rel / bound, n);
        }
    }
    return worst.report(kCandidates, 52, "worst error / bound over n = 1 .. 1000", "its bound");
}

static void time_all(int n, int reps)
{
    DeviceProduct d(n, 1);
    std::vector<int> rows;
    for (int r = 0; r < 64; ++r)
        rows.push_back((int)((long long)r * (n - 1) / 63));
    std::vector<double> want = float64_rows(d.host, n, rows);
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    const float one = 1.0f, zero = 0.0f;
    // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: pass B first.
    auto cublas = [&](cublasComputeType_t compute) {
        return [&, compute] {
            CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, d.B, CUDA_R_32F, n, d.A,
                                      CUDA_R_32F, n, &zero, d.C, CUDA_R_32F, n, compute, CUBLAS_GEMM_DEFAULT));
        };
    };
    double flops = 2.0 * n * (double)n * n;
    printf("\nn = %d (errors: 64 rows against float64)\n", n);
    printf("%-52s %5s %8s %8s %8s %8s %10s %10s\n", "candidate", "regs", "ms", "ms again", "TFLOP/s", "/SGEMM",
           "max rel", "mean rel");
    auto sgemm = cublas(CUBLAS_COMPUTE_32F);
    float sgemm_ms = time_ms(sgemm, reps);
    Errors sgemm_err = errors_of(d.result_of(sgemm), want, n, rows);
    double sgemm_tflops = flops / (sgemm_ms * 1e9);
    printf("%-52s %5s %8.3f %8s %8.1f %8.3f %10.2e %10.2e\n", "cuBLAS SGEMM (CUBLAS_COMPUTE_32F)", "", sgemm_ms, "",
           sgemm_tflops, 1.0, sgemm_err.max_rel, sgemm_err.mean_rel);
    auto tf32 = cublas(CUBLAS_COMPUTE_32F_FAST_TF32);
    float tf32_ms = time_ms(tf32, reps);
    Errors tf32_err = errors_of(d.result_of(tf32), want, n, rows);
    printf("%-52s %5s %8.3f %8s %8.1f %8.3f %10.2e %10.2e\n", "cuBLAS TF32 (CUBLAS_COMPUTE_32F_FAST_TF32)", "",
           tf32_ms, "", flops / (tf32_ms * 1e9), sgemm_ms / tf32_ms, tf32_err.max_rel, tf32_err.mean_rel);
    for (const Candidate &c : kCandidates) {
        auto run = [&] { c.launch(d.A, d.B, d.C, n); };
        Errors err = errors_of(d.result_of(run), want, n, rows);
        float ms = time_ms(run, reps), again = time_ms(run, reps);
        cudaFuncAttributes attr;
        CUDA_CHECK(cudaFuncGetAttributes(&attr, c.kernel));
        printf("%-52s %5d %8.3f %8.3f %8.1f %8.3f %10.2e %10.2e%s\n", c.name, attr.numRegs, ms, again,
               flops / (std::min(ms, again) * 1e9), sgemm_ms / std::min(ms, again), err.max_rel, err.mean_rel,
               attr.localSizeBytes ? "  (spills to local memory)" : "");
    }
    // The plane kernels' first pass alone (part of each plane candidate's time above).
    float split_ms = time_ms([&] { split_into_planes(d.A, d.B, n); }, reps);
    printf("%-52s %5s %8.3f   (%.1f%% of the SGEMM time)\n", "first pass alone (split_into_planes)", "", split_ms,
           100.0 * split_ms / sgemm_ms);
    float again = time_ms(sgemm, reps);  // the clocks may drift while the card warms up
    printf("cuBLAS SGEMM again after the candidates: %.3f ms, %.1f TFLOP/s\n", again, flops / (again * 1e9));
    CUBLAS_CHECK(cublasDestroy(handle));
}

int main(int argc, char **argv) { return tune_main(argc, argv, check_all, time_all); }
