// Shared memory: static __shared__ arrays (in kernels and in __device__ functions), dynamic
// shared memory (the launch's third argument), one copy per block even with several CPU
// threads running blocks at once, and the barriers that order it.
#include <numeric>

#include <cuda_pipeline.h>

#include "emu_test_util.h"

// The classic tree reduction: each block sums its 1024 inputs in shared memory.
__global__ void block_sums(const int *in, int *out)
{
    __shared__ int partial[1024];
    unsigned int t = threadIdx.x;
    partial[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}

TEST(SharedMemory, TreeReductionPerBlock)
{
    const int blocks = 64, threads = 1024;
    std::vector<int> in(blocks * threads);
    std::iota(in.begin(), in.end(), 0);
    DeviceArray<int> d_in(in), d_out(blocks);
    block_sums<<<blocks, threads>>>(d_in.get(), d_out.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<int> sums = d_out.host();
    for (int b = 0; b < blocks; ++b) {
        long long first = (long long)b * threads, last = first + threads - 1;
        EXPECT_EQ((first + last) * threads / 2, sums[b]) << "block " << b;
    }
}

// Each block fills its shared array with its own block number, waits, then checks that no
// other block's writes are visible: a per-block copy, not one shared by all blocks.
__global__ void blocks_do_not_share(int *mismatches)
{
    __shared__ int mine[256];
    mine[threadIdx.x] = blockIdx.x;
    __syncthreads();
    for (int i = 0; i < 256; ++i)
        if (mine[i] != (int)blockIdx.x) atomicAdd(mismatches, 1);
}

TEST(SharedMemory, EachBlockHasItsOwnCopy)
{
    DeviceArray<int> mismatches(1);
    blocks_do_not_share<<<200, 256>>>(mismatches.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    EXPECT_EQ(0, mismatches.host()[0]);
}

// A __device__ function with its own __shared__ array: one per block, shared by the threads
// that call it.
__device__ int block_max(int value)
{
    __shared__ int values[128];
    values[threadIdx.x] = value;
    __syncthreads();
    int best = values[0];
    for (int i = 1; i < (int)blockDim.x; ++i) best = max(best, values[i]);
    __syncthreads();
    return best;
}

__global__ void max_per_block(const int *in, int *out)
{
    int best = block_max(in[blockIdx.x * blockDim.x + threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = best;
}

TEST(SharedMemory, SharedArrayInADeviceFunction)
{
    std::vector<int> in(4 * 128);
    for (size_t i = 0; i < in.size(); ++i) in[i] = (int)((i * 7919) % 1000);
    DeviceArray<int> d_in(in), d_out(4);
    max_per_block<<<4, 128>>>(d_in.get(), d_out.get());
    std::vector<int> out = d_out.host();
    for (int b = 0; b < 4; ++b) EXPECT_EQ(*std::max_element(in.begin() + b * 128, in.begin() + (b + 1) * 128), out[b]);
}

// A tile transpose through a padded 2-D shared array.
__global__ void transpose(const float *in, float *out, int n)
{
    __shared__ float tile[16][17];
    int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
    if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    x = blockIdx.y * 16 + threadIdx.x;
    y = blockIdx.x * 16 + threadIdx.y;
    if (x < n && y < n) out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

TEST(SharedMemory, TwoDimensionalTileTranspose)
{
    const int n = 50;
    std::vector<float> in(n * n);
    for (int i = 0; i < n * n; ++i) in[i] = (float)i;
    DeviceArray<float> d_in(in), d_out(n * n);
    transpose<<<dim3(4, 4), dim3(16, 16)>>>(d_in.get(), d_out.get(), n);
    std::vector<float> out = d_out.host();
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) ASSERT_EQ(in[y * n + x], out[x * n + y]);
}

// Dynamic shared memory: its size comes from the launch; two views of it alias.
__global__ void reverse_with_dynamic(int *data, int n)
{
    extern __shared__ int scratch[];
    extern __shared__ unsigned char scratch_bytes[];
    int t = threadIdx.x;
    if (t < n) scratch[t] = data[t];
    __syncthreads();
    if (t < n) data[t] = scratch[n - 1 - t];
    if (t == 0 && (void *)scratch != (void *)scratch_bytes) data[0] = -1;
}

TEST(SharedMemory, DynamicSharedMemoryFromTheLaunch)
{
    const int n = 1000;
    std::vector<int> in(n);
    std::iota(in.begin(), in.end(), 0);
    DeviceArray<int> data(in);
    reverse_with_dynamic<<<1, 1024, n * sizeof(int)>>>(data.get(), n);
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<int> out = data.host();
    for (int i = 0; i < n; ++i) ASSERT_EQ(n - 1 - i, out[i]);
}

// Dynamic shared memory as rows of a fixed width, as cuda-samples' tensor-core GEMMs declare it:
// extern __shared__ T name[][N] is a pointer to rows of N.
__global__ void transpose_through_rows(const int *in, int *out)
{
    extern __shared__ int rows[][5];
    int r = threadIdx.x / 5, c = threadIdx.x % 5;
    rows[r][c] = in[threadIdx.x];
    __syncthreads();
    out[c * 4 + r] = rows[r][c];
}

TEST(SharedMemory, DynamicSharedMemoryAsRows)
{
    std::vector<int> in(20);
    std::iota(in.begin(), in.end(), 100);
    DeviceArray<int> d_in(in), d_out(20);
    transpose_through_rows<<<1, 20, 20 * sizeof(int)>>>(d_in.get(), d_out.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    std::vector<int> out = d_out.host();
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 5; ++c)
            EXPECT_EQ(100 + r * 5 + c, out[c * 4 + r]) << r << " " << c;
}

// extern __shared__ at file scope, as some courses write it.
extern __shared__ float file_scope_dynamic[];
__global__ void sum_through_file_scope(const float *in, float *out)
{
    file_scope_dynamic[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0;
        for (unsigned int i = 0; i < blockDim.x; ++i) total += file_scope_dynamic[i];
        out[blockIdx.x] = total;
    }
}

TEST(SharedMemory, FileScopeExternShared)
{
    std::vector<float> in(64, 1.5f);
    DeviceArray<float> d_in(in), d_out(3);
    sum_through_file_scope<<<3, 64, 64 * sizeof(float)>>>(d_in.get(), d_out.get());
    EXPECT_EQ(96.0f, d_out.host()[2]);
}

// More than 48 KiB of dynamic shared memory needs the kernel's opt-in.
__global__ void touch_dynamic(int *out, int words)
{
    extern __shared__ int big[];
    for (int i = threadIdx.x; i < words; i += blockDim.x) big[i] = i;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = big[words - 1];
}

TEST(SharedMemory, LargeDynamicSharedMemoryWithOptIn)
{
    DeviceArray<int> out(1);
    const int bytes = 100 * 1024, words = bytes / 4;
    ASSERT_CUDA_OK(cudaFuncSetAttribute(touch_dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024));
    touch_dynamic<<<1, 256, bytes>>>(out.get(), words);
    EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
    ASSERT_CUDA_OK(cudaFuncSetAttribute(touch_dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    touch_dynamic<<<1, 256, bytes>>>(out.get(), words);
    ASSERT_CUDA_OK(cudaGetLastError());
    EXPECT_EQ(words - 1, out.host()[0]);
}

// __syncthreads_count/_and/_or, and threads that return early no longer count at barriers.
__global__ void votes(int *out, int n)
{
    if ((int)threadIdx.x >= n) return;  // these threads leave before the barriers
    int even = threadIdx.x % 2 == 0;
    int count = __syncthreads_count(even);
    int all = __syncthreads_and(threadIdx.x < 1000);
    int any = __syncthreads_or(threadIdx.x == 5);
    if (threadIdx.x == 0) {
        out[0] = count;
        out[1] = all;
        out[2] = any;
    }
}

TEST(SharedMemory, BarrierVotesCountOnlyThreadsStillRunning)
{
    DeviceArray<int> out(3);
    votes<<<1, 512>>>(out.get(), 300);
    std::vector<int> values = out.host();
    EXPECT_EQ(150, values[0]);
    EXPECT_EQ(1, values[1]);
    EXPECT_EQ(1, values[2]);
}

TEST(SharedMemory, StaticSizeIsReportedAfterALaunch)
{
    DeviceArray<int> in(1024), out(1);
    block_sums<<<1, 1024>>>(in.get(), out.get());  // the emulator learns static sizes by running
    cudaFuncAttributes attributes;
    ASSERT_CUDA_OK(cudaFuncGetAttributes(&attributes, block_sums));
    EXPECT_EQ(1024 * sizeof(int), attributes.sharedSizeBytes);
    EXPECT_EQ(48 * 1024 - 4096, attributes.maxDynamicSharedSizeBytes);
}

// The declaration forms the rewriter must read: attributes, qualifiers after the type,
// static, pointers in shared memory, sizes from template parameters, and a type defined in
// the declaration (left to the header's per-CPU-thread meaning, which also works).
namespace outer {
template <typename T, int N>
__global__ void declaration_forms(T *__restrict__ out)
{
    __shared__ __align__(sizeof(T)) unsigned char raw[N * sizeof(T)];
    extern __shared__ __align__(sizeof(T)) unsigned char dynamic_raw[];
    T *tile = reinterpret_cast<T *>(raw);
    float __shared__ after_type[2];
    static __shared__ int counter;
    __shared__ struct { int a; float b; } pair;
    __shared__ T *pointer_in_shared;
    if (threadIdx.x == 0) {
        counter = 0;
        pointer_in_shared = tile;
        pair.a = 1;
        after_type[1] = 2;
        dynamic_raw[0] = 3;
    }
    __syncthreads();
    atomicAdd(&counter, 1);
    tile[threadIdx.x] = (T)threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = pointer_in_shared[N - 1] + (T)counter + (T)pair.a + (T)after_type[1] + (T)dynamic_raw[0];
}
}  // namespace outer

TEST(SharedMemory, DeclarationFormsStudentsWrite)
{
    DeviceArray<double> out(6);
    outer::declaration_forms<double, 32><<<6, 32, 16>>>(out.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    for (double v : out.host()) EXPECT_EQ(31.0 + 32 + 1 + 2 + 3, v);
}

// Asynchronous copies (cuda_pipeline.h): each thread copies 16, 8 and 4 bytes of the input into
// shared memory, the last copy with 4 bytes of zero fill, then the block reads them back
// through other threads after waiting and a barrier, as a GPU kernel must.
__global__ void pipeline_copies(const int *in, int *out)
{
    __shared__ __align__(16) int tile[64][8];
    int t = threadIdx.x;
    const int *src = in + t * 8;
    __pipeline_memcpy_async(&tile[t][0], src, 16);
    __pipeline_memcpy_async(&tile[t][4], src + 4, 8);
    __pipeline_commit();
    __pipeline_memcpy_async(&tile[t][6], src + 6, 8, 4);  // copies src[6], zeroes tile[t][7]
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    int from = (t + 1) % 64;  // another thread's copies
    for (int i = 0; i < 8; ++i)
        out[t * 8 + i] = tile[from][i];
}

TEST(SharedMemory, PipelineMemcpyAsyncCopiesAndZeroFills)
{
    std::vector<int> in(64 * 8);
    std::iota(in.begin(), in.end(), 1);
    DeviceArray<int> d_in(in), d_out(in.size());
    pipeline_copies<<<1, 64>>>(d_in.get(), d_out.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<int> out = d_out.host();
    for (int t = 0; t < 64; ++t)
        for (int i = 0; i < 8; ++i) {
            int from = (t + 1) % 64;
            EXPECT_EQ(i == 7 ? 0 : in[from * 8 + i], out[t * 8 + i]) << "thread " << t << ", element " << i;
        }
}
