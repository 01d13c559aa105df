// Cooperative groups under emulation: the thread block, warp tiles (tiled_partition<N>), and
// the grid of a cooperative launch (cudaLaunchCooperativeKernel), whose sync() waits for every
// thread of every block; the emulator keeps all of that grid's blocks resident at once.
#pragma once

#include "cuda_runtime.h"

namespace cudaemu {
void sync_grid();
bool in_cooperative_launch();
inline unsigned int linear_thread_in_block()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned long long linear_block_in_grid()
{
    return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
}
}  // namespace cudaemu

namespace cooperative_groups {

class thread_block {
public:
    void sync() const { __syncthreads(); }
    static void barrier_wait() { __syncthreads(); }
    unsigned int thread_rank() const { return cudaemu::linear_thread_in_block(); }
    unsigned int size() const { return blockDim.x * blockDim.y * blockDim.z; }
    unsigned int num_threads() const { return size(); }
    dim3 group_index() const { return dim3(blockIdx); }
    dim3 thread_index() const { return dim3(threadIdx); }
    dim3 group_dim() const { return blockDim; }
    dim3 dim_threads() const { return blockDim; }
};
inline thread_block this_thread_block() { return thread_block(); }

class grid_group {
public:
    // Waits for all threads of the grid; only valid in a kernel launched cooperatively.
    void sync() const { cudaemu::sync_grid(); }
    bool is_valid() const { return cudaemu::in_cooperative_launch(); }
    unsigned long long thread_rank() const
    {
        return cudaemu::linear_block_in_grid() * (blockDim.x * blockDim.y * blockDim.z) +
               cudaemu::linear_thread_in_block();
    }
    unsigned long long size() const
    {
        return (unsigned long long)gridDim.x * gridDim.y * gridDim.z * blockDim.x * blockDim.y * blockDim.z;
    }
    unsigned long long num_threads() const { return size(); }
    unsigned long long block_rank() const { return cudaemu::linear_block_in_grid(); }
    unsigned long long num_blocks() const { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
    dim3 group_dim() const { return gridDim; }
    dim3 dim_blocks() const { return gridDim; }
    dim3 block_index() const { return dim3(blockIdx); }
};
inline grid_group this_grid() { return grid_group(); }

// A tile of Size consecutive threads of the block (Size a power of two, at most 32).
template <unsigned int Size>
class thread_block_tile {
    static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                  "tiled_partition<N>: N must be a power of two from 1 to 32");

public:
    unsigned int thread_rank() const { return cudaemu::linear_thread_in_block() & (Size - 1); }
    static constexpr unsigned int size() { return Size; }
    static constexpr unsigned int num_threads() { return Size; }
    unsigned int meta_group_rank() const { return cudaemu::linear_thread_in_block() / Size; }
    unsigned int meta_group_size() const
    {
        return (blockDim.x * blockDim.y * blockDim.z + Size - 1) / Size;
    }
    // The tile's lanes within the caller's warp.
    unsigned int mask() const
    {
        unsigned int lane = cudaemu::linear_thread_in_block() % 32;
        unsigned int bits = Size == 32 ? 0xffffffffu : ((1u << Size) - 1);
        return Size == 32 ? bits : bits << (lane & ~(Size - 1));
    }
    void sync() const { __syncwarp(mask()); }
    // Any trivially copyable type, as in CUDA (cudaemu::shuffle_pieces splits one over 8 bytes).
    template <class T> T shfl(T var, int src_rank) const
    {
        return cudaemu::shuffle_pieces(var, [&](auto piece) { return __shfl_sync(mask(), piece, src_rank, Size); });
    }
    template <class T> T shfl_down(T var, unsigned int delta) const
    {
        return cudaemu::shuffle_pieces(var, [&](auto piece) { return __shfl_down_sync(mask(), piece, delta, Size); });
    }
    template <class T> T shfl_up(T var, unsigned int delta) const
    {
        return cudaemu::shuffle_pieces(var, [&](auto piece) { return __shfl_up_sync(mask(), piece, delta, Size); });
    }
    template <class T> T shfl_xor(T var, int lane_mask) const
    {
        return cudaemu::shuffle_pieces(var, [&](auto piece) { return __shfl_xor_sync(mask(), piece, lane_mask, Size); });
    }
    int any(int predicate) const { return __any_sync(mask(), predicate); }
    int all(int predicate) const { return __all_sync(mask(), predicate); }
    unsigned int ballot(int predicate) const
    {
        unsigned int lane = cudaemu::linear_thread_in_block() % 32;
        return (__ballot_sync(mask(), predicate) >> (Size == 32 ? 0 : (lane & ~(Size - 1)))) &
               (Size == 32 ? 0xffffffffu : (1u << Size) - 1);
    }
    template <class T> unsigned int match_any(T value) const
    {
        unsigned int lane = cudaemu::linear_thread_in_block() % 32;
        return __match_any_sync(mask(), value) >> (Size == 32 ? 0 : (lane & ~(Size - 1)));
    }
};

template <unsigned int Size, class Parent>
inline thread_block_tile<Size> tiled_partition(const Parent &)
{
    return thread_block_tile<Size>();
}

template <class Group>
inline void sync(const Group &group)
{
    group.sync();
}

template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return a < b ? a : b; } };
template <class T> struct greater { T operator()(T a, T b) const { return a > b ? a : b; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };

// reduce(tile, value, op): every thread of the tile gets op folded over the tile's values.
template <unsigned int Size, class T, class Op>
inline T reduce(const thread_block_tile<Size> &tile, T value, Op op)
{
    for (unsigned int offset = Size / 2; offset > 0; offset /= 2) value = op(value, tile.shfl_xor(value, (int)offset));
    return value;
}

}  // namespace cooperative_groups
