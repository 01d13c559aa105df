// Asynchronous copies and split barriers (include/cuda_emu/pipeline.h, block_barrier.h,
// cooperative_groups/memcpy_async.h): a thread's pipeline makes its copies when a wait covers
// their stage and not before; wait_prior leaves the newest stages pending; a cuda::barrier's
// phases, tokens, drops and completion function; cg::memcpy_async shared by a group.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>

#include "emu_test_util.h"
#include "exit_codes.h"

namespace cg = cooperative_groups;

namespace {

// Each thread copies three words of `in` into shared memory, one stage each, and records what
// its destination holds before any wait, after waiting for all but the newest stage, and after
// waiting for all.
struct StageView {
    int before_wait[3];
    int after_wait_prior_1[3];
    int after_wait_all[3];
};

__global__ void pipeline_stages(const int *in, StageView *out)
{
    __shared__ int staged[32][3];
    const int t = (int)threadIdx.x;
    for (int s = 0; s < 3; ++s) staged[t][s] = -1;
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    for (int s = 0; s < 3; ++s) {
        pipe.producer_acquire();
        cuda::memcpy_async(&staged[t][s], &in[3 * t + s], sizeof(int), pipe);
        pipe.producer_commit();
    }
    StageView view;
    for (int s = 0; s < 3; ++s) view.before_wait[s] = staged[t][s];
    cuda::pipeline_consumer_wait_prior<1>(pipe);
    for (int s = 0; s < 3; ++s) view.after_wait_prior_1[s] = staged[t][s];
    cuda::pipeline_consumer_wait_prior<0>(pipe);
    for (int s = 0; s < 3; ++s) view.after_wait_all[s] = staged[t][s];
    out[t] = view;
}

TEST(AsyncCopy, PipelineCopiesLandWhenAWaitCoversTheirStage)
{
    std::vector<int> values(96);
    for (int i = 0; i < 96; ++i) values[i] = 1000 + i;
    DeviceArray<int> in(values);
    DeviceArray<StageView> out(32);
    pipeline_stages<<<1, 32>>>(in.get(), out.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    std::vector<StageView> views = out.host();
    for (int t = 0; t < 32; ++t)
        for (int s = 0; s < 3; ++s) {
            EXPECT_EQ(-1, views[t].before_wait[s]) << "thread " << t << " stage " << s;
            EXPECT_EQ(s < 2 ? 1000 + 3 * t + s : -1, views[t].after_wait_prior_1[s]) << "thread " << t << " stage " << s;
            EXPECT_EQ(1000 + 3 * t + s, views[t].after_wait_all[s]) << "thread " << t << " stage " << s;
        }
}

// Double buffering as the tensor-core samples write it: stage the next tile while using this one,
// consumer_wait / consumer_release in order; the block's tile sums come out of shared memory.
__global__ void double_buffered_sums(const float4 *in, int tiles, float *sums)
{
    __shared__ float4 buffer[2][64];
    const int t = (int)threadIdx.x;
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    const auto shape = cuda::aligned_size_t<alignof(float4)>(sizeof(float4));
    pipe.producer_acquire();
    cuda::memcpy_async(&buffer[0][t], &in[t], shape, pipe);
    pipe.producer_commit();
    for (int tile = 0; tile < tiles; ++tile) {
        if (tile + 1 < tiles) {
            pipe.producer_acquire();
            cuda::memcpy_async(&buffer[(tile + 1) % 2][t], &in[(tile + 1) * 64 + t], shape, pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        __syncthreads();
        if (t == 0) {
            float sum = 0;
            for (int i = 0; i < 64; ++i) {
                const float4 v = buffer[tile % 2][i];
                sum += v.x + v.y + v.z + v.w;
            }
            sums[tile] = sum;
        }
        __syncthreads();
        pipe.consumer_release();
    }
}

TEST(AsyncCopy, DoubleBufferedPipelineGivesEveryTile)
{
    const int tiles = 5;
    std::vector<float4> values(64 * tiles);
    for (int i = 0; i < 64 * tiles; ++i) values[i] = float4{(float)i, 1.0f, 0.5f, -0.5f};
    DeviceArray<float4> in(values);
    DeviceArray<float> sums(tiles);
    double_buffered_sums<<<1, 64>>>(in.get(), tiles, sums.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    std::vector<float> got = sums.host();
    for (int tile = 0; tile < tiles; ++tile) {
        float expected = 0;
        for (int i = 0; i < 64; ++i) expected += (float)(tile * 64 + i) + 1.0f;
        EXPECT_EQ(expected, got[tile]) << "tile " << tile;
    }
}

__global__ void misaligned_copy(const char *in)
{
    __shared__ float4 staged[2];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    cuda::memcpy_async(&staged[0], in + 4, cuda::aligned_size_t<16>(16), pipe);
}

TEST(AsyncCopy, AMisalignedCopyStopsWithTheAddresses)
{
    DeviceArray<char> in(64);
    EXPECT_DEATH(misaligned_copy<<<1, 1>>>(in.get()), "cuda::memcpy_async.*aligned_size_t<16>.*multiples of 16");
}

// ---- cuda::barrier: producers of each phase arrive, consumers wait with their token.
struct PhaseView {
    int seen[3];
    int completions;
};

struct CountCompletions {
    int *count;
    void operator()() const { ++*count; }
};

__global__ void barrier_phases(PhaseView *out)
{
    __shared__ cuda::barrier<cuda::thread_scope_block, CountCompletions> bar;
    __shared__ int value;
    __shared__ int completions;
    const int t = (int)threadIdx.x;
    if (t == 0) {
        completions = 0;
        init(&bar, (std::ptrdiff_t)blockDim.x, CountCompletions{&completions});
    }
    __syncthreads();
    PhaseView view;
    for (int phase = 0; phase < 3; ++phase) {
        if (t == (int)blockDim.x - 1) value = 10 * (phase + 1);  // the last thread writes, then arrives
        auto token = bar.arrive();
        bar.wait(std::move(token));
        view.seen[phase] = value;
        bar.arrive_and_wait();  // nobody writes the next phase's value before all have read this one
    }
    view.completions = completions;
    out[t] = view;
}

TEST(AsyncCopy, BarrierPhasesOrderWritesBeforeReads)
{
    DeviceArray<PhaseView> out(64);
    barrier_phases<<<1, 64>>>(out.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    for (const PhaseView &view : out.host()) {
        EXPECT_EQ(10, view.seen[0]);
        EXPECT_EQ(20, view.seen[1]);
        EXPECT_EQ(30, view.seen[2]);
        EXPECT_EQ(6, view.completions);  // two phases per loop iteration
    }
}

// A thread that drops out lowers later phases' count: the others still complete them.
__global__ void barrier_with_drop(int *rounds)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, (std::ptrdiff_t)blockDim.x);
    __syncthreads();
    if (threadIdx.x == 0) {
        bar.arrive_and_drop();
        return;
    }
    for (int round = 0; round < 4; ++round) bar.arrive_and_wait();
    atomicAdd(rounds, 4);
}

TEST(AsyncCopy, ArriveAndDropLowersLaterPhases)
{
    DeviceArray<int> rounds(1);
    barrier_with_drop<<<1, 32>>>(rounds.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    EXPECT_EQ(31 * 4, rounds.host()[0]);
}

__global__ void barrier_missing_arrivals()
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, (std::ptrdiff_t)blockDim.x + 1);  // one arrival more than threads
    __syncthreads();
    bar.arrive_and_wait();
}

TEST(AsyncCopy, ABarrierThatCanNeverCompleteStopsWithAMessage)
{
    EXPECT_DEATH(barrier_missing_arrivals<<<1, 8>>>(), "cuda::barrier::wait: the phase waited for can never complete");
}

// ---- cg::memcpy_async: a warp copies a row into shared memory, each lane its share.
__global__ void group_copy(const double *in, double *out)
{
    __shared__ double row[2][64];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const int w = (int)warp.meta_group_rank();
    cg::memcpy_async(warp, row[w], in + 64 * w, cuda::aligned_size_t<16>(64 * sizeof(double)));
    cg::wait(warp);
    for (int i = (int)warp.thread_rank(); i < 64; i += 32) out[64 * w + i] = 2 * row[w][63 - i];
}

TEST(AsyncCopy, GroupCopySharedByTheTileIsWholeAfterWait)
{
    std::vector<double> values(128);
    for (int i = 0; i < 128; ++i) values[i] = 0.25 * i;
    DeviceArray<double> in(values), out(128);
    group_copy<<<1, 64>>>(in.get(), out.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    std::vector<double> got = out.host();
    for (int w = 0; w < 2; ++w)
        for (int i = 0; i < 64; ++i) EXPECT_EQ(2 * values[64 * w + 63 - i], got[64 * w + i]) << w << " " << i;
}

// ---- The race detector sees a copy's stores where its wait is: another thread's read needs a
// barrier after that wait, not only after the copy was issued (which is a bug on a GPU too).
template <bool kBarrierAfterWait>
__global__ void read_a_neighbours_copy(const int *in, int *out)
{
    __shared__ int staged[2];
    const int t = (int)threadIdx.x;
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    pipe.producer_acquire();
    cuda::memcpy_async(&staged[t], &in[t], sizeof(int), pipe);
    pipe.producer_commit();
    __syncthreads();  // too early: the copies may not have landed
    pipe.consumer_wait();
    if (kBarrierAfterWait) __syncthreads();
    out[t] = staged[1 - t];
}

void launch_and_exit(void (*kernel)(const int *, int *))
{
    setenv("EMU_RACECHECK", "1", 1);
    DeviceArray<int> in(std::vector<int>{5, 7}), out(2);
    kernel<<<1, 2>>>(in.get(), out.get());
    cudaDeviceSynchronize();
    std::vector<int> got = out.host();
    std::exit(got[0] == 7 && got[1] == 5 ? 0 : 1);
}

TEST(AsyncCopy, RaceDetectorSeesACopyWhereItsWaitIs)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(launch_and_exit(read_a_neighbours_copy<false>), ::testing::ExitedWithCode(LAB_EXIT_RACE),
                "data race on __shared__.*cuda::memcpy_async");
    EXPECT_EXIT(launch_and_exit(read_a_neighbours_copy<true>), ::testing::ExitedWithCode(0), "^$");
}

}  // namespace
