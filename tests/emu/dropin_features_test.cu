// What the drop-in compiler's conformance run asked of the emulator, each checked against the
// CUDA programming guide and math API reference: half precision (cuda_fp16.h), arithmetic with
// a chosen rounding (__fadd_rd and kin), a device-side assert (cudaErrorAssert), cooperative
// groups' shuffles of types over 8 bytes, the L2 access-policy stream attribute, the texture
// limits of cudaDeviceProp; and that the race detector and AddressSanitizer still see through
// them (a race on __half in shared memory here; asan/half_overflow.cu in asan_test.cu).
#include <cooperative_groups.h>
#include <cuda_fp16.h>

#include <cassert>
#include <cfloat>
#include <cmath>
#include <string>

#include "emu_test_util.h"
#include "exit_codes.h"

namespace cg = cooperative_groups;

// ---- cuda_fp16.h ---------------------------------------------------------------------------
TEST(Half, IsTwoBytesAndRoundsToNearestEven)
{
    static_assert(sizeof(__half) == 2 && sizeof(__half2) == 4, "as on a GPU");
    EXPECT_EQ(0x3c00, __half_as_ushort(__float2half(1.0f)));
    EXPECT_EQ(0x3555, __half_as_ushort(__float2half(1.0f / 3.0f)));  // 0.333251953125
    EXPECT_EQ(0x7bff, __half_as_ushort(__float2half(65504.0f)));     // the largest half
    EXPECT_EQ(0x7c00, __half_as_ushort(__float2half(65520.0f)));     // rounds up to infinity
    EXPECT_EQ(0x0001, __half_as_ushort(__float2half(std::ldexp(1.0f, -24))));  // smallest subnormal
    EXPECT_EQ(0x0000, __half_as_ushort(__float2half(std::ldexp(1.0f, -25))));  // a tie: to even, 0
    EXPECT_EQ(0x8000, __half_as_ushort(__float2half(-0.0f)));
    EXPECT_TRUE(__hisnan(__float2half(NAN)));
    EXPECT_FLOAT_EQ(0.333251953125f, __half2float(__float2half(1.0f / 3.0f)));
    // 2048 + 1 is halfway between 2048 and 2050: the sum rounds to even, once.
    EXPECT_EQ(2048.0f, __half2float(__hadd(__float2half(2048.0f), __float2half(1.0f))));
    EXPECT_EQ(2052.0f, __half2float(__hadd(__float2half(2050.0f), __float2half(1.0f))));
}

__global__ void half2_dot(const __half2 *a, const __half2 *b, float *out)
{
    __half2 product = __hmul2(a[threadIdx.x], b[threadIdx.x]);
    __half2 sum = __hfma2(a[threadIdx.x], b[threadIdx.x], product);  // 2ab
    out[threadIdx.x] = __low2float(sum) + __high2float(sum);
}

TEST(Half, Half2ArithmeticInAKernel)
{
    std::vector<__half2> a, b;
    for (int i = 0; i < 4; ++i) {
        a.push_back(__floats2half2_rn(i, 0.5f));
        b.push_back(__float2half2_rn(2.0f));
    }
    DeviceArray<__half2> da(a), db(b);
    DeviceArray<float> out(4);
    half2_dot<<<1, 4>>>(da.get(), db.get(), out.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    std::vector<float> host = out.host();
    for (int i = 0; i < 4; ++i) EXPECT_EQ(4.0f * i + 2.0f, host[i]) << i;
    __half x = 1.5f, y = 2.0f;
    EXPECT_EQ(3.0f, (float)(x * y));
    EXPECT_TRUE(x < y && x != y && -x < x);
}

// ---- directed rounding -----------------------------------------------------------------------
TEST(DirectedRounding, RoundsTheExactResultDownUpOrTowardZero)
{
    const float tiny = std::ldexp(1.0f, -30);
    EXPECT_EQ(1.0f, __fadd_rd(1.0f, tiny));
    EXPECT_EQ(std::nextafter(1.0f, 2.0f), __fadd_ru(1.0f, tiny));
    EXPECT_EQ(1.0f, __fadd_rn(1.0f, tiny));
    EXPECT_EQ(std::nextafter(-1.0f, 0.0f), __fadd_rz(-1.0f, tiny));
    EXPECT_EQ(std::nextafter(1.0f, 0.0f), __fsub_rd(1.0f, tiny));
    const float third_down = __fdiv_rd(1.0f, 3.0f), third_up = __fdiv_ru(1.0f, 3.0f);
    EXPECT_EQ(std::nextafter(third_down, 1.0f), third_up);  // 1/3 lies between them
    EXPECT_LT(third_down, 1.0 / 3.0);
    EXPECT_GT(third_up, 1.0 / 3.0);
    EXPECT_EQ(2.0f, __fdiv_rd(4.0f, 2.0f));  // exact: no step
    EXPECT_EQ(2.0f, __fdiv_ru(4.0f, 2.0f));
    EXPECT_LT(__fsqrt_rd(2.0f), std::sqrt(2.0));
    EXPECT_GT(__fsqrt_ru(2.0f), std::sqrt(2.0));
    EXPECT_EQ(3.0f, __fsqrt_rd(9.0f));
    const double d_tiny = std::ldexp(1.0, -60);
    EXPECT_EQ(1.0, __dadd_rd(1.0, d_tiny));
    EXPECT_EQ(std::nextafter(1.0, 2.0), __dadd_ru(1.0, d_tiny));
    EXPECT_LT(__dmul_rd(0.1, 0.1), __dmul_ru(0.1, 0.1));
    EXPECT_EQ(std::nextafter(__ddiv_rd(1.0, 3.0), 1.0), __ddiv_ru(1.0, 3.0));
    EXPECT_EQ(__ddiv_rd(-1.0, 3.0), -__ddiv_ru(1.0, 3.0));
}

// ---- a device-side assert -----------------------------------------------------------------------
__global__ void assert_below(int n)
{
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    assert(index < n);
}
const int kAssertLine = __LINE__ - 2;

TEST(DeviceAssert, FailsTheLaunchWithCudaErrorAssertAndReportsTheThread)
{
    // The error is sticky (the context is unusable afterwards, as on a GPU): a child process.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            assert_below<<<2, 32>>>(60);
            cudaError_t sync = cudaDeviceSynchronize();
            cudaError_t later = cudaMemcpy(nullptr, nullptr, 0, cudaMemcpyDeviceToHost);
            std::exit(sync == cudaErrorAssert && later == cudaErrorAssert &&
                              std::string(cudaGetErrorString(sync)) == "device-side assert triggered"
                          ? 0
                          : 1);
        },
        ::testing::ExitedWithCode(0),
        "dropin_features_test.cu:" + std::to_string(kAssertLine) +
            ": .*assert_below.*: block: \\[1,0,0\\], thread: \\[28,0,0\\] Assertion `index < n` failed.");
    assert_below<<<2, 32>>>(64);  // no thread fails: no error
    EXPECT_CUDA_OK(cudaDeviceSynchronize());
}

// ---- cooperative groups' shuffles of 16-byte values ------------------------------------------------
__global__ void rotate_uint4(uint4 *values)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    uint4 mine = values[threadIdx.x];
    uint4 next = warp.shfl(mine, (warp.thread_rank() + 1) % 32);
    uint4 up = warp.shfl_up(mine, 1);
    values[threadIdx.x] = make_uint4(next.x, next.w, up.x, up.w);
}

TEST(CooperativeGroups, ShufflesMoveSixteenByteValues)
{
    std::vector<uint4> input;
    for (unsigned i = 0; i < 32; ++i) input.push_back(make_uint4(i, 100 + i, 200 + i, 300 + i));
    DeviceArray<uint4> values(input);
    rotate_uint4<<<1, 32>>>(values.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    std::vector<uint4> out = values.host();
    for (unsigned i = 0; i < 32; ++i) {
        EXPECT_EQ((i + 1) % 32, out[i].x) << i;
        EXPECT_EQ(300 + (i + 1) % 32, out[i].y) << i;
        EXPECT_EQ(i == 0 ? 0 : i - 1, out[i].z) << i;  // lane 0 keeps its own
        EXPECT_EQ(i == 0 ? 300 : 300 + i - 1, out[i].w) << i;
    }
}

// ---- the L2 access policy -------------------------------------------------------------------
TEST(AccessPolicy, AStreamKeepsItsWindowAndTheRuntimeChecksIt)
{
    cudaDeviceProp prop;
    ASSERT_CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    EXPECT_EQ(0, prop.persistingL2CacheMaxSize);  // nothing persists: there is no L2
    EXPECT_GT(prop.accessPolicyMaxWindowSize, 0);
    cudaStream_t stream;
    ASSERT_CUDA_OK(cudaStreamCreate(&stream));
    DeviceArray<int> data(1024);
    cudaStreamAttrValue value = {};
    value.accessPolicyWindow.base_ptr = data.get();
    value.accessPolicyWindow.num_bytes = 1024 * sizeof(int);
    value.accessPolicyWindow.hitRatio = 0.6f;
    value.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    value.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    EXPECT_CUDA_OK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 1 << 20));
    EXPECT_CUDA_OK(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value));
    cudaStreamAttrValue read = {};
    EXPECT_CUDA_OK(cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &read));
    EXPECT_EQ(data.get(), read.accessPolicyWindow.base_ptr);
    EXPECT_EQ(0.6f, read.accessPolicyWindow.hitRatio);
    EXPECT_EQ(cudaAccessPropertyStreaming, read.accessPolicyWindow.missProp);
    value.accessPolicyWindow.hitRatio = 1.5f;  // a ratio is at most 1
    EXPECT_EQ(cudaErrorInvalidValue, cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value));
    cudaGetLastError();
    EXPECT_CUDA_OK(cudaCtxResetPersistingL2Cache());
    EXPECT_CUDA_OK(cudaStreamDestroy(stream));
}

TEST(DeviceProperties, ReportTextureAndSurfaceLimits)
{
    cudaDeviceProp prop;
    ASSERT_CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    EXPECT_GT(prop.maxTexture1D, 0);
    EXPECT_GT(prop.maxTexture2D[1], 0);
    EXPECT_GT(prop.maxTexture3D[2], 0);
    EXPECT_GT(prop.maxTexture2DLayered[2], 0);
    EXPECT_GT(prop.maxSurface2D[0], 0);
}

// ---- clock() in device code counts the device's cycles -----------------------------------------
// As graphMemoryFootprint's clockBlock: wait `cycles` of the SM clock (clockRate kHz), 32-bit.
__global__ void spin_cycles(long long cycles, long long *elapsed_ns)
{
    long long begin = clock64();
    unsigned int start = (unsigned int)clock();
    while ((long long)((unsigned int)clock() - start) < cycles) {
    }
    *elapsed_ns = clock64() - begin;
}

TEST(DeviceClock, ClockInAKernelCountsCyclesOfTheReportedClockRate)
{
    int khz = 0;
    ASSERT_CUDA_OK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    const long long ms = 20, cycles = ms * khz;  // 20 ms of the device's clock
    DeviceArray<long long> elapsed(1);
    spin_cycles<<<1, 1>>>(cycles, elapsed.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    long long waited_ns = elapsed.host()[0];
    EXPECT_GE(waited_ns, ms * 1000000);
    EXPECT_LT(waited_ns, 50 * ms * 1000000);  // the C library's clock() would take 1000 times longer
    EXPECT_GE((long long)clock(), 0);         // host code keeps the C library's
}

// A thread that reads the clock lets the block's other threads run first, as the warps of an SM
// run while one waits: all four have started by the time the first one reads its clock.
__global__ void started_before_the_clock_read(int *starts, int *seen)
{
    atomicAdd(starts, 1);
    long long now = clock64();
    seen[threadIdx.x] = now > 0 ? atomicAdd(starts, 0) : -1;
}

TEST(DeviceClock, AClockReadLetsTheBlocksOtherThreadsRun)
{
    DeviceArray<int> starts(1), seen(4);
    started_before_the_clock_read<<<1, 4>>>(starts.get(), seen.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    for (int x = 0; x < 4; ++x) EXPECT_EQ(4, seen.host()[x]) << "thread " << x;
}

// ---- C++ in device code that cuda-samples use (newdelete, dxtc, HSOpticalFlow) --------------
struct Sum3 {
    float x, y, z;
};
// helper_math.h's vector operators return void: `a[i] += b` is a statement, not a value.
__device__ void operator+=(Sum3 &a, Sum3 b)
{
    a.x += b.x;
    a.y += b.y;
    a.z += b.z;
}

__global__ void add_neighbour(Sum3 *sums)
{
    sums[threadIdx.x] += sums[threadIdx.x ^ 1];
}

TEST(DeviceCpp, ACompoundAssignmentReturningVoidUpdatesGlobalMemory)
{
    DeviceArray<Sum3> sums(std::vector<Sum3>{{1, 2, 3}, {10, 20, 30}});
    add_neighbour<<<1, 1>>>(sums.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    std::vector<Sum3> host = sums.host();
    EXPECT_EQ(11.0f, host[0].x);
    EXPECT_EQ(33.0f, host[0].z);
}

template <class T>
__global__ void placement_new_array(T *out, int n)
{
    __shared__ T buffer[8];
    T *values = new (buffer) T[n];  // the array type T[n], not a read of an element
    T *heap = new T[n];
    for (int i = 0; i < n; ++i) {
        values[i] = (T)(i * 2);
        heap[i] = values[i] + 1;
    }
    for (int i = 0; i < n; ++i) out[i] = heap[i];
    delete[] heap;
}

TEST(DeviceCpp, NewAndPlacementNewOfArraysInAKernel)
{
    DeviceArray<int> out(8);
    placement_new_array<<<1, 1>>>(out.get(), 8);
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    std::vector<int> host = out.host();
    for (int i = 0; i < 8; ++i) EXPECT_EQ(2 * i + 1, host[i]) << i;
}

TEST(DeviceCpp, AllocatesThroughAPointerToConst)
{
    // CUDA's typed cudaMalloc takes T ** for any T, const float included (HSOpticalFlow).
    const float *input = nullptr;
    ASSERT_CUDA_OK(cudaMalloc(&input, 16 * sizeof(float)));
    EXPECT_NE(nullptr, input);
    EXPECT_CUDA_OK(cudaFree(const_cast<float *>(input)));
    const int *pinned = nullptr;
    ASSERT_CUDA_OK(cudaMallocHost(&pinned, 4 * sizeof(int)));
    EXPECT_CUDA_OK(cudaFreeHost(const_cast<int *>(pinned)));
}

// ---- the race detector sees __half in shared memory ---------------------------------------------
__global__ void half_neighbour_without_barrier(float *out)
{
    __shared__ __half values[32];
    values[threadIdx.x] = __float2half((float)threadIdx.x);
    out[threadIdx.x] = __half2float(values[(threadIdx.x + 1) % 32]);
}

TEST(Half, TheRaceDetectorSeesHalvesInSharedMemory)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            setenv("EMU_RACECHECK", "1", 1);
            float *out;
            cudaMalloc(&out, 32 * sizeof(float));
            half_neighbour_without_barrier<<<1, 32>>>(out);
            cudaDeviceSynchronize();
            std::exit(0);
        },
        ::testing::ExitedWithCode(LAB_EXIT_RACE), "data race on __shared__ values");
}
