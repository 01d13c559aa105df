// Launch-configuration errors: the launch does not run, and cudaGetLastError returns the code
// and string a GPU gives, once (these errors are not sticky).
#include <cstring>

#include "emu_test_util.h"

__global__ void mark(int *flag) { *flag = 1; }

namespace {
// Launches `mark` with the configuration and returns what cudaGetLastError said; `ran` tells
// whether the kernel ran anyway.
cudaError_t launch_mark(dim3 grid, dim3 block, size_t shared_bytes, bool *ran)
{
    DeviceArray<int> flag(1);
    mark<<<grid, block, shared_bytes>>>(flag.get());
    cudaError_t error = cudaGetLastError();
    *ran = flag.host()[0] == 1;
    return error;
}

void expect_launch_error(dim3 grid, dim3 block, size_t shared_bytes, cudaError_t expected, const char *text)
{
    bool ran = true;
    cudaError_t error = launch_mark(grid, block, shared_bytes, &ran);
    EXPECT_EQ(expected, error);
    EXPECT_STREQ(text, cudaGetErrorString(error));
    EXPECT_FALSE(ran) << "a failed launch must not run the kernel";
    EXPECT_EQ(cudaSuccess, cudaGetLastError()) << "configuration errors are not sticky";
}
}  // namespace

TEST(LaunchErrors, TooManyThreadsPerBlock)
{
    expect_launch_error(1, 1025, 0, cudaErrorInvalidConfiguration, "invalid configuration argument");
    expect_launch_error(1, dim3(32, 32, 2), 0, cudaErrorInvalidConfiguration, "invalid configuration argument");
    expect_launch_error(1, dim3(1, 1, 65), 0, cudaErrorInvalidConfiguration, "invalid configuration argument");
    EXPECT_STREQ("cudaErrorInvalidConfiguration", cudaGetErrorName(cudaErrorInvalidConfiguration));
}

TEST(LaunchErrors, ZeroSizedBlockOrGrid)
{
    expect_launch_error(1, 0, 0, cudaErrorInvalidConfiguration, "invalid configuration argument");
    expect_launch_error(0, 32, 0, cudaErrorInvalidConfiguration, "invalid configuration argument");
    expect_launch_error(dim3(4, 0), 32, 0, cudaErrorInvalidConfiguration, "invalid configuration argument");
}

TEST(LaunchErrors, GridTooLarge)
{
    expect_launch_error(dim3(1, 65536), 32, 0, cudaErrorInvalidConfiguration, "invalid configuration argument");
    expect_launch_error(dim3(1, 1, 65536), 32, 0, cudaErrorInvalidConfiguration, "invalid configuration argument");
    int negative_blocks = -1;  // converted to 2^32 - 1 blocks, as on a GPU
    expect_launch_error(dim3(negative_blocks), 32, 0, cudaErrorInvalidConfiguration, "invalid configuration argument");
}

TEST(LaunchErrors, TooMuchSharedMemory)
{
    expect_launch_error(1, 32, 48 * 1024 + 1, cudaErrorInvalidValue, "invalid argument");
    EXPECT_EQ(cudaErrorInvalidValue, cudaFuncSetAttribute(mark, cudaFuncAttributeMaxDynamicSharedMemorySize, 228 * 1024));
    EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());  // a failing call is the last error too
    bool ran = false;
    EXPECT_EQ(cudaSuccess, launch_mark(1, 32, 48 * 1024, &ran));
    EXPECT_TRUE(ran);
}

TEST(LaunchErrors, PeekLeavesTheErrorGetClearsIt)
{
    DeviceArray<int> flag(1);
    mark<<<1, 2048>>>(flag.get());
    EXPECT_EQ(cudaErrorInvalidConfiguration, cudaPeekAtLastError());
    EXPECT_EQ(cudaErrorInvalidConfiguration, cudaPeekAtLastError());
    EXPECT_EQ(cudaErrorInvalidConfiguration, cudaGetLastError());
    EXPECT_EQ(cudaSuccess, cudaGetLastError());
    EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize()) << "a configuration error does not poison the device";
    mark<<<1, 32>>>(flag.get());
    EXPECT_EQ(cudaSuccess, cudaGetLastError());
    EXPECT_EQ(1, flag.host()[0]);
}

TEST(LaunchErrors, InvalidStream)
{
    cudaStream_t stream;
    ASSERT_CUDA_OK(cudaStreamCreate(&stream));
    ASSERT_CUDA_OK(cudaStreamDestroy(stream));
    DeviceArray<int> flag(1);
    mark<<<1, 1, 0, stream>>>(flag.get());
    EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaGetLastError());
    EXPECT_EQ(0, flag.host()[0]);
}

TEST(ApiErrors, MemoryMistakesStudentsMake)
{
    int host[4] = {1, 2, 3, 4};
    int *device = nullptr;
    ASSERT_CUDA_OK(cudaMalloc(&device, sizeof host));
    // Arguments swapped: the "device" destination is host memory.
    EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy(host, device, sizeof host, cudaMemcpyHostToDevice));
    // Counting elements instead of bytes the other way: past the end of the allocation.
    EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy(device, host, 2 * sizeof host, cudaMemcpyHostToDevice));
    EXPECT_EQ(cudaErrorInvalidValue, cudaFree(host));
    EXPECT_EQ(cudaErrorInvalidValue, cudaFree(device + 1));
    EXPECT_EQ(cudaSuccess, cudaFree(device));
    EXPECT_EQ(cudaErrorInvalidValue, cudaFree(device)) << "a double free";
    EXPECT_EQ(cudaSuccess, cudaFree(nullptr));
    EXPECT_EQ(cudaErrorInvalidMemcpyDirection, cudaMemcpy(host, host, 4, (cudaMemcpyKind)7));
    EXPECT_STREQ("invalid copy direction for memcpy", cudaGetErrorString(cudaErrorInvalidMemcpyDirection));
    EXPECT_EQ(cudaErrorInvalidDevice, cudaSetDevice(99));
    EXPECT_STREQ("invalid device ordinal", cudaGetErrorString(cudaErrorInvalidDevice));
    EXPECT_EQ(cudaErrorMemoryAllocation, cudaMalloc(&device, (size_t)1 << 60));
    EXPECT_STREQ("out of memory", cudaGetErrorString(cudaErrorMemoryAllocation));
    cudaGetLastError();
}

TEST(ApiErrors, EventsThatWereNeverRecorded)
{
    cudaEvent_t start, stop;
    ASSERT_CUDA_OK(cudaEventCreate(&start));
    ASSERT_CUDA_OK(cudaEventCreate(&stop));
    float ms = 0;
    EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaEventElapsedTime(&ms, start, stop));
    ASSERT_CUDA_OK(cudaEventRecord(start));
    ASSERT_CUDA_OK(cudaEventRecord(stop));
    ASSERT_CUDA_OK(cudaEventSynchronize(stop));
    EXPECT_CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
    EXPECT_GE(ms, 0.0f);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaGetLastError();
}

TEST(ApiErrors, EveryErrorHasCudasNameAndString)
{
    EXPECT_STREQ("no error", cudaGetErrorString(cudaSuccess));
    EXPECT_STREQ("cudaSuccess", cudaGetErrorName(cudaSuccess));
    EXPECT_STREQ("too many blocks in cooperative launch", cudaGetErrorString(cudaErrorCooperativeLaunchTooLarge));
    EXPECT_STREQ("peer access is already enabled", cudaGetErrorString(cudaErrorPeerAccessAlreadyEnabled));
    EXPECT_STREQ("unrecognized error code", cudaGetErrorString((cudaError_t)12345));
}
