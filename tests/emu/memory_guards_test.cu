// Guard bytes around device memory (labs/emu/src/api/memory_guards.cpp): a kernel writing past
// either end of an array fails its launch with cudaErrorIllegalAddress, named, instead of
// corrupting the heap; the array itself keeps what the kernel wrote inside it, and the memory
// frees cleanly afterwards.
#include <cstdlib>

#include "emu_test_util.h"

// Every thread of the grid writes its own index: a grid larger than n writes past the end.
__global__ void unguarded_write(int *data) { data[blockIdx.x * blockDim.x + threadIdx.x] = 7; }
__global__ void guarded_write(int *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = 7;
}
__global__ void write_before(int *data) { data[-1 - (int)threadIdx.x] = 7; }

TEST(MemoryGuards, AWritePastTheEndFailsTheLaunchAndLeavesTheHeapWhole)
{
    for (int round = 0; round < 3; ++round) {  // the guard is whole again after each report
        int *data = nullptr;
        ASSERT_CUDA_OK(cudaMalloc(&data, 1000 * sizeof(int)));
        unguarded_write<<<11, 96>>>(data);  // 1056 threads for 1000 ints: 224 bytes past the end
        EXPECT_EQ(cudaErrorIllegalAddress, cudaGetLastError());
        EXPECT_EQ(cudaSuccess, cudaGetLastError()) << "reported once";
        std::vector<int> host(1000);
        ASSERT_CUDA_OK(cudaMemcpy(host.data(), data, sizeof(int) * host.size(), cudaMemcpyDeviceToHost));
        EXPECT_EQ(7, host[0]);
        EXPECT_EQ(7, host[999]);
        EXPECT_CUDA_OK(cudaFree(data));  // no "double free or corruption"
    }
}

TEST(MemoryGuards, AWriteBeforeTheStartFailsTheLaunch)
{
    DeviceArray<int> data(64);
    write_before<<<1, 4>>>(data.get());
    EXPECT_EQ(cudaErrorIllegalAddress, cudaGetLastError());
}

TEST(MemoryGuards, AGuardedKernelAndTheWholeLastBlockOfMemoryAreFine)
{
    DeviceArray<int> odd(1000), whole(1024);
    guarded_write<<<11, 96>>>(odd.get(), 1000);
    EXPECT_EQ(cudaSuccess, cudaGetLastError());
    unguarded_write<<<8, 128>>>(whole.get());  // exactly 1024 ints: every write inside
    EXPECT_EQ(cudaSuccess, cudaGetLastError());
    EXPECT_EQ(7, whole.host()[1023]);
}

__global__ void write_byte(char *data, int at) { data[at] = 1; }

TEST(MemoryGuards, OneBytePastAnOddSizedArrayIsFound)
{
    char *data = nullptr;
    ASSERT_CUDA_OK(cudaMalloc(&data, 1001));
    write_byte<<<1, 1>>>(data, 1000);  // the last byte: fine
    EXPECT_EQ(cudaSuccess, cudaGetLastError());
    write_byte<<<1, 1>>>(data, 1001);  // one past it
    EXPECT_EQ(cudaErrorIllegalAddress, cudaGetLastError());
    write_byte<<<1, 1>>>(data, 1001 + 16000);  // deep in the guard, past the 8-byte words' rest
    EXPECT_EQ(cudaErrorIllegalAddress, cudaGetLastError());
    EXPECT_CUDA_OK(cudaFree(data));
}
