// EMU_SCHEDULE=random[:seed]: a kernel missing a __syncthreads() gives the right answer under
// the default order by luck, and a wrong one under a random order; with the barrier both are
// right. And a warp function waiting for a lane stuck at a block barrier is reported.
#include <cstdio>

#include "emu_test_util.h"

// Each thread reads its left neighbour's shared value. Without the barrier the read may come
// before the neighbour's write: in thread order it never does; in a random order it will.
template <bool WithBarrier>
__global__ void left_neighbour(int *out)
{
    __shared__ int value[256];
    int t = threadIdx.x;
    value[t] = 10 * t + blockIdx.x;
    if (WithBarrier) __syncthreads();
    out[blockIdx.x * blockDim.x + t] = t > 0 ? value[t - 1] : -1;
}

namespace {
// How many outputs are wrong after running the kernel over `blocks` blocks.
template <bool WithBarrier>
int wrong_answers(int blocks)
{
    DeviceArray<int> out(blocks * 256, 0xff);
    left_neighbour<WithBarrier><<<blocks, 256>>>(out.get());
    std::vector<int> values = out.host();
    int wrong = 0;
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < 256; ++t) {
            int expected = t > 0 ? 10 * (t - 1) + b : -1;
            wrong += values[b * 256 + t] != expected;
        }
    return wrong;
}
}  // namespace

TEST(Schedule, DefaultOrderHidesTheMissingBarrier)
{
    ScopedEnv schedule("EMU_SCHEDULE", "default");
    EXPECT_EQ(0, wrong_answers<false>(8));
    EXPECT_EQ(0, wrong_answers<true>(8));
}

TEST(Schedule, RandomOrderCatchesTheMissingBarrier)
{
    ScopedEnv schedule("EMU_SCHEDULE", "random:42");
    EXPECT_GT(wrong_answers<false>(8), 100);
    EXPECT_EQ(0, wrong_answers<true>(8)) << "with the barrier, every order is right";
}

// A helper for the next test, which runs it in fresh processes (with EMU_REPLAY set): prints
// how the missing barrier went. In the ordinary run it does nothing.
TEST(ScheduleReplay, PrintWrongAnswers)
{
    if (std::getenv("EMU_REPLAY")) std::printf("wrong answers: %d\n", wrong_answers<false>(4));
}

TEST(Schedule, RandomOrderIsReproducibleFromItsSeed)
{
    // The order depends on the seed and on the launch's position in the program, so the same
    // program with the same seed replays the same schedule (whatever the CPU thread count).
    const std::string replay = "EMU_REPLAY=1 EMU_SCHEDULE=random:7 " + this_program() + " --gtest_filter=ScheduleReplay.* | grep 'wrong answers'";
    CommandResult first = run_command(replay), second = run_command(replay);
    EXPECT_NE(std::string::npos, first.output.find("wrong answers: ")) << first.output;
    EXPECT_EQ(first.output, second.output);
    EXPECT_EQ(std::string::npos, first.output.find("wrong answers: 0\n"));
}

// A tree reduction missing the barrier after loading shared memory: random order breaks it.
__global__ void sum_missing_first_barrier(const int *in, int *out)
{
    __shared__ int partial[128];
    unsigned int t = threadIdx.x;
    partial[t] = in[t];
    // missing: __syncthreads();
    for (unsigned int stride = 64; stride > 0; stride >>= 1) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) out[0] = partial[0];
}

TEST(Schedule, RandomOrderBreaksAReductionMissingItsFirstBarrier)
{
    ScopedEnv schedule("EMU_SCHEDULE", "random:1");
    std::vector<int> ones(128, 1);
    DeviceArray<int> in(ones);
    int wrong = 0;
    for (int run = 0; run < 5; ++run) {
        DeviceArray<int> out(1);
        sum_missing_first_barrier<<<1, 128>>>(in.get(), out.get());
        wrong += out.host()[0] != 128;
    }
    EXPECT_GT(wrong, 0);
}

__global__ void warp_waits_for_a_lane_at_syncthreads(int *out)
{
    if (threadIdx.x == 0) {
        __syncthreads();  // lane 0 waits here...
    } else {
        out[threadIdx.x] = __shfl_sync(0xffffffff, 1, 0);  // ...while the rest of its warp waits for it
    }
}

TEST(ScheduleDeathTest, DeadlockIsReportedNotHung)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    DeviceArray<int> out(32);
    EXPECT_DEATH(warp_waits_for_a_lane_at_syncthreads<<<1, 32>>>(out.get()), "deadlock in kernel");
}

TEST(Schedule, UnknownScheduleIsRefusedWithAnExplanation)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    ScopedEnv schedule("EMU_SCHEDULE", "shuffled");
    DeviceArray<int> out(256);
    EXPECT_DEATH(left_neighbour<true><<<1, 256>>>(out.get()), "EMU_SCHEDULE=shuffled is not understood");
}
