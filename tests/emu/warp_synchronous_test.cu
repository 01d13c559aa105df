// Warp-synchronous shared memory: lanes of one warp exchange values through shared memory with
// no __syncwarp() between a store and the loads of it, relying on the warp running in step,
// as older CUDA code (a block reduction's last steps, a warp scan) does and GPUs run it. The
// emulator keeps a warp's lanes in step where a lane turns from shared loads to stores or back
// (cuda_emu/memory_access.h); without that, lanes run one after another and read stale values.
// The second half of the pattern, a store after loads, needs volatile, as nvcc does.
#include "emu_test_util.h"

constexpr int kColumns = 17;  // more columns than a quarter warp, fewer than a warp

// Each thread leaves a row of kColumns values; the first kColumns lanes each sum one column
// into its head, then lane 0 reads the heads: the others' stores, with no barrier between.
__global__ void column_sums_then_lane_zero_reads(const double *in, double *out)
{
    extern __shared__ double rows[];
    for (int c = 0; c < kColumns; ++c) rows[kColumns * threadIdx.x + c] = in[kColumns * threadIdx.x + c];
    __syncthreads();
    if (threadIdx.x < kColumns) {
        double sum = 0.0;
        for (unsigned int i = threadIdx.x; i < blockDim.x * kColumns; i += kColumns) sum += rows[i];
        rows[threadIdx.x] = sum;
    }
    if (threadIdx.x == 0) {
        double total = 0.0;
        for (int c = 0; c < kColumns; ++c) total += rows[c] * (c + 1);
        *out = total;
    }
}

TEST(WarpSynchronous, LaneZeroReadsWhatTheOtherLanesOfItsWarpStored)
{
    const int threads = 64;
    std::vector<double> in(threads * kColumns);
    double expected = 0.0;
    for (int t = 0; t < threads; ++t)
        for (int c = 0; c < kColumns; ++c) {
            in[t * kColumns + c] = t * 0.5 + c;
            expected += in[t * kColumns + c] * (c + 1);
        }
    DeviceArray<double> d_in(in), out(1);
    column_sums_then_lane_zero_reads<<<1, threads, threads * kColumns * sizeof(double)>>>(d_in.get(), out.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    EXPECT_DOUBLE_EQ(expected, out.host()[0]);
}

// The classic reduction: __syncthreads() while more than a warp is left, then the last warp
// alone, in step, with no barrier at all.
__global__ void reduce_with_warp_synchronous_tail(const int *in, int *out)
{
    __shared__ int partial[128];
    unsigned int tid = threadIdx.x;
    partial[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (unsigned int half = blockDim.x / 2; half > 32; half /= 2) {
        if (tid < half) partial[tid] += partial[tid + half];
        __syncthreads();
    }
    if (tid < 32) {
        partial[tid] += partial[tid + 32];
        partial[tid] += partial[tid + 16];
        partial[tid] += partial[tid + 8];
        partial[tid] += partial[tid + 4];
        partial[tid] += partial[tid + 2];
        partial[tid] += partial[tid + 1];
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

TEST(WarpSynchronous, ReductionTailWithoutBarriers)
{
    const int blocks = 3, threads = 128;
    std::vector<int> in(blocks * threads);
    for (int i = 0; i < blocks * threads; ++i) in[i] = (i * 7) % 13 - 4;
    DeviceArray<int> d_in(in), out(blocks);
    reduce_with_warp_synchronous_tail<<<blocks, threads>>>(d_in.get(), out.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<int> sums = out.host();
    for (int b = 0; b < blocks; ++b) {
        int expected = 0;
        for (int t = 0; t < threads; ++t) expected += in[b * threads + t];
        EXPECT_EQ(expected, sums[b]) << "block " << b;
    }
}

// An inclusive scan of each warp in place (Hillis and Steele): each lane must read its
// neighbour's value before the neighbour adds to it, which only lanes in step do. The second
// warp meets the first at a barrier while the first still scans.
__global__ void warp_inclusive_scan(const int *in, int *out)
{
    __shared__ volatile int values[64];
    unsigned int tid = threadIdx.x, lane = tid % 32;
    values[tid] = in[tid];
    if (tid < 32) {
        for (unsigned int offset = 1; offset < 32; offset *= 2)
            if (lane >= offset) values[tid] += values[tid - offset];
    }
    __syncthreads();
    out[tid] = values[tid];
}

TEST(WarpSynchronous, InPlaceWarpScanReadsBeforeItsNeighbourAdds)
{
    std::vector<int> in(64);
    for (int i = 0; i < 64; ++i) in[i] = i % 5 + 1;
    DeviceArray<int> d_in(in), out(64);
    warp_inclusive_scan<<<1, 64>>>(d_in.get(), out.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<int> scanned = out.host();
    int running = 0;
    for (int i = 0; i < 32; ++i) {
        running += in[i];
        EXPECT_EQ(running, scanned[i]) << "lane " << i;
    }
    for (int i = 32; i < 64; ++i) EXPECT_EQ(in[i], scanned[i]) << "thread " << i << " (the warp that did not scan)";
}

// The tail as NVIDIA's reduction samples write it: a volatile pointer to the shared array, the
// running sum kept in a register and stored at each step.
__global__ void reduce_tail_through_volatile_pointer(const int *in, int *out)
{
    __shared__ int partial[64];
    unsigned int tid = threadIdx.x;
    int sum = in[tid] + in[tid + 64];
    partial[tid] = sum;
    __syncthreads();
    if (tid < 32) {
        volatile int *lanes = partial;
        lanes[tid] = sum = sum + lanes[tid + 32];
        lanes[tid] = sum = sum + lanes[tid + 16];
        lanes[tid] = sum = sum + lanes[tid + 8];
        lanes[tid] = sum = sum + lanes[tid + 4];
        lanes[tid] = sum = sum + lanes[tid + 2];
        lanes[tid] = sum = sum + lanes[tid + 1];
    }
    if (tid == 0) *out = partial[0];
}

TEST(WarpSynchronous, ReductionTailThroughAVolatilePointer)
{
    std::vector<int> in(128);
    int expected = 0;
    for (int i = 0; i < 128; ++i) expected += in[i] = (i * 5) % 11 - 3;
    DeviceArray<int> d_in(in), out(1);
    reduce_tail_through_volatile_pointer<<<1, 64>>>(d_in.get(), out.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    EXPECT_EQ(expected, out.host()[0]);
}
