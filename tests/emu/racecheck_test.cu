// The race detector (EMU_RACECHECK=1): shared-memory accesses of one epoch between barriers
// by different threads, and different values stored at one global address in one launch.
// Each kernel runs in a death-test child, since a race ends the program.
#include <cooperative_groups.h>

#include <string>

#include "emu_test_util.h"
#include "exit_codes.h"

namespace {
const std::string kFile = "racecheck_test.cu";

// The report line's "FILE:LINE" for a line of this file (escaped for gtest's regex).
std::string at(int line) { return kFile + ":" + std::to_string(line); }

// Launches in a child with the detector on; the child exits 0 if the kernel ran to its end.
#define EXPECT_RACE(launch, regex)                                                      \
    GTEST_FLAG_SET(death_test_style, "threadsafe");                                     \
    EXPECT_EXIT(                                                                        \
        {                                                                               \
            setenv("EMU_RACECHECK", "1", 1);                                            \
            launch;                                                                     \
            cudaDeviceSynchronize();                                                    \
            std::exit(0);                                                               \
        },                                                                              \
        ::testing::ExitedWithCode(LAB_EXIT_RACE), regex)
#define EXPECT_NO_RACE(launch, check)                                                   \
    GTEST_FLAG_SET(death_test_style, "threadsafe");                                     \
    EXPECT_EXIT(                                                                        \
        {                                                                               \
            setenv("EMU_RACECHECK", "1", 1);                                            \
            launch;                                                                     \
            cudaDeviceSynchronize();                                                    \
            std::exit((check) ? 0 : 1);                                                 \
        },                                                                              \
        ::testing::ExitedWithCode(0), "^$")
}  // namespace

// A 2D tile transposed through shared memory, with and without the barrier between the
// stores and the loads.
template <bool kBarrier>
__global__ void transpose_tile(const int *in, int *out)
{
    __shared__ int tile[4][4];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 4 + threadIdx.x];
    if (kBarrier) __syncthreads();
    out[threadIdx.y * 4 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
const int kTileStoreLine = __LINE__ - 4;
const int kTileLoadLine = __LINE__ - 3;

TEST(Racecheck, MissingSyncthreadsIsReportedWithThreadsLinesAndName)
{
    std::vector<int> values(16);
    for (int i = 0; i < 16; ++i) values[i] = 100 + i;  // stores that change what shared memory held
    DeviceArray<int> in(values), out(16);
    // In thread order, threads (0..3,0,0) store row 0 and read column 0, which thread (0,1,0)
    // then stores: the first conflict is its store after thread (1,0,0)'s read of tile[1][0].
    EXPECT_RACE(transpose_tile<false><<<1, dim3(4, 4)>>>(in.get(), out.get()),
                "cuda-emu: data race on __shared__ tile: thread \\(0,1,0\\) writes it at .*" + at(kTileStoreLine) +
                    ", thread \\(1,0,0\\) reads it at .*" + at(kTileLoadLine) +
                    ", no __syncthreads\\(\\) between \\(block \\(0,0,0\\) of kernel transpose_tile");
}

TEST(Racecheck, CorrectKernelWithBarrierReportsNothing)
{
    std::vector<int> values(16);
    for (int i = 0; i < 16; ++i) values[i] = i;
    DeviceArray<int> in(values), out(16);
    EXPECT_NO_RACE(transpose_tile<true><<<1, dim3(4, 4)>>>(in.get(), out.get()),
                   out.host()[1] == 4 && out.host()[4] == 1);
}

// The fw lab's pattern: thread 0 loads the row's (i,k) entry into shared memory, every thread
// reads it; without the barrier, thread 1 reads what thread 0 wrote in the same epoch.
template <bool kBarrier>
__global__ void fw_step(int k, int *dist, int n)
{
    __shared__ int trkc;
    int row = blockIdx.y, col = threadIdx.x;
    if (threadIdx.x == 0) trkc = dist[row * n + k];
    if (kBarrier) __syncthreads();
    int via = trkc + dist[k * n + col];
    if (via < dist[row * n + col]) dist[row * n + col] = via;
}
const int kTrkcStoreLine = __LINE__ - 5;
const int kTrkcLoadLine = __LINE__ - 4;

TEST(Racecheck, FwPatternWithoutBarrierIsCaught)
{
    std::vector<int> values(16);
    for (int i = 0; i < 16; ++i) values[i] = 100 + i;
    DeviceArray<int> dist(values);
    EXPECT_RACE(fw_step<false><<<dim3(1, 4), 4>>>(0, dist.get(), 4),
                "data race on __shared__ trkc: thread \\(1,0,0\\) reads it at .*" + at(kTrkcLoadLine) +
                    ", thread \\(0,0,0\\) writes it at .*" + at(kTrkcStoreLine) + ", no __syncthreads\\(\\) between");
    EXPECT_NO_RACE(fw_step<true><<<dim3(1, 4), 4>>>(0, dist.get(), 4), dist.host()[5] == 105);
}

// Every thread counts itself into one shared counter with an atomic: not a race.
__global__ void count_with_atomics(int *out)
{
    __shared__ int count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    atomicAdd(&count, 1);
    __syncthreads();
    if (threadIdx.x == 0) out[0] = count;
}

TEST(Racecheck, AtomicsAreNotRaces)
{
    DeviceArray<int> out(1);
    EXPECT_NO_RACE(count_with_atomics<<<1, 64>>>(out.get()), out.host()[0] == 64);
}

// Lanes of one warp passing values through shared memory with __syncwarp() between: ordered.
__global__ void warp_neighbours(int *out)
{
    __shared__ int lanes[32];
    lanes[threadIdx.x] = (int)threadIdx.x;
    __syncwarp();
    out[threadIdx.x] = lanes[(threadIdx.x + 1) % 32];
}

TEST(Racecheck, SyncwarpOrdersLanesOfOneWarp)
{
    DeviceArray<int> out(32);
    EXPECT_NO_RACE(warp_neighbours<<<1, 32>>>(out.get()), out.host()[31] == 0);
}

// Global memory: every thread of every block stores one value at one address.
__global__ void store_to_one_place(int *out, int same)
{
    out[0] = same ? 1 : (int)(blockIdx.x * blockDim.x + threadIdx.x);
}
const int kGlobalStoreLine = __LINE__ - 2;

TEST(Racecheck, SameValueStoredByManyThreadsIsNotARace)
{
    DeviceArray<int> out(1);
    EXPECT_NO_RACE(store_to_one_place<<<4, 32>>>(out.get(), 1), out.host()[0] == 1);
}

TEST(Racecheck, DifferentValuesStoredAtOneAddressAreARace)
{
    DeviceArray<int> out(1);
    EXPECT_RACE(store_to_one_place<<<1, 32>>>(out.get(), 0),
                "cuda-emu: data race on global memory out\\[...\\] at 0x[0-9a-f]+: thread \\(1,0,0\\) of block "
                "\\(0,0,0\\) writes 1 at .*" + at(kGlobalStoreLine) + ", thread \\(0,0,0\\) of block \\(0,0,0\\) "
                "writes 0 at .*" + at(kGlobalStoreLine) + ", in one launch of kernel store_to_one_place");
}

// Stores by two threads of one block with a barrier between, and a thread's own locals,
// which the next thread on the same fiber stack reuses: neither is a race.
__global__ void ordered_stores(int *out)
{
    int scratch[4];
    scratch[threadIdx.x % 4] = (int)threadIdx.x;
    if (threadIdx.x == 0) out[0] = 1;
    __syncthreads();
    if (threadIdx.x == 1) out[0] = 2 + scratch[1] * 0;
}

TEST(Racecheck, BarrierOrdersGlobalStoresOfOneBlock)
{
    DeviceArray<int> out(1);
    EXPECT_NO_RACE(ordered_stores<<<1, 8>>>(out.get()), out.host()[0] == 2);
}

// The apsp lab's pivot block: in step k every thread stores its entry, and row k and column k,
// which others read in the same step, are stored with the value they already hold.
__global__ void pivot_steps(int *out)
{
    __shared__ int pivot[8][8];
    int i = threadIdx.y, j = threadIdx.x;
    pivot[i][j] = i == j ? 0 : 1 + (i * 8 + j) % 5;
    __syncthreads();
    for (int k = 0; k < 8; ++k) {
        int via = pivot[i][k] + pivot[k][j];
        pivot[i][j] = via < pivot[i][j] ? via : pivot[i][j];
        __syncthreads();
    }
    out[i * 8 + j] = pivot[i][j];
}

TEST(Racecheck, StoringTheValueAlreadyThereIsNotARace)
{
    DeviceArray<int> out(64);
    EXPECT_NO_RACE(pivot_steps<<<1, dim3(8, 8)>>>(out.get()), out.host()[0] == 0);
}

// Block 0 stores, every block meets at this_grid().sync(), then block 1 stores another value.
__global__ void store_across_grid_sync(int *out)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) out[0] = 1;
    cooperative_groups::this_grid().sync();
    if (blockIdx.x == 1 && threadIdx.x == 0) out[0] = 2;
}

TEST(Racecheck, GridSyncOrdersGlobalStoresOfDifferentBlocks)
{
    DeviceArray<int> out(1);
    int *pointer = out.get();
    void *args[] = {&pointer};
    EXPECT_NO_RACE(cudaLaunchCooperativeKernel((void *)store_across_grid_sync, 2, 32, args), out.host()[0] == 2);
}

TEST(Racecheck, OffByDefault)
{
    DeviceArray<int> out(1);
    unsetenv("EMU_RACECHECK");
    store_to_one_place<<<1, 32>>>(out.get(), 0);
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    EXPECT_EQ(31, out.host()[0]);  // the last thread in the default order stores last
}
