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
//   build/tune_tensor 2048 4096          times, TFLOP/s, ratio to cuBLAS SGEMM timed in turns
//                                        with each candidate, max and mean relative error (64
//                                        sampled rows against float64)
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
#include <functional>
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
    // round 5, each one change from matmul_tensor's (LATE_COPY, GROUP 8), for the H100's last
    // percent: an 80-k flush (the mean error, about linear in the period, should stay under
    // SGEMM's: near 6e-7); launch groups of 4. (3 stages with LATE_COPY spill: 255 registers.)
    PLANE(64, 128, 16, 32, 64, 4, 80, 8, true),
    PLANE(64, 128, 16, 32, 64, 4, 64, 4, true),
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

// Each candidate is timed in turns with cuBLAS SGEMM (time_interleaved: 3 kept rounds, after one
// round not kept), and its ratio is the median of the rounds' ratios: the two meet the same
// clocks. A turn is at least 100 launches, as in make bench: in shorter bursts the tensor
// kernels run above the clock that the card's power limit lets them keep. (Until round 5 each
// candidate was timed in bursts of 15, by the better of two medians, and SGEMM once, first, with
// the card coming from idle: that flattered the candidates by 4 to 9%. NOTES.md, round 5.)
static void time_all(int n, int reps)
{
    const int rounds = 3;
    reps = std::max(reps, 100);
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
    std::function<void()> sgemm = cublas(CUBLAS_COMPUTE_32F);
    std::vector<double> sgemm_rounds;  // SGEMM's median in every round of every row: its drift
    double flops = 2.0 * n * (double)n * n;
    printf("\nn = %d (errors: 64 rows against float64; ms: the median of %d rounds of %d launches, each round "
           "timing the row and SGEMM in turn; /SGEMM: the median of the rounds' ratios, and the lowest and highest)\n",
           n, rounds, reps);
    printf("%-52s %5s %8s %9s %8s %8s %13s %10s %10s\n", "candidate", "regs", "ms", "SGEMM ms", "TFLOP/s", "/SGEMM",
           "(low-high)", "max rel", "mean rel");
    // One row: `run` and SGEMM in turns; regs < 0 prints no register count.
    auto row = [&](const char *name, int regs, std::function<void()> run, bool spills) {
        Errors err = errors_of(d.result_of(run), want, n, rows);
        std::vector<std::vector<double>> ms = time_interleaved({run, sgemm}, rounds, reps, 1000.0);
        std::vector<double> ratios;
        for (int r = 0; r < rounds; ++r)
            ratios.push_back(ms[1][r] / ms[0][r]);
        sgemm_rounds.insert(sgemm_rounds.end(), ms[1].begin(), ms[1].end());
        Spread time = spread_of(ms[0]), ratio = spread_of(ratios);
        char regs_text[16] = "", low_high[32];
        if (regs >= 0)
            snprintf(regs_text, sizeof regs_text, "%d", regs);
        snprintf(low_high, sizeof low_high, "%.3f-%.3f", ratio.min, ratio.max);
        printf("%-52s %5s %8.3f %9.3f %8.1f %8.3f %13s %10.2e %10.2e%s\n", name, regs_text, time.median,
               median(ms[1]), flops / (time.median * 1e9), ratio.median, low_high, err.max_rel, err.mean_rel,
               spills ? "  (spills to local memory)" : "");
    };
    row("cuBLAS SGEMM (CUBLAS_COMPUTE_32F)", -1, sgemm, false);
    row("cuBLAS TF32 (CUBLAS_COMPUTE_32F_FAST_TF32)", -1, cublas(CUBLAS_COMPUTE_32F_FAST_TF32), false);
    for (const Candidate &c : kCandidates) {
        cudaFuncAttributes attr;
        CUDA_CHECK(cudaFuncGetAttributes(&attr, c.kernel));
        row(c.name, attr.numRegs, [&] { c.launch(d.A, d.B, d.C, n); }, attr.localSizeBytes != 0);
    }
    // The plane kernels' first pass alone (part of each plane candidate's time above).
    float split_ms = time_ms([&] { split_into_planes(d.A, d.B, n); }, reps);
    printf("%-52s %5s %8.3f   (%.1f%% of the SGEMM time)\n", "first pass alone (split_into_planes)", "", split_ms,
           100.0 * split_ms / median(sgemm_rounds));
    Spread drift = spread_of(sgemm_rounds);
    printf("cuBLAS SGEMM over all rounds: median %.3f ms, lowest %.3f, highest %.3f (the card's drift)\n",
           drift.median, drift.min, drift.max);
    CUBLAS_CHECK(cublasDestroy(handle));
}

int main(int argc, char **argv) { return tune_main(argc, argv, check_all, time_all); }
