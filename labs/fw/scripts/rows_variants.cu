// Times variants of the `rows` step kernel against a device-to-device copy, to find out why
// rows reaches a copy's rate on one card and not on another, and checks that each variant
// computes the same matrix as solutions/fw/fw.c's fwStepK. A developer's tool, not part of the
// lab's build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Ilabs/common -Ilabs/fw labs/fw/scripts/rows_variants.cu \
//        labs/common/device.cu labs/common/lab_error.cpp -o build/rows_variants
//   (or: bash labs/fw/scripts/gpu_verify.sh variants)
//   build/rows_variants [N]          (default 8192: the bench's size)
//
// Measured on an H200 (one run, 2026-11-27; copy 4111 GB/s): rows 0.730 of the copy; one int a
// thread in blocks of 256, 512, 1024: 0.731, 0.677, 0.595; int2 1.277; int4 in blocks of 128
// and 256: 1.572 and 1.802 (the reference's version wide); 2 and 4 rows a block: 1.152, 1.689.
//
// The matrix is random distances with a fifth of the entries FW_INF (no edge), N rows of Na
// ints as the lab stores them; every variant runs the N steps on its own copy, and the ratio is
// 8 N Na bytes a step over the time, against a copy of the matrix (labs/common/device.h), as
// `fw --bench` reports it.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "device.h"
#include "../../solutions/fw/fw.c"  // fwStepK and THREADS_PER_BLOCK: the reference's kernel

// Each thread VEC entries of row i (VEC ints read at once: 8 or 16 bytes), a block THREADS
// threads; (i,k) in __shared__, every read issued before the barrier as in fwStepK.
template <int VEC>
struct IntVec;
template <> struct IntVec<1> { using type = int; };
template <> struct IntVec<2> { using type = int2; };
template <> struct IntVec<4> { using type = int4; };

template <int VEC>
__global__ void step_vec(int k, int *dist, int Na, int N)
{
    using V = typename IntVec<VEC>::type;
    int col = (blockIdx.x * blockDim.x + threadIdx.x) * VEC;
    int row = blockIdx.y;
    bool inside = col < N;
    V through[1], current[1];
    if (inside) {
        through[0] = *reinterpret_cast<const V *>(dist + (size_t)k * Na + col);
        current[0] = *reinterpret_cast<const V *>(dist + (size_t)row * Na + col);
    }
    __shared__ int dik;
    if (threadIdx.x == 0)
        dik = dist[(size_t)row * Na + k];
    __syncthreads();
    if (!inside || dik == FW_INF)
        return;
    const int *t = reinterpret_cast<const int *>(through), *c = reinterpret_cast<const int *>(current);
#pragma unroll
    for (int e = 0; e < VEC; ++e)
        if (col + e < N && t[e] != FW_INF && dik + t[e] < c[e])
            dist[(size_t)row * Na + col + e] = dik + t[e];
}

// R rows a block, one entry of each per thread: (k,j) read once for R rows, R times fewer blocks.
template <int R>
__global__ void step_rows(int k, int *dist, int Na, int N)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row0 = blockIdx.y * R;
    bool inside = col < N;
    int through = inside ? dist[(size_t)k * Na + col] : FW_INF;
    int current[R];
#pragma unroll
    for (int r = 0; r < R; ++r)
        current[r] = inside && row0 + r < N ? dist[(size_t)(row0 + r) * Na + col] : 0;
    __shared__ int dik[R];
    if (threadIdx.x < R)
        dik[threadIdx.x] = row0 + threadIdx.x < N ? dist[(size_t)(row0 + threadIdx.x) * Na + k] : FW_INF;
    __syncthreads();
    if (!inside || through == FW_INF)
        return;
#pragma unroll
    for (int r = 0; r < R; ++r)
        if (row0 + r < N && dik[r] != FW_INF && dik[r] + through < current[r])
            dist[(size_t)(row0 + r) * Na + col] = dik[r] + through;
}

struct Variant {
    const char *name;
    void (*launch)(int k, int *dist, int Na, int N);
};

template <int VEC, int THREADS>
static void launch_vec(int k, int *dist, int Na, int N)
{
    dim3 grid((Na / VEC + THREADS - 1) / THREADS, N);
    step_vec<VEC><<<grid, THREADS>>>(k, dist, Na, N);
}

template <int R, int THREADS>
static void launch_rows_r(int k, int *dist, int Na, int N)
{
    dim3 grid((Na + THREADS - 1) / THREADS, (N + R - 1) / R);
    step_rows<R><<<grid, THREADS>>>(k, dist, Na, N);
}

static void launch_reference(int k, int *dist, int Na, int N) { launch_rows(k, dist, Na, N); }

static const Variant kVariants[] = {
    {"rows (fwStepK, the reference: int2)", launch_reference},
    {"1 int a thread, 256 threads", launch_vec<1, 256>},
    {"1 int a thread, 512 threads", launch_vec<1, 512>},
    {"1 int a thread, 1024 threads", launch_vec<1, 1024>},
    {"int2 a thread, 256 threads", launch_vec<2, 256>},
    {"int4 a thread, 128 threads", launch_vec<4, 128>},
    {"int4 a thread, 256 threads", launch_vec<4, 256>},
    {"2 rows a block, 256 threads", launch_rows_r<2, 256>},
    {"4 rows a block, 256 threads", launch_rows_r<4, 256>},
};

int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 8192;
    int Na = (N + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    size_t count = (size_t)N * Na, bytes = count * sizeof(int);
    std::vector<int> start(count, 0);
    unsigned long long state = 12345;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < Na; ++j) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            int w = (int)((state >> 33) % 1000) + 1;
            start[(size_t)i * Na + j] = j >= N ? 0 : i == j ? 0 : (state >> 60) < 3 ? FW_INF : w;
        }
    int *dist = nullptr;
    CUDA_CHECK(cudaMalloc(&dist, bytes));
    double copy_gbps = copy_ceiling_gbps(bytes, 20);
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, N = %d, Na = %d: device-to-device copy %.1f GB/s\n", prop.name, N, Na, copy_gbps);
    printf("%-34s %10s %12s %10s %s\n", "variant", "ms", "GB/s", "vs copy", "same result");
    std::vector<int> reference, got(count);
    cudaEvent_t begin, end;
    CUDA_CHECK(cudaEventCreate(&begin));
    CUDA_CHECK(cudaEventCreate(&end));
    for (const Variant &v : kVariants) {
        float best = 1e30f;
        for (int rep = 0; rep < 2; ++rep) {
            CUDA_CHECK(cudaMemcpy(dist, start.data(), bytes, cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaEventRecord(begin));
            for (int k = 0; k < N; ++k)
                v.launch(k, dist, Na, N);
            CUDA_CHECK_LAUNCH();
            CUDA_CHECK(cudaEventRecord(end));
            CUDA_CHECK(cudaEventSynchronize(end));
            float ms = 0;
            CUDA_CHECK(cudaEventElapsedTime(&ms, begin, end));
            best = ms < best ? ms : best;
        }
        CUDA_CHECK(cudaMemcpy(got.data(), dist, bytes, cudaMemcpyDeviceToHost));
        if (reference.empty())
            reference = got;
        bool same = true;
        for (int i = 0; i < N && same; ++i)
            same = std::memcmp(&got[(size_t)i * Na], &reference[(size_t)i * Na], N * sizeof(int)) == 0;
        double gbps = 8.0 * N * (double)Na * N / (best * 1e6);
        printf("%-34s %10.2f %12.1f %10.3f %s\n", v.name, best, gbps, gbps / copy_gbps, same ? "yes" : "NO");
    }
    CUDA_CHECK(cudaFree(dist));
    return 0;
}
