// Times tile shapes and pipelines of the reference solution's fast kernel against cuBLAS SGEMM
// (plain FP32), to choose the FastShape and SmallShape that matmul_fast launches, and checks
// every one of them on awkward sizes. A developer's tool, not part of the lab's build (the
// Makefile compiles only labs/matmul/*.cu|*.cpp):
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Ilabs/common -Ilabs/matmul -Isolutions/matmul \
//        labs/matmul/scripts/tune_fast.cu -o build/tune_fast -lcublas
//   build/tune_fast check              every candidate on n = 1 .. 1024 (odd, ragged, n % 4 != 0)
//                                      against a float64 product: error / the (n + 2) u bound
//   build/tune_fast 1024 2048 4096     times, TFLOP/s and the ratio to cuBLAS at each n
//
// The candidates are the steps of labs/matmul/NOTES.md, in order: the reference's fast_kernel
// (the next tile through registers, two shared-memory stages) and its grouped launch order,
// then async_kernel (scripts/async_kernel.cuh: the tiles by asynchronous copies, STAGES deep)
// with larger k steps, other warp and block shapes, and grouped launch order; then rows_kernel
// (scripts/rows_kernel.cuh: A's tile untransposed, so that both operands move 16 bytes at a time,
// through registers or by cp.async).
// Each timed result is also compared with cuBLAS's (both sum each c_ij in k order with FMA).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "matmul.c"  // the solution: its fast_kernel template, TileShape and matmul_fast
#include "async_kernel.cuh"
#include "rows_kernel.cuh"
#include "tune_product.cuh"

struct Candidate {
    const char *step;  // NOTES.md's step
    const char *name;
    void (*launch)(const float *, const float *, float *, int);
};

// Shapes: staged <BM, BN, BK, WM, WN, LY, LX, MIN_BLOCKS, FRAG_PIPE, GROUP> (TileShape in
// matmul.c: two stages, the next tile through registers), async <BM, BN, BK, WM, WN, LY, LX,
// STAGES, MIN_BLOCKS, FRAG_PIPE, GROUP> (AsyncShape in async_kernel.cuh).
#define STAGED(step, ...) {step, "staged <" #__VA_ARGS__ ">", launch_fast<TileShape<__VA_ARGS__>>}
#define ASYNC(step, ...) {step, "async <" #__VA_ARGS__ ">", launch_async<AsyncShape<__VA_ARGS__>>}
#define ROWS(step, ...) {step, "rows <" #__VA_ARGS__ ">", launch_rows<RowsShape<__VA_ARGS__>>}
static const Candidate kCandidates[] = {
    {"now", "matmul_fast (FastShape, SmallShape below 132 tiles)", matmul_fast},
    // 3: registers carry the next tile, two stages (FastShape and SmallShape).
    STAGED("3", 128, 128, 8, 32, 64, 4, 8, 2, true, 0),
    STAGED("3", 64, 128, 8, 32, 64, 4, 8, 3, false, 0),
    // 3b: the same, grouped launch order (GROUP block rows at a time), for the L2 cache.
    STAGED("3b", 128, 128, 8, 32, 64, 4, 8, 2, true, 4),
    STAGED("3b", 128, 128, 8, 32, 64, 4, 8, 2, true, 8),
    STAGED("3b", 128, 128, 8, 32, 64, 4, 8, 2, true, 16),
    STAGED("3b", 64, 128, 8, 32, 64, 4, 8, 3, false, 8),
    // 3c: k steps of 16 (half the barriers and index arithmetic per multiply-add).
    STAGED("3c", 128, 128, 16, 32, 64, 4, 8, 2, true, 0),
    STAGED("3c", 128, 128, 16, 32, 64, 4, 8, 1, true, 8),
    // 4: the same shape, the tiles by cp.async; 2, 3, 4 stages; k steps of 8 and 16.
    ASYNC("4", 128, 128, 8, 32, 64, 4, 8, 2, 2, true, 0),
    ASYNC("4", 128, 128, 8, 32, 64, 4, 8, 3, 2, true, 0),
    ASYNC("4", 128, 128, 8, 32, 64, 4, 8, 4, 2, true, 0),
    ASYNC("4", 128, 128, 16, 32, 64, 4, 8, 2, 2, true, 0),
    ASYNC("4", 128, 128, 16, 32, 64, 4, 8, 3, 2, true, 0),
    ASYNC("4", 128, 128, 16, 32, 64, 4, 8, 4, 2, true, 0),
    ASYNC("4", 128, 128, 8, 64, 32, 8, 4, 3, 2, true, 0),
    ASYNC("4", 128, 128, 8, 32, 64, 4, 8, 3, 2, false, 0),
    // 5: grouped launch order (GROUP block rows at a time), for the L2 cache.
    ASYNC("5", 128, 128, 8, 32, 64, 4, 8, 3, 2, true, 4),
    ASYNC("5", 128, 128, 8, 32, 64, 4, 8, 3, 2, true, 8),
    ASYNC("5", 128, 128, 8, 32, 64, 4, 8, 3, 2, true, 16),
    ASYNC("5", 128, 128, 16, 32, 64, 4, 8, 3, 2, true, 8),
    // 6: 128 threads, 64 x 64 warp tiles, 8 x 16 (or 16 x 8) a thread: cuBLAS's own layout.
    ASYNC("6", 128, 128, 8, 64, 64, 8, 4, 3, 2, true, 0),
    ASYNC("6", 128, 128, 8, 64, 64, 8, 4, 4, 2, true, 0),
    ASYNC("6", 128, 128, 16, 64, 64, 8, 4, 3, 2, true, 0),
    ASYNC("6", 128, 128, 8, 64, 64, 4, 8, 3, 2, true, 0),
    ASYNC("6", 128, 128, 8, 64, 64, 8, 4, 3, 3, true, 0),
    ASYNC("6", 128, 128, 8, 64, 64, 8, 4, 3, 2, true, 8),
    // 7: 256 threads, 8 x 16 a thread, larger block tiles, one block a multiprocessor.
    ASYNC("7", 128, 256, 8, 64, 64, 8, 4, 3, 1, true, 0),
    ASYNC("7", 128, 256, 8, 64, 64, 8, 4, 4, 1, true, 0),
    ASYNC("7", 128, 256, 16, 64, 64, 8, 4, 3, 1, true, 0),
    ASYNC("7", 256, 128, 8, 64, 64, 8, 4, 3, 1, true, 0),
    ASYNC("7", 128, 256, 8, 64, 64, 8, 4, 3, 1, true, 8),
    // 8: small tiles, for small n (BM = 64: the `small` column of pick_fast_shape.py).
    ASYNC("8", 64, 128, 8, 32, 64, 4, 8, 3, 3, true, 0),
    ASYNC("8", 64, 128, 8, 32, 64, 4, 8, 4, 3, true, 0),
    ASYNC("8", 64, 128, 16, 32, 64, 4, 8, 3, 3, true, 0),
    ASYNC("8", 64, 128, 8, 32, 64, 4, 8, 3, 3, false, 0),
    ASYNC("8", 64, 64, 8, 32, 32, 4, 8, 3, 4, true, 0),
    ASYNC("8", 64, 64, 16, 32, 32, 4, 8, 3, 4, true, 0),
    // 9: A's tile untransposed (As[m][k]), read along k 4 steps at a time, rows interleaved:
    // 16-byte loads and stores for A too (scripts/rows_kernel.cuh), both operands through registers.
    ROWS("9", 128, 128, 8, 32, 64, 4, 8, 2, 2, false, false),
    ROWS("9", 128, 128, 16, 32, 64, 4, 8, 2, 2, false, false),
    ROWS("9", 64, 128, 8, 32, 64, 4, 8, 2, 3, false, false),
    // 10: the same, B by cp.async, A still through registers.
    ROWS("10", 128, 128, 8, 32, 64, 4, 8, 2, 2, false, true),
    ROWS("10", 128, 128, 8, 32, 64, 4, 8, 3, 2, false, true),
    ROWS("10", 128, 128, 16, 32, 64, 4, 8, 3, 2, false, true),
    // 11: both by 16-byte cp.async, 2 to 4 stages.
    ROWS("11", 128, 128, 8, 32, 64, 4, 8, 2, 2, true, true),
    ROWS("11", 128, 128, 8, 32, 64, 4, 8, 3, 2, true, true),
    ROWS("11", 128, 128, 8, 32, 64, 4, 8, 4, 2, true, true),
    ROWS("11", 128, 128, 16, 32, 64, 4, 8, 3, 2, true, true),
    ROWS("11", 128, 128, 16, 32, 64, 4, 8, 4, 2, true, true),
    ROWS("11", 64, 128, 8, 32, 64, 4, 8, 3, 3, true, true),
    // 12: cuBLAS's layout: 128 threads, 64 x 64 warp tiles, 8 x 16 a thread; and 128 x 256 tiles.
    ROWS("12", 128, 128, 8, 64, 64, 8, 4, 2, 2, false, false),
    ROWS("12", 128, 128, 8, 64, 64, 8, 4, 3, 2, true, true),
    ROWS("12", 128, 128, 8, 64, 64, 8, 4, 4, 2, true, true),
    ROWS("12", 128, 128, 16, 64, 64, 8, 4, 3, 2, true, true),
    ROWS("12", 128, 128, 8, 64, 64, 8, 4, 3, 3, true, true),
    ROWS("12", 128, 128, 8, 64, 64, 8, 4, 3, 2, false, true),
    ROWS("12", 128, 128, 16, 64, 64, 8, 4, 4, 2, true, true),
    ROWS("12", 128, 256, 8, 64, 64, 8, 4, 2, 1, false, false),
    ROWS("12", 128, 256, 8, 64, 64, 8, 4, 3, 1, true, true),
    ROWS("12", 256, 128, 8, 64, 64, 8, 4, 3, 1, true, true),
};

static int check_all()
{
    const int sizes[] = {1, 2, 3, 4, 5, 8, 17, 31, 63, 64, 65, 100, 127, 128, 129, 130, 200, 255, 256, 257,
                         383, 500, 511, 513, 640, 1000, 1001, 1023, 1024};
    const size_t count = sizeof kCandidates / sizeof kCandidates[0];
    WorstErrors worst(count);
    for (int n : sizes) {
        DeviceProduct d(n, 1000 + n);
        std::vector<int> every_row(n);
        std::iota(every_row.begin(), every_row.end(), 0);
        std::vector<double> want = float64_rows(d.host, n, every_row);
        // The inputs are in [0, 1): c_ij is its own scale sum_k |a_ik||b_kj|, so (n + 2) u
        // relative is the harness's bound (labs/matmul/reference.h).
        double bound = (n + 2) * std::ldexp(1.0, -24);
        for (size_t c = 0; c < count; ++c) {
            std::vector<float> got = d.result_of([&] { kCandidates[c].launch(d.A, d.B, d.C, n); });
            for (size_t i = 0; i < got.size(); ++i) {
                double e = std::fabs(got[i] - want[i]) / (want[i] * bound);
                if (want[i] == 0.0)
                    e = got[i] == 0.0f ? 0.0 : INFINITY;
                worst.see(c, e, n);
            }
        }
    }
    return worst.report(kCandidates, 70, "worst error / bound over n = 1 .. 1024 (NaN: unwritten)", "the bound");
}

static void time_all(int n, int reps)
{
    DeviceProduct d(n, 1);
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
    const float one = 1.0f, zero = 0.0f;
    // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: pass B first.
    auto cublas = [&] {
        CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, d.B, CUDA_R_32F, n, d.A,
                                  CUDA_R_32F, n, &zero, d.C, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT));
    };
    double flops = 2.0 * n * (double)n * n;
    float cublas_ms = time_ms(cublas, reps);
    std::vector<float> want(d.count);
    CUDA_CHECK(cudaMemcpy(want.data(), d.C, d.bytes, cudaMemcpyDeviceToHost));
    double cublas_tflops = flops / (cublas_ms * 1e9);
    printf("\nn = %d: cuBLAS SGEMM (CUBLAS_COMPUTE_32F) %.3f ms, %.1f TFLOP/s\n", n, cublas_ms, cublas_tflops);
    printf("%-4s %-62s %8s %8s %8s %8s %10s\n", "step", "candidate", "ms", "ms again", "TFLOP/s", "/cuBLAS",
           "rel diff");
    const Candidate *best = nullptr, *best_small = nullptr;
    double best_tflops = 0, best_small_tflops = 0;
    for (const Candidate &c : kCandidates) {
        auto run = [&] { c.launch(d.A, d.B, d.C, n); };
        std::vector<float> got = d.result_of(run);
        float ms = time_ms(run, reps), again = time_ms(run, reps);
        double worst = 0;
        for (size_t i = 0; i < d.count; ++i) {
            double e = std::fabs((double)got[i] - want[i]) / std::fabs((double)want[i]);
            if (!(e <= worst))  // NaN counts as worst
                worst = std::isnan(e) ? INFINITY : e;
        }
        double tflops = flops / (std::min(ms, again) * 1e9);
        bool staged = std::strncmp(c.name, "staged <", 8) == 0;  // matmul_fast's kernel
        if (staged && worst < 1e-5 && tflops > best_tflops)
            best = &c, best_tflops = tflops;
        if (staged && worst < 1e-5 && std::strncmp(c.name, "staged <64,", 11) == 0 && tflops > best_small_tflops)
            best_small = &c, best_small_tflops = tflops;
        printf("%-4s %-62s %8.3f %8.3f %8.1f %8.3f %10.2e\n", c.step, c.name, ms, again, tflops,
               tflops / cublas_tflops, worst);
    }
    // For scripts/pick_fast_shape.py: the staged shapes (matmul_fast's), without "staged <" and ">".
    auto shape = [](const Candidate *c) { return std::string(c->name + 8, std::strlen(c->name) - 9); };
    if (best)
        printf("best: %s\nbest-small: %s\n", shape(best).c_str(), shape(best_small ? best_small : best).c_str());
    float again = time_ms(cublas, reps);  // the clocks may drift while the card warms up
    printf("cuBLAS again after the candidates: %.3f ms, %.1f TFLOP/s\n", again, flops / (again * 1e9));
    CUBLAS_CHECK(cublasDestroy(handle));
}

int main(int argc, char **argv) { return tune_main(argc, argv, check_all, time_all); }
