// Grid-wide synchronization: under cudaLaunchCooperativeKernel every block is resident, and
// this_grid().sync() makes every block's writes visible to every other block.
#include <cooperative_groups.h>

#include "emu_test_util.h"

namespace cg = cooperative_groups;

// Each block publishes a value, the grid syncs, then every block sums all blocks' values;
// twice, so that the barrier is reused.
__global__ void sum_across_blocks(int *published, int *sums, int rounds)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    for (int round = 0; round < rounds; ++round) {
        if (block.thread_rank() == 0) published[blockIdx.x] = (int)blockIdx.x + round * 1000;
        grid.sync();
        if (block.thread_rank() == 0) {
            int total = 0;
            for (unsigned int b = 0; b < gridDim.x; ++b) total += published[b];
            sums[round * gridDim.x + blockIdx.x] = total;
        }
        grid.sync();
    }
}

TEST(Cooperative, GridSyncMakesEveryBlocksWritesVisible)
{
    int per_sm = 0, sms = 0;
    ASSERT_CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sum_across_blocks, 128, 0));
    ASSERT_CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int cooperative = 0;
    ASSERT_CUDA_OK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0));
    EXPECT_EQ(1, cooperative);
    const int blocks = std::min(per_sm * sms, 24), rounds = 2;
    DeviceArray<int> published(blocks), sums(blocks * rounds);
    int *published_ptr = published.get(), *sums_ptr = sums.get();
    int rounds_arg = rounds;
    void *args[] = {&published_ptr, &sums_ptr, &rounds_arg};
    ASSERT_CUDA_OK(cudaLaunchCooperativeKernel((void *)sum_across_blocks, blocks, 128, args));
    std::vector<int> values = sums.host();
    for (int round = 0; round < rounds; ++round) {
        int expected = blocks * (blocks - 1) / 2 + blocks * round * 1000;
        for (int b = 0; b < blocks; ++b) EXPECT_EQ(expected, values[round * blocks + b]) << round << "," << b;
    }
}

// The CPU threads that run cooperative blocks are kept between launches: a launch with fewer
// blocks than the one before leaves some idle, one with more starts more, and each block of
// each launch runs exactly once.
TEST(Cooperative, LaunchesOfDifferentSizesReuseTheBlocksThreads)
{
    const int rounds = 1;
    for (int blocks : {6, 2, 9, 1, 9}) {
        DeviceArray<int> published(blocks), sums(blocks);
        int *published_ptr = published.get(), *sums_ptr = sums.get();
        int rounds_arg = rounds;
        void *args[] = {&published_ptr, &sums_ptr, &rounds_arg};
        ASSERT_CUDA_OK(cudaLaunchCooperativeKernel((void *)sum_across_blocks, blocks, 32, args));
        for (int total : sums.host()) EXPECT_EQ(blocks * (blocks - 1) / 2, total) << blocks << " blocks";
    }
}

__global__ void early_exit_then_sync(int *out)
{
    if (threadIdx.x >= 16) return;  // threads that leave do not hold up the grid barrier
    cg::this_grid().sync();
    out[blockIdx.x * 16 + threadIdx.x] = 1;
}

TEST(Cooperative, TypedLaunchAndExitedThreads)
{
    DeviceArray<int> out(4 * 16);
    int *out_ptr = out.get();
    void *args[] = {&out_ptr};
    ASSERT_CUDA_OK(cudaLaunchCooperativeKernel(early_exit_then_sync, 4, 64, args));
    for (int v : out.host()) EXPECT_EQ(1, v);
}

TEST(Cooperative, GridTooLargeToBeResidentFails)
{
    int per_sm = 0, sms = 0;
    ASSERT_CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sum_across_blocks, 1024, 0));
    ASSERT_CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    DeviceArray<int> published(1), sums(1);
    int *a = published.get(), *b = sums.get(), rounds = 1;
    void *args[] = {&a, &b, &rounds};
    cudaError_t error = cudaLaunchCooperativeKernel((void *)sum_across_blocks, per_sm * sms + 1, 1024, args);
    EXPECT_EQ(cudaErrorCooperativeLaunchTooLarge, error);
    EXPECT_STREQ("too many blocks in cooperative launch", cudaGetErrorString(error));
    EXPECT_EQ(cudaErrorCooperativeLaunchTooLarge, cudaGetLastError());
}

TEST(CooperativeDeathTest, GridSyncWithoutCooperativeLaunchStopsWithAnExplanation)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    DeviceArray<int> published(2), sums(2);
    EXPECT_DEATH(sum_across_blocks<<<2, 32>>>(published.get(), sums.get(), 1), "cudaLaunchCooperativeKernel");
}
