// Warp-level functions: the four shuffles (with and without width), votes, __syncwarp,
// partial warps at the end of a block, and cooperative-groups tiles built on them.
#include <cooperative_groups.h>

#include "emu_test_util.h"

namespace cg = cooperative_groups;

struct Shuffles {
    int direct, up, down, xor_, direct8, up4, down4, xor8;
};

__global__ void shuffles(Shuffles *out)
{
    int lane = threadIdx.x % 32;
    int v = 100 + (int)threadIdx.x;
    Shuffles s;
    s.direct = __shfl_sync(0xffffffff, v, 3);
    s.up = __shfl_up_sync(0xffffffff, v, 1);
    s.down = __shfl_down_sync(0xffffffff, v, 2);
    s.xor_ = __shfl_xor_sync(0xffffffff, v, 1);
    s.direct8 = __shfl_sync(0xffffffff, v, 9, 8);       // lane 9 % 8 = 1 of each 8-lane segment
    s.up4 = __shfl_up_sync(0xffffffff, v, 1, 4);
    s.down4 = __shfl_down_sync(0xffffffff, v, 1, 4);
    s.xor8 = __shfl_xor_sync(0xffffffff, v, 4, 8);
    out[threadIdx.x] = s;
    (void)lane;
}

TEST(Warp, ShufflesReadTheRightLanes)
{
    DeviceArray<Shuffles> out(64);
    shuffles<<<1, 64>>>(out.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<Shuffles> s = out.host();
    for (int t = 0; t < 64; ++t) {
        int lane = t % 32, warp_base = t - lane, v = 100 + t;
        EXPECT_EQ(100 + warp_base + 3, s[t].direct) << t;
        EXPECT_EQ(lane >= 1 ? v - 1 : v, s[t].up) << t;
        EXPECT_EQ(lane + 2 < 32 ? v + 2 : v, s[t].down) << t;
        EXPECT_EQ(100 + warp_base + (lane ^ 1), s[t].xor_) << t;
        EXPECT_EQ(100 + warp_base + (lane & ~7) + 1, s[t].direct8) << t;
        EXPECT_EQ(lane % 4 >= 1 ? v - 1 : v, s[t].up4) << t;
        EXPECT_EQ(lane % 4 + 1 < 4 ? v + 1 : v, s[t].down4) << t;
        EXPECT_EQ(100 + warp_base + (lane ^ 4), s[t].xor8) << t;
    }
}

// The warp-shuffle reduction students write, in float and double, over a partial last warp.
template <class T>
__global__ void warp_reduce(const T *in, T *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    T v = i < n ? in[i] : T(0);
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}

TEST(Warp, ShuffleReduction)
{
    const int n = 5000;
    std::vector<float> in(n, 0.25f);
    std::vector<double> in_d(n, 0.5);
    DeviceArray<float> d_in(in), total(1);
    DeviceArray<double> d_in_d(in_d), total_d(1);
    warp_reduce<<<(n + 255) / 256, 256>>>(d_in.get(), total.get(), n);
    warp_reduce<<<(n + 255) / 256, 256>>>(d_in_d.get(), total_d.get(), n);
    EXPECT_EQ(0.25f * n, total.host()[0]);
    EXPECT_EQ(0.5 * n, total_d.host()[0]);
}

struct Votes {
    unsigned int ballot;
    int any_small, all_small, any_huge, all_below_48;
};

// A block of 48 threads: warp 1 has only 16 lanes, and the votes see only those.
__global__ void votes(Votes *out)
{
    int t = threadIdx.x;
    Votes v;
    v.ballot = __ballot_sync(0xffffffff, t % 3 == 0);
    v.any_small = __any_sync(0xffffffff, t < 2);
    v.all_small = __all_sync(0xffffffff, t < 2);
    v.any_huge = __any_sync(0xffffffff, t > 1000);
    v.all_below_48 = __all_sync(0xffffffff, t < 48);
    out[t] = v;
}

TEST(Warp, VotesOverFullAndPartialWarps)
{
    DeviceArray<Votes> out(48);
    votes<<<1, 48>>>(out.get());
    std::vector<Votes> v = out.host();
    unsigned int warp0 = 0, warp1 = 0;
    for (int lane = 0; lane < 32; ++lane) {
        if (lane % 3 == 0) warp0 |= 1u << lane;
        if (lane < 16 && (32 + lane) % 3 == 0) warp1 |= 1u << lane;
    }
    EXPECT_EQ(warp0, v[0].ballot);
    EXPECT_EQ(warp1, v[40].ballot);
    EXPECT_EQ(1, v[7].any_small);
    EXPECT_EQ(0, v[40].any_small);
    EXPECT_EQ(0, v[0].all_small);
    EXPECT_EQ(0, v[0].any_huge);
    EXPECT_EQ(1, v[47].all_below_48);  // the 16 missing lanes do not count against it
}

// __syncwarp orders shared-memory exchanges within a warp; threads of a warp that returned
// early are not waited for.
__global__ void warp_exchange(int *out)
{
    __shared__ int slots[64];
    int t = threadIdx.x;
    if (t % 32 >= 24) return;  // lanes 24..31 of each warp leave
    slots[t] = t * 10;
    __syncwarp();
    out[t] = slots[(t / 32) * 32 + (t % 32 + 1) % 24];
}

TEST(Warp, SyncwarpWithExitedLanes)
{
    DeviceArray<int> out(64, 0xff);
    warp_exchange<<<1, 64>>>(out.get());
    std::vector<int> values = out.host();
    for (int t = 0; t < 64; ++t) {
        if (t % 32 < 24) {
            EXPECT_EQ(10 * ((t / 32) * 32 + (t % 32 + 1) % 24), values[t]) << t;
        }
    }
}

// Half the warp shuffles with a 16-lane mask while the other half does something else.
__global__ void half_warp(int *out)
{
    int lane = threadIdx.x;
    if (lane < 16) {
        out[lane] = __shfl_down_sync(0x0000ffff, lane, 8, 16);
    } else {
        out[lane] = __reduce_add_sync(0xffff0000, (unsigned int)lane);
    }
}

TEST(Warp, DivergentHalvesWithTheirOwnMasks)
{
    DeviceArray<int> out(32);
    half_warp<<<1, 32>>>(out.get());
    std::vector<int> v = out.host();
    for (int lane = 0; lane < 16; ++lane) EXPECT_EQ(lane < 8 ? lane + 8 : lane, v[lane]);
    int sum = 0;
    for (int lane = 16; lane < 32; ++lane) sum += lane;
    for (int lane = 16; lane < 32; ++lane) EXPECT_EQ(sum, v[lane]);
}

__global__ void tile_sums(const int *in, int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
    int v = in[block.thread_rank()];
    int total = cg::reduce(tile, v, cg::plus<int>());
    unsigned int mine = __match_any_sync(0xffffffff, (int)tile.meta_group_rank());
    if (tile.thread_rank() == 0) out[tile.meta_group_rank()] = total;
    if (block.thread_rank() == 9) out[8] = (int)mine;
    block.sync();
}

TEST(Warp, CooperativeGroupsTiles)
{
    std::vector<int> in(64);
    for (int i = 0; i < 64; ++i) in[i] = i;
    DeviceArray<int> d_in(in), out(9);
    tile_sums<<<1, 64>>>(d_in.get(), out.get());
    std::vector<int> v = out.host();
    for (int t = 0; t < 8; ++t) EXPECT_EQ(8 * 8 * t + 28, v[t]) << "tile " << t;
    EXPECT_EQ(0xff00, v[8]);  // thread 9 is in tile 1: lanes 8..15 hold the same value
}

// A sum over the warp by __shfl_down_sync from offset 16, as students write it.
__global__ void warp_sum(const int *in, int *out)
{
    int v = in[threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x == 0) out[0] = v;
}

// In a block of 8 threads, lanes 8..31 do not exist: a shuffle from them reads 0 (an H100
// gives 36 for 1 + ... + 8), never what a full warp of an earlier kernel left behind.
TEST(Warp, LanesTheBlockDoesNotHaveReadZero)
{
    DeviceArray<int> big(std::vector<int>(32, 1000000)), out(1);
    DeviceArray<int> small(std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8});
    warp_sum<<<1, 32>>>(big.get(), out.get());
    ASSERT_EQ(32000000, out.host()[0]);
    warp_sum<<<1, 8>>>(small.get(), out.get());
    EXPECT_EQ(36, out.host()[0]);
}

TEST(Warp, MaskNamingLanesTheBlockDoesNotHaveIsReportedOnce)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    DeviceArray<int> small(std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}), out(1);
    EXPECT_EXIT(
        {
            unsetenv("EMU_QUIET");
            warp_sum<<<1, 8>>>(small.get(), out.get());
            warp_sum<<<2, 8>>>(small.get(), out.get());
            std::exit(0);
        },
        ::testing::ExitedWithCode(0),
        // One line in all: the second launch says nothing more.
        "^cuda-emu: kernel warp_sum [^\n]*mask 0xffffffff, which names lanes that do not exist in a block of 8 "
        "threads [^\n]*undefined behaviour in CUDA[^\n]*__activemask\\(\\)[^\n]*\n$");
}
