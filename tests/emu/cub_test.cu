// include/cub/cub.cuh, the part of CUB the emulator offers: block reductions and scans in a
// kernel (through __shared__ TempStorage, as CUB's users write them) and the device-wide
// reduce and scan with CUB's two-call temporary-storage protocol.
#include <cub/cub.cuh>

#include "emu_test_util.h"

__global__ void block_collectives(const int *in, int *sum, int *largest, int *exclusive, int *inclusive, int *aggregate)
{
    typedef cub::BlockReduce<int, 64> Reduce;
    typedef cub::BlockScan<int, 64> Scan;
    __shared__ typename Reduce::TempStorage reduce_storage;
    __shared__ typename Scan::TempStorage scan_storage;
    const int value = in[threadIdx.x];
    const int total = Reduce(reduce_storage).Sum(value);
    if (threadIdx.x == 0) *sum = total;  // valid in thread 0, as in CUB
    const int top = Reduce(reduce_storage).Reduce(value, cub::Max());
    if (threadIdx.x == 0) *largest = top;
    int block_total;
    Scan(scan_storage).ExclusiveSum(value, exclusive[threadIdx.x], block_total);
    Scan(scan_storage).InclusiveSum(value, inclusive[threadIdx.x]);
    aggregate[threadIdx.x] = block_total;  // in every thread
}

TEST(Cub, BlockReduceAndScanInAKernel)
{
    std::vector<int> values(64);
    for (int i = 0; i < 64; ++i) values[i] = i % 7;
    DeviceArray<int> in(values), sum(1), largest(1), exclusive(64), inclusive(64), aggregate(64);
    block_collectives<<<1, 64>>>(in.get(), sum.get(), largest.get(), exclusive.get(), inclusive.get(), aggregate.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    int running = 0;
    for (int i = 0; i < 64; ++i) {
        EXPECT_EQ(running, exclusive.host()[i]) << i;
        running += values[i];
        EXPECT_EQ(running, inclusive.host()[i]) << i;
    }
    EXPECT_EQ(running, sum.host()[0]);
    EXPECT_EQ(6, largest.host()[0]);
    EXPECT_EQ(running, aggregate.host()[63]);
}

TEST(Cub, DeviceReduceAndScanAskForTemporaryStorageFirst)
{
    std::vector<float> values = {1.5f, 2.0f, -4.0f, 8.25f};
    DeviceArray<float> in(values), total(1), prefix(4);
    void *temp = nullptr;
    size_t temp_bytes = 0;
    ASSERT_CUDA_OK(cub::DeviceReduce::Sum(temp, temp_bytes, in.get(), total.get(), 4));
    EXPECT_GT(temp_bytes, 0u);
    ASSERT_CUDA_OK(cudaMalloc(&temp, temp_bytes));
    ASSERT_CUDA_OK(cub::DeviceReduce::Sum(temp, temp_bytes, in.get(), total.get(), 4));
    EXPECT_EQ(7.75f, total.host()[0]);
    ASSERT_CUDA_OK(cub::DeviceReduce::Max(temp, temp_bytes, in.get(), total.get(), 4));
    EXPECT_EQ(8.25f, total.host()[0]);
    ASSERT_CUDA_OK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in.get(), prefix.get(), 4));
    EXPECT_EQ((std::vector<float>{0.0f, 1.5f, 3.5f, -0.5f}), prefix.host());
    ASSERT_CUDA_OK(cub::DeviceReduce::Min(temp, temp_bytes, in.get(), total.get(), 4));
    EXPECT_EQ(-4.0f, total.host()[0]);
    ASSERT_CUDA_OK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, in.get(), in.get(), 4));  // in place
    EXPECT_EQ((std::vector<float>{1.5f, 3.5f, -0.5f, 7.75f}), in.host());
    ASSERT_CUDA_OK(cudaFree(temp));
}
