// Times several tile shapes of the reference solution's fast kernel against cuBLAS SGEMM (plain
// FP32) at one n, to choose the FastShape that matmul_fast launches. A developer's tool, not
// part of the lab's build (the Makefile compiles only labs/matmul/*.cu|*.cpp):
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Ilabs/common -Ilabs/matmul -Isolutions/matmul \
//        labs/matmul/scripts/tune_fast.cu -o build/tune_fast -lcublas && build/tune_fast 4096
//
// Each shape's result is compared with cuBLAS's (both FP32, so they agree to rounding).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cublas_v2.h>

#include "matmul.c"  // the solution: its fast_kernel template and TileShape
#include "seeded.h"

#define CUBLAS_CHECK(call)                                                                  \
    do {                                                                                    \
        cublasStatus_t s_ = (call);                                                         \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                  \
            fprintf(stderr, "cuBLAS error %d at %s:%d: %s\n", (int)s_, __FILE__, __LINE__, #call); \
            exit(3);                                                                        \
        }                                                                                   \
    } while (0)

struct Candidate {
    const char *name;
    void (*launch)(const float *, const float *, float *, int);
};

// Only the float4 instance: the tuning sizes are multiples of 4.
template <class S>
static void launch_vec4(const float *A, const float *B, float *C, int n)
{
    dim3 grid(blocks_to_cover(n, S::BN), blocks_to_cover(n, S::BM));
    fast_kernel<S, true><<<grid, S::THREADS>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

#define SHAPE(...) {#__VA_ARGS__, launch_vec4<TileShape<__VA_ARGS__>>}
static const Candidate kCandidates[] = {
    // 256 threads, 8 x 8 a thread, two blocks a multiprocessor (128 registers at most)
    SHAPE(128, 128, 8, 32, 64, 4, 8, 2, true),
    SHAPE(128, 128, 8, 64, 32, 8, 4, 2, true),
    SHAPE(128, 128, 16, 32, 64, 4, 8, 1, true),
    // 128 threads, 8 x 16 or 16 x 8 a thread (64 x 64 warp tiles), two blocks a multiprocessor
    SHAPE(128, 128, 8, 64, 64, 8, 4, 2, true),
    SHAPE(128, 128, 16, 64, 64, 8, 4, 2, false),
    SHAPE(128, 128, 16, 64, 64, 8, 4, 2, true),
    SHAPE(128, 128, 16, 64, 64, 4, 8, 2, true),
    // 256 threads, 8 x 16 a thread, one block a multiprocessor
    SHAPE(128, 256, 8, 64, 64, 8, 4, 1, true),
    // smaller tiles, for small n (BM = 64)
    SHAPE(64, 128, 8, 32, 64, 4, 8, 3, false),
    SHAPE(64, 64, 16, 32, 32, 4, 8, 4, false),
    SHAPE(64, 64, 16, 32, 32, 4, 8, 4, true),
    SHAPE(64, 64, 8, 32, 32, 4, 8, 4, true),
};

static float median_ms(std::vector<float> t)
{
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

template <class F>
static float time_ms(F run, int reps)
{
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    run();  // warm-up
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> times;
    for (int r = 0; r < reps; ++r) {
        CUDA_CHECK(cudaEventRecord(start));
        run();
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms);
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return median_ms(times);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int reps = argc > 2 ? atoi(argv[2]) : 15;
    size_t count = (size_t)n * n, bytes = count * sizeof(float);
    std::vector<float> host(2 * count), want(count), got(count);
    seeded_uniform_floats(host.data(), host.size(), 1);
    float *A, *B, *C;
    CUDA_CHECK(cudaMalloc(&A, bytes));
    CUDA_CHECK(cudaMalloc(&B, bytes));
    CUDA_CHECK(cudaMalloc(&C, bytes));
    CUDA_CHECK(cudaMemcpy(A, host.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(B, host.data() + count, bytes, cudaMemcpyHostToDevice));

    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
    const float one = 1.0f, zero = 0.0f;
    // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: pass B first.
    auto cublas = [&] {
        CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, CUDA_R_32F, n, A,
                                  CUDA_R_32F, n, &zero, C, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT));
    };
    double flops = 2.0 * n * (double)n * n;
    float cublas_ms = time_ms(cublas, reps);
    CUDA_CHECK(cudaMemcpy(want.data(), C, bytes, cudaMemcpyDeviceToHost));
    double cublas_tflops = flops / (cublas_ms * 1e9);
    printf("n = %d: cuBLAS SGEMM (CUBLAS_COMPUTE_32F) %.3f ms, %.1f TFLOP/s\n", n, cublas_ms, cublas_tflops);
    printf("%-44s %9s %9s %9s %12s\n", "shape <BM,BN,BK,WM,WN,LY,LX,MINB,PIPE>", "ms", "TFLOP/s", "/cuBLAS", "max rel diff");
    const Candidate *best = nullptr, *best_small = nullptr;
    double best_tflops = 0, best_small_tflops = 0;
    for (const Candidate &c : kCandidates) {
        CUDA_CHECK(cudaMemset(C, 0xFF, bytes));
        float ms = time_ms([&] { c.launch(A, B, C, n); }, reps);
        CUDA_CHECK(cudaMemcpy(got.data(), C, bytes, cudaMemcpyDeviceToHost));
        double worst = 0;
        for (size_t i = 0; i < count; ++i) {
            double d = std::fabs((double)got[i] - want[i]) / std::fabs((double)want[i]);
            if (!(d <= worst))  // NaN counts as worst
                worst = std::isnan(d) ? INFINITY : d;
        }
        double tflops = flops / (ms * 1e9);
        if (worst < 1e-5 && tflops > best_tflops)
            best = &c, best_tflops = tflops;
        if (worst < 1e-5 && std::string(c.name).rfind("64,", 0) == 0 && tflops > best_small_tflops)
            best_small = &c, best_small_tflops = tflops;
        printf("<%-42s %9.3f %9.1f %9.3f %12.2e\n", (std::string(c.name) + ">").c_str(), ms, tflops,
               tflops / cublas_tflops, worst);
    }
    if (best)  // for scripts/pick_fast_shape.py
        printf("best: %s\nbest-small: %s\n", best->name, best_small ? best_small->name : best->name);
    float again = time_ms(cublas, reps);  // the clocks may drift while the card warms up
    printf("cuBLAS again after the shapes: %.3f ms, %.1f TFLOP/s\n", again, flops / (again * 1e9));
    CUBLAS_CHECK(cublasDestroy(handle));
    return 0;
}
