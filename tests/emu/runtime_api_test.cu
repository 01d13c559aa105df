// The rest of the runtime API the labs use: copies of every shape, symbols, pinned and
// managed memory, streams, events, device properties and attributes, occupancy, and the
// DPX intrinsics with their plain definitions.
#include <climits>
#include <cstring>

#include "emu_test_util.h"

__constant__ float coefficients[4];
__device__ int device_counter;

__global__ void apply_coefficients(float *out)
{
    out[threadIdx.x] = coefficients[threadIdx.x % 4] * threadIdx.x;
    if (threadIdx.x == 0) device_counter += 5;
}

TEST(RuntimeApi, SymbolsToAndFrom)
{
    const float host[4] = {1, 2, 3, 4};
    ASSERT_CUDA_OK(cudaMemcpyToSymbol(coefficients, host, sizeof host));
    int zero = 0;
    ASSERT_CUDA_OK(cudaMemcpyToSymbol(device_counter, &zero, sizeof zero));
    DeviceArray<float> out(8);
    apply_coefficients<<<1, 8>>>(out.get());
    std::vector<float> values = out.host();
    EXPECT_EQ(4.0f * 7, values[7]);
    int counter = 0;
    ASSERT_CUDA_OK(cudaMemcpyFromSymbol(&counter, device_counter, sizeof counter));
    EXPECT_EQ(5, counter);
    float back[2];
    ASSERT_CUDA_OK(cudaMemcpyFromSymbol(back, coefficients, sizeof back, 2 * sizeof(float)));
    EXPECT_EQ(3.0f, back[0]);
    EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpyToSymbol(coefficients, host, sizeof host, sizeof(float)))
        << "past the end of the symbol";
    EXPECT_EQ(cudaErrorInvalidMemcpyDirection, cudaMemcpyToSymbol(coefficients, host, sizeof host, 0, cudaMemcpyDeviceToHost));
    EXPECT_EQ(cudaErrorInvalidMemcpyDirection, cudaMemcpyFromSymbol(back, coefficients, sizeof back, 0, cudaMemcpyHostToDevice));
    EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpyFromSymbol(nullptr, coefficients, sizeof back)) << "no destination";
    cudaGetLastError();
    void *address = nullptr;
    ASSERT_CUDA_OK(cudaGetSymbolAddress(&address, device_counter));
    EXPECT_EQ((void *)&device_counter, address);
}

TEST(RuntimeApi, PitchedAllocationAndTwoDimensionalCopies)
{
    const int width = 100, height = 7;
    float *device = nullptr;
    size_t pitch = 0;
    ASSERT_CUDA_OK(cudaMallocPitch(&device, &pitch, width * sizeof(float), height));
    EXPECT_GE(pitch, width * sizeof(float));
    EXPECT_EQ(0u, pitch % 256);
    std::vector<float> host(width * height), back(width * height, -1);
    for (int i = 0; i < width * height; ++i) host[i] = (float)i;
    ASSERT_CUDA_OK(cudaMemset2D(device, pitch, 0, width * sizeof(float), height));
    ASSERT_CUDA_OK(cudaMemcpy2D(device, pitch, host.data(), width * sizeof(float), width * sizeof(float), height,
                                cudaMemcpyHostToDevice));
    ASSERT_CUDA_OK(cudaMemcpy2D(back.data(), width * sizeof(float), device, pitch, width * sizeof(float), height,
                                cudaMemcpyDeviceToHost));
    EXPECT_EQ(host, back);
    EXPECT_EQ(cudaErrorInvalidPitchValue, cudaMemcpy2D(back.data(), 4, device, pitch, 8, 1, cudaMemcpyDeviceToHost));
    cudaGetLastError();
    ASSERT_CUDA_OK(cudaFree(device));
}

TEST(RuntimeApi, PinnedManagedAndAsyncCopiesOnStreams)
{
    int *pinned = nullptr, *device = nullptr, *managed = nullptr;
    ASSERT_CUDA_OK(cudaMallocHost(&pinned, 64 * sizeof(int)));
    ASSERT_CUDA_OK(cudaMalloc(&device, 64 * sizeof(int)));
    ASSERT_CUDA_OK(cudaMallocManaged(&managed, 64 * sizeof(int)));
    for (int i = 0; i < 64; ++i) pinned[i] = i;
    cudaStream_t stream;
    ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    ASSERT_CUDA_OK(cudaMemcpyAsync(device, pinned, 64 * sizeof(int), cudaMemcpyHostToDevice, stream));
    ASSERT_CUDA_OK(cudaMemsetAsync(managed, 0, 64 * sizeof(int), stream));
    ASSERT_CUDA_OK(cudaMemcpyAsync(managed, device, 32 * sizeof(int), cudaMemcpyDefault, stream));
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
    EXPECT_EQ(31, managed[31]);
    EXPECT_EQ(0, managed[32]);
    EXPECT_EQ(cudaSuccess, cudaStreamQuery(stream));
    ASSERT_CUDA_OK(cudaStreamDestroy(stream));
    int *mapped = nullptr;
    ASSERT_CUDA_OK(cudaHostGetDevicePointer(&mapped, pinned, 0));
    EXPECT_EQ(pinned, mapped);
    EXPECT_EQ(cudaErrorInvalidValue, cudaFreeHost(device)) << "device memory is not cudaFreeHost's";
    cudaGetLastError();
    ASSERT_CUDA_OK(cudaFreeHost(pinned));
    ASSERT_CUDA_OK(cudaFree(device));
    ASSERT_CUDA_OK(cudaFree(managed));
}

__global__ void spin_a_little(int *out)
{
    long long start = clock64();
    while (clock64() - start < 100000) {
    }
    out[threadIdx.x] = 1;
}

TEST(RuntimeApi, EventsTimeTheWorkBetweenThem)
{
    cudaEvent_t start, stop;
    ASSERT_CUDA_OK(cudaEventCreate(&start));
    ASSERT_CUDA_OK(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));
    DeviceArray<int> out(4);
    ASSERT_CUDA_OK(cudaEventRecord(start, 0));
    spin_a_little<<<1, 4>>>(out.get());
    ASSERT_CUDA_OK(cudaEventRecord(stop, 0));
    ASSERT_CUDA_OK(cudaEventSynchronize(stop));
    float ms = 0;
    ASSERT_CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
    EXPECT_GE(ms, 0.1f) << "4 threads spinning 0.1 ms each, side by side (a clock read lets the others run)";
    EXPECT_LT(ms, 1000.0f);
    ASSERT_CUDA_OK(cudaEventDestroy(start));
    ASSERT_CUDA_OK(cudaEventDestroy(stop));
}

TEST(RuntimeApi, DevicePropertiesSayItIsAnEmulation)
{
    cudaDeviceProp prop;
    ASSERT_CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    EXPECT_STREQ("CPU emulation", prop.name);
    EXPECT_EQ(1024, prop.maxThreadsPerBlock);
    EXPECT_EQ(32, prop.warpSize);
    EXPECT_EQ(48u * 1024, prop.sharedMemPerBlock);
    EXPECT_EQ(227u * 1024, prop.sharedMemPerBlockOptin);
    EXPECT_EQ(65535, prop.maxGridSize[1]);
    EXPECT_EQ(INT_MAX, prop.maxGridSize[0]);
    int value = 0;
    ASSERT_CUDA_OK(cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    EXPECT_EQ(227 * 1024, value);
    ASSERT_CUDA_OK(cudaDeviceGetAttribute(&value, cudaDevAttrComputeCapabilityMajor, 0));
    EXPECT_EQ(prop.major, value);
    size_t free_bytes = 0, total_bytes = 0;
    ASSERT_CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes));
    EXPECT_GT(total_bytes, 0u);
    EXPECT_LE(free_bytes, total_bytes);
    int runtime = 0;
    ASSERT_CUDA_OK(cudaRuntimeGetVersion(&runtime));
    EXPECT_EQ(CUDART_VERSION, runtime);
}

__global__ void occupancy_probe(float *out) { out[threadIdx.x] = 1; }

TEST(RuntimeApi, Occupancy)
{
    int min_grid = 0, block = 0;
    ASSERT_CUDA_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, occupancy_probe));
    EXPECT_EQ(1024, block);
    int per_sm = 0, sms = 0;
    ASSERT_CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, occupancy_probe, 256, 0));
    ASSERT_CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    EXPECT_EQ(8, per_sm);  // 2048 threads per SM / 256
    EXPECT_EQ(2 * sms, min_grid);
    ASSERT_CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, occupancy_probe, 256, 100 * 1024));
    EXPECT_EQ(2, per_sm) << "228 KiB per SM holds two blocks of 100 KiB (plus 1 KiB reserved each)";
    ASSERT_CUDA_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, occupancy_probe, 0, 200));
    EXPECT_LE(block, 200);
    EXPECT_EQ(0, block % 32);
}

TEST(RuntimeApi, DpxIntrinsicsHavePlainDefinitions)
{
    EXPECT_EQ(3, __viaddmin_s32(1, 2, 5));
    EXPECT_EQ(5, __viaddmin_s32(4, 2, 5));
    EXPECT_EQ(INT_MIN, __viaddmin_s32(INT_MAX, 1, 0)) << "the add wraps, as in hardware";
    EXPECT_EQ(7, __viaddmax_s32(4, 3, -1));
    EXPECT_EQ(0, __viaddmin_s32_relu(-4, 1, 2));
    EXPECT_EQ(-3, __vimin3_s32(5, -3, 0));
    EXPECT_EQ(9, __vimax3_s32(5, 9, 0));
    EXPECT_EQ(0, __vimin_s32_relu(-2, 4));
    EXPECT_EQ(4, __vimax_s32_relu(-2, 4));
    EXPECT_EQ(7u, __vimin3_u32(7u, 8u, 9u));
    bool pred = false;
    EXPECT_EQ(3, __vibmax_s32(3, 2, &pred));
    EXPECT_TRUE(pred);
    EXPECT_EQ(2, __vibmin_s32(3, 2, &pred));
    EXPECT_FALSE(pred);
    // Per-halfword: high halves (1, 2, 0) and low halves (-1 as 0xffff, 3, 1).
    unsigned int a = (1u << 16) | 0xffffu, b = (2u << 16) | 3u, c = (0u << 16) | 1u;
    EXPECT_EQ((0u << 16) | 0xffffu, __vimin3_s16x2(a, b, c));
    EXPECT_EQ((2u << 16) | 3u, __vimax3_s16x2(a, b, c));
    EXPECT_EQ((0u << 16) | 1u, __vimin3_u16x2(a, b, c));
}

__global__ void dpx_relax(const int *row_k, int *row_i, int dik, int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n) row_i[j] = __viaddmin_s32(dik, row_k[j], row_i[j]);  // Floyd-Warshall's relaxation
}

TEST(RuntimeApi, DpxInsideAKernel)
{
    std::vector<int> k_row = {0, 5, 1 << 20, 2}, i_row = {9, 9, 9, 9};
    DeviceArray<int> d_k(k_row), d_i(i_row);
    dpx_relax<<<1, 32>>>(d_k.get(), d_i.get(), 3, 4);
    EXPECT_EQ((std::vector<int>{3, 8, 9, 5}), d_i.host());
}

namespace {
int callbacks_run = 0;
void CUDART_CB count_callback(void *user_data) { callbacks_run += *static_cast<int *>(user_data); }
}  // namespace

TEST(RuntimeApi, HostFunctionsRunInStreamOrder)
{
    cudaStream_t stream;
    ASSERT_CUDA_OK(cudaStreamCreate(&stream));
    callbacks_run = 0;
    int increment = 2;
    ASSERT_CUDA_OK(cudaLaunchHostFunc(stream, count_callback, &increment));
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
    EXPECT_EQ(2, callbacks_run);
    ASSERT_CUDA_OK(cudaStreamDestroy(stream));
}

// NVIDIA's helper headers (helper_cuda.h and kin) test the guard macros nvcc's headers define
// to decide what they may use; cuda.h's guard stays undefined, as there is no driver API here.
TEST(RuntimeApi, DefinesTheIncludeGuardsHelperHeadersTest)
{
#if defined(__CUDA_RUNTIME_H__) && defined(__CUDA_RUNTIME_API_H__) && defined(__DRIVER_TYPES_H__) && \
    defined(__VECTOR_TYPES_H__) && defined(__DEVICE_LAUNCH_PARAMETERS_H__)
    const bool runtime_guards = true;
#else
    const bool runtime_guards = false;
#endif
#ifdef __cuda_cuda_h__
    const bool driver_guard = true;
#else
    const bool driver_guard = false;
#endif
    EXPECT_TRUE(runtime_guards);
    EXPECT_FALSE(driver_guard);
}

// __noinline__ is the rewriter's, not a macro: libstdc++ headers included after the runtime's
// (here <thread> and <future>, which g++ 13 spells with __attribute__((__noinline__))) compile.
#include <future>
#include <thread>

static __noinline__ __device__ int twice_not_inlined(int x)
{
    return 2 * x;
}

__global__ void call_not_inlined(int *out)
{
    out[threadIdx.x] = twice_not_inlined(threadIdx.x);
}

TEST(RuntimeApi, NoinlineFunctionsCompileBesideTheStandardLibrary)
{
    DeviceArray<int> out(4);
    call_not_inlined<<<1, 4>>>(out.get());
    EXPECT_EQ(6, out.host()[3]);
}

// CUDA 13's managed-memory hints name a cudaMemLocation (UnifiedMemoryPerf calls them so); the
// CUDA 12 forms with a device number stay.
TEST(RuntimeApi, PrefetchAndAdviceTakeAMemLocationOrADeviceNumber)
{
    float *managed = nullptr;
    ASSERT_CUDA_OK(cudaMallocManaged(&managed, 64 * sizeof(float)));
    cudaStream_t stream;
    ASSERT_CUDA_OK(cudaStreamCreate(&stream));
    const cudaMemLocation device{cudaMemLocationTypeDevice, 0}, host{cudaMemLocationTypeHost, 0};
    EXPECT_CUDA_OK(cudaMemPrefetchAsync(managed, 64 * sizeof(float), device, 0, stream));
    EXPECT_CUDA_OK(cudaMemPrefetchAsync(managed, 64 * sizeof(float), host, 0));
    EXPECT_CUDA_OK(cudaMemPrefetchAsync(managed, 64 * sizeof(float), 0, stream));
    EXPECT_CUDA_OK(cudaMemAdvise(managed, 64 * sizeof(float), cudaMemAdviseSetReadMostly, device));
    EXPECT_CUDA_OK(cudaStreamAttachMemAsync(stream, managed, 0, cudaMemAttachHost));
    EXPECT_EQ(cudaErrorInvalidDevice, cudaMemPrefetchAsync(managed, 64, cudaMemLocation{cudaMemLocationTypeDevice, 7}, 0));
    cudaGetLastError();
    EXPECT_EQ(cudaErrorInvalidValue, cudaStreamAttachMemAsync(stream, managed, 0, 0x40));
    cudaGetLastError();
    EXPECT_CUDA_OK(cudaStreamDestroy(stream));
    EXPECT_CUDA_OK(cudaFree(managed));
}
