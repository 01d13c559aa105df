// Cooperative groups beyond the block and the grid, checked against the CUDA programming
// guide's "Cooperative Groups" chapter: the type-erased thread_group, tiles made at compile
// time and at run time (and tiles of tiles), tile methods, coalesced groups in divergent code,
// binary and labeled partitions, tiles of more than a warp with block_tile_memory, and
// reduce / inclusive_scan / exclusive_scan; with the race detector seeing group syncs.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "emu_test_util.h"
#include "exit_codes.h"

namespace cg = cooperative_groups;

// The reduction of the simpleCooperativeGroups sample: any group, through thread_group.
__device__ int sum_through_shared(cg::thread_group g, int *x, int value)
{
    int lane = (int)g.thread_rank();
    for (int i = (int)g.size() / 2; i > 0; i /= 2) {
        x[lane] = value;
        g.sync();
        if (lane < i) value += x[lane + i];
        g.sync();
    }
    return lane == 0 ? value : -1;
}

__global__ void group_sums(int *block_sum, int *tile_sums)
{
    extern __shared__ int workspace[];
    cg::thread_block block = cg::this_thread_block();
    int input = (int)block.thread_rank();
    int sum = sum_through_shared(block, workspace, input);
    if (block.thread_rank() == 0) *block_sum = sum;
    block.sync();
    cg::thread_group tile16 = cg::tiled_partition(block, 16);
    int offset = (int)(block.thread_rank() - tile16.thread_rank());
    sum = sum_through_shared(tile16, workspace + offset, input);
    if (tile16.thread_rank() == 0) tile_sums[block.thread_rank() / 16] = sum;
}

TEST(CooperativeGroups, ThreadGroupStandsForABlockOrARunTimeTile)
{
    const int threads = 64;
    DeviceArray<int> block_sum(1), tile_sums(threads / 16);
    group_sums<<<1, threads, threads * sizeof(int)>>>(block_sum.get(), tile_sums.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    EXPECT_EQ(threads * (threads - 1) / 2, block_sum.host()[0]);
    std::vector<int> sums = tile_sums.host();
    for (int t = 0; t < threads / 16; ++t) EXPECT_EQ(16 * 16 * t + 120, sums[t]) << t;
}

struct TileResults {
    int shfl, down, up, xor_, any, all;
    unsigned int ballot, match;
    unsigned int meta_rank, meta_size, sub_rank, sub_meta_rank, sub_meta_size;
};

__global__ void tile_methods(TileResults *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
    int v = (int)block.thread_rank();
    TileResults r;
    r.shfl = tile.shfl(v, 3);
    r.down = tile.shfl_down(v, 2);
    r.up = tile.shfl_up(v, 1);
    r.xor_ = tile.shfl_xor(v, 5);
    r.any = tile.any(v % 8 == 7);
    r.all = tile.all(v % 8 < 7);
    r.ballot = tile.ballot(v % 2 == 0);
    r.match = tile.match_any(v % 8 / 3);
    r.meta_rank = tile.meta_group_rank();
    r.meta_size = tile.meta_group_size();
    auto quad = cg::tiled_partition<4>(warp);  // a tile of a tile: meta ranks within the warp
    r.sub_rank = quad.thread_rank();
    r.sub_meta_rank = quad.meta_group_rank();
    r.sub_meta_size = quad.meta_group_size();
    out[block.thread_rank()] = r;
}

TEST(CooperativeGroups, TileMethodsWorkInRankSpace)
{
    const int threads = 64;
    DeviceArray<TileResults> out(threads);
    tile_methods<<<1, threads>>>(out.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<TileResults> r = out.host();
    for (int t = 0; t < threads; ++t) {
        int base = t & ~7, rank = t % 8;
        EXPECT_EQ(base + 3, r[t].shfl) << t;
        EXPECT_EQ(rank + 2 < 8 ? t + 2 : t, r[t].down) << t;
        EXPECT_EQ(rank >= 1 ? t - 1 : t, r[t].up) << t;
        EXPECT_EQ(base + (rank ^ 5), r[t].xor_) << t;
        EXPECT_EQ(1, r[t].any);
        EXPECT_EQ(0, r[t].all);
        EXPECT_EQ(0x55u, r[t].ballot) << t;  // bit r for rank r
        unsigned int same = rank < 3 ? 0x07u : rank < 6 ? 0x38u : 0xc0u;
        EXPECT_EQ(same, r[t].match) << t;
        EXPECT_EQ((unsigned)t / 8, r[t].meta_rank);
        EXPECT_EQ(8u, r[t].meta_size);
        EXPECT_EQ((unsigned)t % 4, r[t].sub_rank);
        EXPECT_EQ((unsigned)(t % 32) / 4, r[t].sub_meta_rank) << t;
        EXPECT_EQ(8u, r[t].sub_meta_size);
    }
}

// ---- Coalesced groups: the lanes that take a branch together.
struct Coalesced {
    unsigned int size, rank, leader_value;
};

__global__ void coalesced_in_branches(Coalesced *out)
{
    int t = (int)threadIdx.x;
    Coalesced c;
    if (t % 3 == 0) {
        cg::coalesced_group active = cg::coalesced_threads();
        c.size = active.size();
        c.rank = active.thread_rank();
        c.leader_value = active.shfl(t, 0);
    } else {
        cg::coalesced_group active = cg::coalesced_threads();
        c.size = active.size();
        c.rank = active.thread_rank();
        c.leader_value = active.shfl(t, 0) + 1000;
    }
    out[t] = c;
}

TEST(CooperativeGroups, CoalescedThreadsAreTheLanesOfTheBranch)
{
    DeviceArray<Coalesced> out(64);
    coalesced_in_branches<<<1, 64>>>(out.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<Coalesced> c = out.host();
    for (int t = 0; t < 64; ++t) {
        int warp = t / 32 * 32;
        int taken = 0, rank = 0, leader = -1;
        for (int l = warp; l < warp + 32; ++l)
            if ((l % 3 == 0) == (t % 3 == 0)) {
                if (leader < 0) leader = l;
                if (l < t) ++rank;
                ++taken;
            }
        EXPECT_EQ((unsigned)taken, c[t].size) << t;
        EXPECT_EQ((unsigned)rank, c[t].rank) << t;
        EXPECT_EQ((unsigned)(leader + (t % 3 == 0 ? 0 : 1000)), c[t].leader_value) << t;
    }
}

// The warp-aggregated atomic of the warpAggregatedAtomicsCG sample.
__device__ int aggregated_increment(int *counter)
{
    cg::coalesced_group active = cg::coalesced_threads();
    int first = 0;
    if (active.thread_rank() == 0) first = atomicAdd(counter, (int)active.size());
    return active.shfl(first, 0) + (int)active.thread_rank();
}

__global__ void filter_positive(const int *in, int *out, int *count, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        if (in[i] > 0) out[aggregated_increment(count)] = in[i];
}

TEST(CooperativeGroups, WarpAggregatedAtomicsGiveEachThreadItsOwnSlot)
{
    const int n = 3000;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 13 < 5 ? i + 1 : -i;
    int positives = (int)std::count_if(in.begin(), in.end(), [](int v) { return v > 0; });
    DeviceArray<int> d_in(in), out(n), count(1);
    filter_positive<<<4, 128>>>(d_in.get(), out.get(), count.get(), n);
    ASSERT_CUDA_OK(cudaGetLastError());
    ASSERT_EQ(positives, count.host()[0]);
    std::vector<int> kept = out.host();
    std::multiset<int> got(kept.begin(), kept.begin() + positives), want;
    for (int v : in)
        if (v > 0) want.insert(v);
    EXPECT_EQ(want, got);
}

// The binaryPartitionCG sample's pattern, and labeled_partition's buckets.
__global__ void partitions(const int *in, int *odd_sums, int *even_sums, int *bucket_counts)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    int v = in[threadIdx.x];
    cg::coalesced_group half = cg::binary_partition(warp, v & 1);
    int sum = cg::reduce(half, v, cg::plus<int>());
    if (half.thread_rank() == 0) {
        if (v & 1)
            odd_sums[threadIdx.x / 32] = sum;
        else
            even_sums[threadIdx.x / 32] = sum;
    }
    cg::coalesced_group bucket = cg::labeled_partition(warp, v % 4);
    if (bucket.thread_rank() == 0) atomicAdd(&bucket_counts[v % 4], (int)bucket.size());
}

TEST(CooperativeGroups, BinaryAndLabeledPartitions)
{
    std::vector<int> in(64);
    for (int i = 0; i < 64; ++i) in[i] = (i * 37) % 23;
    DeviceArray<int> d_in(in), odd(2), even(2), buckets(4);
    partitions<<<1, 64>>>(d_in.get(), odd.get(), even.get(), buckets.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<int> odd_sums = odd.host(), even_sums = even.host(), counts = buckets.host();
    for (int w = 0; w < 2; ++w) {
        int o = 0, e = 0;
        for (int i = w * 32; i < w * 32 + 32; ++i) (in[i] & 1 ? o : e) += in[i];
        EXPECT_EQ(o, odd_sums[w]);
        EXPECT_EQ(e, even_sums[w]);
    }
    for (int b = 0; b < 4; ++b)
        EXPECT_EQ((int)std::count_if(in.begin(), in.end(), [&](int v) { return v % 4 == b; }), counts[b]) << b;
}

// ---- Scans, and the run-time tile of a coalesced group.
__global__ void scans(int *inclusive, int *exclusive, int *coalesced_scan, unsigned int *tile_of_coalesced)
{
    int t = (int)threadIdx.x;
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(cg::this_thread_block());
    inclusive[t] = cg::inclusive_scan(tile, t + 1);
    exclusive[t] = cg::exclusive_scan(tile, t + 1, cg::plus<int>());
    if (t % 2 == 1) {
        cg::coalesced_group odd = cg::coalesced_threads();
        coalesced_scan[t] = cg::inclusive_scan(odd, 1);  // its rank + 1
        cg::coalesced_group pair = cg::tiled_partition(odd, 2);
        tile_of_coalesced[t] = pair.thread_rank() + 10 * pair.meta_group_rank() + 100 * pair.size();
    }
}

TEST(CooperativeGroups, InclusiveAndExclusiveScans)
{
    DeviceArray<int> inclusive(32), exclusive(32), coalesced(32);
    DeviceArray<unsigned int> tile_of_coalesced(32);
    scans<<<1, 32>>>(inclusive.get(), exclusive.get(), coalesced.get(), tile_of_coalesced.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<int> in = inclusive.host(), ex = exclusive.host(), co = coalesced.host();
    std::vector<unsigned int> tc = tile_of_coalesced.host();
    for (int t = 0; t < 32; ++t) {
        int base = t & ~7, inc = 0;
        for (int r = base; r <= t; ++r) inc += r + 1;
        EXPECT_EQ(inc, in[t]) << t;
        EXPECT_EQ(inc - (t + 1), ex[t]) << t;
        if (t % 2 == 1) {
            int rank = t / 2;
            EXPECT_EQ(rank + 1, co[t]) << t;
            EXPECT_EQ((unsigned)(rank % 2 + 10 * (rank / 2) + 200), tc[t]) << t;
        }
    }
}

// ---- Tiles of more than a warp (the reduction sample's multi_warp_cg_reduce).
template <unsigned int BlockSize, unsigned int TileSize>
__global__ void multi_warp_tiles(const int *in, int *tile_sums, int *exclusive, int *ordered)
{
    __shared__ cg::block_tile_memory<BlockSize> scratch;
    __shared__ int stage[BlockSize];
    cg::thread_block block = cg::this_thread_block(scratch);
    auto tile = cg::tiled_partition<TileSize>(block);
    int v = in[block.thread_rank()];
    int sum = cg::reduce(tile, v, cg::plus<int>());
    if (tile.thread_rank() == 0) tile_sums[tile.meta_group_rank()] = sum;
    exclusive[block.thread_rank()] = cg::exclusive_scan(tile, v);
    // tile.sync() orders shared memory between the tile's warps.
    stage[block.thread_rank()] = v;
    tile.sync();
    ordered[block.thread_rank()] = stage[(block.thread_rank() / TileSize) * TileSize + (tile.thread_rank() + 40) % TileSize];
}

TEST(CooperativeGroups, TilesOfSeveralWarpsWithBlockTileMemory)
{
    const unsigned int block = 256, tile = 128;
    std::vector<int> in(block);
    for (unsigned int i = 0; i < block; ++i) in[i] = (int)(i * 3 % 17);
    DeviceArray<int> d_in(in), sums(block / tile), exclusive(block), ordered(block);
    multi_warp_tiles<block, tile><<<1, block>>>(d_in.get(), sums.get(), exclusive.get(), ordered.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<int> s = sums.host(), ex = exclusive.host(), o = ordered.host();
    for (unsigned int t = 0; t < block / tile; ++t)
        EXPECT_EQ(std::accumulate(in.begin() + t * tile, in.begin() + (t + 1) * tile, 0), s[t]) << t;
    for (unsigned int i = 0; i < block; ++i) {
        unsigned int base = i / tile * tile;
        EXPECT_EQ(std::accumulate(in.begin() + base, in.begin() + i, 0), ex[i]) << i;
        EXPECT_EQ(in[base + (i - base + 40) % tile], o[i]) << i;
    }
}

__global__ void multi_warp_without_memory(int *out)
{
    auto tile = cg::tiled_partition<64>(cg::this_thread_block());
    out[threadIdx.x] = cg::reduce(tile, 1, cg::plus<int>());
}

TEST(CooperativeGroupsDeathTest, ATileOfSeveralWarpsWithoutBlockTileMemoryStopsWithWhatToDo)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    DeviceArray<int> out(128);
    EXPECT_DEATH(multi_warp_without_memory<<<1, 128>>>(out.get()),
                 "cooperative groups in kernel multi_warp_without_memory.*needs block_tile_memory");
}

// ---- The race detector: a tile's sync orders its lanes; shared memory read across tiles
// without a block barrier is still a race.
__global__ void tile_ordered(int *out)
{
    __shared__ int slot[64];
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
    slot[threadIdx.x] = (int)threadIdx.x;
    tile.sync();
    out[threadIdx.x] = slot[(threadIdx.x & ~15u) + (threadIdx.x + 1) % 16];
}
__global__ void tile_reads_another_tile(int *out)
{
    __shared__ int slot[64];
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
    slot[threadIdx.x] = (int)threadIdx.x;
    tile.sync();
    out[threadIdx.x] = slot[(threadIdx.x + 16) % 64];
}

TEST(CooperativeGroupsRacecheck, ATilesSyncOrdersOnlyItsOwnLanes)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    DeviceArray<int> out(64);
    EXPECT_EXIT(
        {
            setenv("EMU_RACECHECK", "1", 1);
            tile_ordered<<<1, 64>>>(out.get());
            cudaDeviceSynchronize();
            std::exit(0);
        },
        ::testing::ExitedWithCode(0), "^$");
    EXPECT_EXIT(
        {
            setenv("EMU_RACECHECK", "1", 1);
            tile_reads_another_tile<<<1, 64>>>(out.get());
            cudaDeviceSynchronize();
            std::exit(0);
        },
        ::testing::ExitedWithCode(LAB_EXIT_RACE), "data race on __shared__ slot");
}

// ---- 16-byte values through a tile's and a coalesced group's shuffles (the shfl_scan sample
// shuffles such types through cooperative groups).
struct Wide {
    double a;
    long long b;
};
__global__ void wide_shuffles(Wide *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    Wide mine{threadIdx.x * 1.5, (long long)threadIdx.x << 40};
    Wide down = warp.shfl_down(mine, 1);
    float4 f = warp.shfl(make_float4(threadIdx.x, 1, 2, 3), 5);
    out[threadIdx.x] = Wide{down.a + f.x, down.b};
}

TEST(CooperativeGroups, SixteenByteShuffles)
{
    DeviceArray<Wide> out(32);
    wide_shuffles<<<1, 32>>>(out.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<Wide> w = out.host();
    for (int t = 0; t < 32; ++t) {
        int source = t + 1 < 32 ? t + 1 : t;
        EXPECT_EQ(source * 1.5 + 5, w[t].a) << t;
        EXPECT_EQ((long long)source << 40, w[t].b) << t;
    }
}
