// Cooperative groups under emulation: the thread block, the grid of a cooperative launch
// (cudaLaunchCooperativeKernel, whose sync() waits for every thread of every block; the
// emulator keeps all of that grid's blocks resident at once), tiles (tiled_partition<N> and
// the run-time tiled_partition(group, n), tiles of more than 32 threads with
// block_tile_memory), coalesced groups (coalesced_threads, binary_partition,
// labeled_partition), the type-erased thread_group, and reduce / inclusive_scan /
// exclusive_scan. Groups of at most a warp are built on the warp functions of block_sync.h,
// so the race detector sees their shuffles and syncs as warp-wide syncs.
#pragma once

#include <cstring>
#include <type_traits>

#include "cuda_runtime.h"

namespace cudaemu {
void sync_grid();
bool in_cooperative_launch();
// The lanes of the caller's warp in its coalesced group (BlockRunner::converge says how the
// group is formed).
unsigned int converge_lanes(const char *file, int line);
void sync_thread_range(unsigned int first, unsigned int count);
[[noreturn]] void cg_misuse(const char *what);
inline unsigned int linear_thread_in_block()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned long long linear_block_in_grid()
{
    return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
}
inline unsigned int lane_id() { return linear_thread_in_block() % 32; }
// The lane of `mask` whose rank (among the mask's lanes, in lane order) is `rank`.
inline unsigned int lane_of_rank(unsigned int mask, unsigned int rank)
{
    for (unsigned int lane = 0; lane < 32; ++lane)
        if ((mask >> lane) & 1u) {
            if (rank == 0) return lane;
            --rank;
        }
    return 32;
}
// `lanes` (bits by lane) as bits by rank within `mask`.
inline unsigned int compact_lanes(unsigned int mask, unsigned int lanes)
{
    unsigned int out = 0, rank = 0;
    for (unsigned int lane = 0; lane < 32; ++lane)
        if ((mask >> lane) & 1u) {
            if ((lanes >> lane) & 1u) out |= 1u << rank;
            ++rank;
        }
    return out;
}
}  // namespace cudaemu

namespace cooperative_groups {

namespace details {
enum class group_kind : unsigned char { block, grid, warp_tile, multi_warp_tile, coalesced };
}

// What every group is at run time. The named groups derive from it, so any of them passes as
// a thread_group (sync(), thread_rank(), size()); the run-time tiled_partition returns one.
class thread_group {
public:
    void sync() const
    {
        switch (kind_) {
        case details::group_kind::block: __syncthreads(); break;
        case details::group_kind::grid: cudaemu::sync_grid(); break;
        case details::group_kind::multi_warp_tile: cudaemu::sync_thread_range(first_, size_); break;
        default: __syncwarp(mask_); break;
        }
    }
    unsigned long long thread_rank() const
    {
        if (kind_ == details::group_kind::grid)
            return cudaemu::linear_block_in_grid() * (blockDim.x * blockDim.y * blockDim.z) +
                   cudaemu::linear_thread_in_block();
        return rank_;
    }
    unsigned long long size() const
    {
        if (kind_ == details::group_kind::grid)
            return (unsigned long long)gridDim.x * gridDim.y * gridDim.z * blockDim.x * blockDim.y * blockDim.z;
        return size_;
    }
    unsigned long long num_threads() const { return size(); }
    bool is_valid() const { return true; }
    unsigned int get_type() const { return (unsigned int)kind_; }

protected:
    thread_group(details::group_kind kind, unsigned int mask, unsigned int rank, unsigned int size,
                 unsigned int first, unsigned int meta_rank, unsigned int meta_size)
        : kind_(kind), mask_(mask), rank_(rank), size_(size), first_(first), meta_rank_(meta_rank),
          meta_size_(meta_size)
    {
    }
    friend thread_group tiled_partition(const thread_group &parent, unsigned int tile_size);
    friend class coalesced_group;

    details::group_kind kind_;
    unsigned int mask_;       // warp tiles and coalesced groups: their lanes in the caller's warp
    unsigned int rank_, size_;
    unsigned int first_;      // multi-warp tiles: the linear thread index of rank 0
    unsigned int meta_rank_, meta_size_;
    void *scratch_ = nullptr; // block_tile_memory, for multi-warp tiles' reduce
};

// Shared memory for tiles of more than 32 threads (declare it __shared__ and pass it to
// this_thread_block). Here it holds one 8-byte slot per thread for reduce and the scans.
template <unsigned int MaxBlockSize = 1024>
struct block_tile_memory {
    unsigned long long slots[MaxBlockSize];
};

class thread_block : public thread_group {
public:
    thread_block()
        : thread_group(details::group_kind::block, 0, cudaemu::linear_thread_in_block(),
                       blockDim.x * blockDim.y * blockDim.z, 0, 0, 1)
    {
    }
    template <unsigned int N>
    explicit thread_block(block_tile_memory<N> &scratch) : thread_block()
    {
        if (size_ > N) cudaemu::cg_misuse("this_thread_block(scratch): the block_tile_memory is for fewer threads than the block has; make its size at least the block's");
        scratch_ = &scratch;
    }
    void sync() const { __syncthreads(); }
    static void barrier_wait() { __syncthreads(); }
    unsigned int thread_rank() const { return rank_; }
    unsigned int size() const { return size_; }
    unsigned int num_threads() const { return size_; }
    dim3 group_index() const { return dim3(blockIdx); }
    dim3 thread_index() const { return dim3(threadIdx); }
    dim3 group_dim() const { return blockDim; }
    dim3 dim_threads() const { return blockDim; }
    void *tile_scratch() const { return scratch_; }
};
inline thread_block this_thread_block() { return thread_block(); }
template <unsigned int N>
inline thread_block this_thread_block(block_tile_memory<N> &scratch)
{
    return thread_block(scratch);
}

class grid_group : public thread_group {
public:
    grid_group() : thread_group(details::group_kind::grid, 0, 0, 0, 0, 0, 1) {}
    // Waits for all threads of the grid; only valid in a kernel launched cooperatively.
    void sync() const { cudaemu::sync_grid(); }
    bool is_valid() const { return cudaemu::in_cooperative_launch(); }
    unsigned long long block_rank() const { return cudaemu::linear_block_in_grid(); }
    unsigned long long num_blocks() const { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
    dim3 group_dim() const { return gridDim; }
    dim3 dim_blocks() const { return gridDim; }
    dim3 block_index() const { return dim3(blockIdx); }
};
inline grid_group this_grid() { return grid_group(); }

// A group of lanes of one warp (a warp tile or a coalesced group): ranks in lane order.
class warp_group_base : public thread_group {
public:
    unsigned int thread_rank() const { return rank_; }
    unsigned int size() const { return size_; }
    unsigned int num_threads() const { return size_; }
    unsigned int meta_group_rank() const { return meta_rank_; }
    unsigned int meta_group_size() const { return meta_size_; }
    void sync() const { __syncwarp(mask_); }
    // The group's lanes in the caller's warp.
    unsigned int mask() const { return mask_; }

    // Shuffles by rank; any trivially copyable type (16-byte ones too, as in CUDA).
    template <class T>
    T shfl(T var, unsigned int src_rank) const
    {
        return from_rank(var, src_rank % size_);
    }
    template <class T>
    T shfl_down(T var, unsigned int delta) const
    {
        T got = from_rank(var, rank_ + delta < size_ ? rank_ + delta : rank_);
        return rank_ + delta < size_ ? got : var;
    }
    template <class T>
    T shfl_up(T var, unsigned int delta) const
    {
        T got = from_rank(var, rank_ >= delta ? rank_ - delta : rank_);
        return rank_ >= delta ? got : var;
    }
    template <class T>
    T shfl_xor(T var, unsigned int lane_mask) const
    {
        unsigned int source = rank_ ^ lane_mask;
        T got = from_rank(var, source < size_ ? source : rank_);
        return source < size_ ? got : var;
    }
    int any(int predicate) const { return __any_sync(mask_, predicate); }
    int all(int predicate) const { return __all_sync(mask_, predicate); }
    // Bit r is the predicate of the thread of rank r.
    unsigned int ballot(int predicate) const { return cudaemu::compact_lanes(mask_, __ballot_sync(mask_, predicate)); }
    template <class T>
    unsigned int match_any(T value) const
    {
        return cudaemu::compact_lanes(mask_, __match_any_sync(mask_, value));
    }
    template <class T>
    unsigned int match_all(T value, int &pred) const
    {
        return cudaemu::compact_lanes(mask_, __match_all_sync(mask_, value, &pred));
    }

protected:
    template <class T>
    T from_rank(T var, unsigned int rank) const
    {
        // A tile's lanes are consecutive: rank r is r lanes above the lowest.
        unsigned int low = (unsigned int)__builtin_ctz(mask_), run = mask_ >> low;
        int lane = (run & (run + 1)) == 0 ? (int)(low + rank) : (int)cudaemu::lane_of_rank(mask_, rank);
        return cudaemu::shuffle_pieces(var, [&](auto piece) { return __shfl_sync(mask_, piece, lane); });
    }
    warp_group_base(details::group_kind kind, unsigned int mask, unsigned int meta_rank, unsigned int meta_size)
        : thread_group(kind, mask, (unsigned int)__builtin_popcount(mask & ((1u << cudaemu::lane_id()) - 1u)),
                       (unsigned int)__builtin_popcount(mask), 0, meta_rank, meta_size)
    {
    }
    friend thread_group tiled_partition(const thread_group &parent, unsigned int tile_size);
};

class coalesced_group : public warp_group_base {
public:
    explicit coalesced_group(unsigned int mask, unsigned int meta_rank = 0, unsigned int meta_size = 1)
        : warp_group_base(details::group_kind::coalesced, mask, meta_rank, meta_size)
    {
    }
    // A warp-sized run-time tile (tiled_partition(group, n) with n <= 32) as the group it is.
    static coalesced_group of(const thread_group &tile)
    {
        return coalesced_group(tile.mask_, tile.meta_rank_, tile.meta_size_);
    }
};

// The lanes of the caller's warp that are active here together (see BlockRunner::converge for
// how the emulator decides). Its position names the call site.
inline coalesced_group coalesced_threads(const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    return coalesced_group(cudaemu::converge_lanes(file, line));
}

namespace details {
template <unsigned int Size, bool Multi = (Size > 32)>
class tile_base;

// Size consecutive threads of the block (Size a power of two up to 32).
template <unsigned int Size>
class tile_base<Size, false> : public warp_group_base {
    static_assert(Size >= 1 && (Size & (Size - 1)) == 0, "tiled_partition<N>: N must be a power of two");

public:
    tile_base(unsigned int meta_rank, unsigned int meta_size)
        : warp_group_base(details::group_kind::warp_tile, lanes(), meta_rank, meta_size)
    {
    }
    tile_base()
        : tile_base(cudaemu::linear_thread_in_block() / Size,
                    (blockDim.x * blockDim.y * blockDim.z + Size - 1) / Size)
    {
    }
    static constexpr unsigned int size() { return Size; }
    static constexpr unsigned int num_threads() { return Size; }
    unsigned int thread_rank() const { return cudaemu::linear_thread_in_block() & (Size - 1); }

private:
    static unsigned int lanes()
    {
        unsigned int bits = Size == 32 ? 0xffffffffu : ((1u << Size) - 1);
        return Size == 32 ? bits : bits << (cudaemu::lane_id() & ~(Size - 1));
    }
};

// A tile of whole warps (tiled_partition<N> of a block made with block_tile_memory).
template <unsigned int Size>
class tile_base<Size, true> : public thread_group {
    static_assert((Size & (Size - 1)) == 0 && Size <= 1024, "tiled_partition<N>: N must be a power of two up to 1024");

public:
    explicit tile_base(void *scratch)
        : thread_group(details::group_kind::multi_warp_tile, 0xffffffffu, cudaemu::linear_thread_in_block() % Size,
                       Size, cudaemu::linear_thread_in_block() / Size * Size,
                       cudaemu::linear_thread_in_block() / Size,
                       (blockDim.x * blockDim.y * blockDim.z + Size - 1) / Size)
    {
        scratch_ = scratch;
    }
    tile_base() : tile_base(nullptr) {}
    static constexpr unsigned int size() { return Size; }
    static constexpr unsigned int num_threads() { return Size; }
    unsigned int thread_rank() const { return rank_; }
    unsigned int meta_group_rank() const { return meta_rank_; }
    unsigned int meta_group_size() const { return meta_size_; }
    void sync() const { cudaemu::sync_thread_range(first_, Size); }
    // Every thread's value, by rank, in the block_tile_memory (for reduce and the scans).
    template <class T>
    const unsigned long long *exchange(T value) const
    {
        if (!scratch_)
            cudaemu::cg_misuse("a tile of more than 32 threads needs block_tile_memory: declare "
                               "`__shared__ cg::block_tile_memory<BLOCK_SIZE> scratch;` and partition "
                               "cg::this_thread_block(scratch)");
        unsigned long long *slots = static_cast<unsigned long long *>(scratch_) + first_;
        sync();  // the previous exchange's readers are done with the slots
        slots[rank_] = cudaemu::to_bits(value);
        sync();
        return slots;
    }
};
}  // namespace details

template <unsigned int Size, class Parent = void>
class thread_block_tile;

template <unsigned int Size>
class thread_block_tile<Size, void> : public details::tile_base<Size> {
public:
    using details::tile_base<Size>::tile_base;
};

// tiled_partition<N>(parent)'s type, convertible to thread_block_tile<N>.
template <unsigned int Size, class Parent>
class thread_block_tile : public thread_block_tile<Size, void> {
public:
    using thread_block_tile<Size, void>::thread_block_tile;
};

template <unsigned int Size, class Parent>
inline thread_block_tile<Size, Parent> tiled_partition(const Parent &parent)
{
    if constexpr (Size > 32) {
        static_assert(std::is_base_of<thread_block, Parent>::value,
                      "tiled_partition<N> with N > 32 partitions a thread_block");
        return thread_block_tile<Size, Parent>(parent.tile_scratch());
    } else if constexpr (std::is_base_of<thread_block, Parent>::value) {
        return thread_block_tile<Size, Parent>();
    } else {
        // A tile of a tile: ranks and meta ranks within the parent.
        static_assert(Parent::size() % Size == 0, "tiled_partition<N>(tile): N must divide the tile's size");
        return thread_block_tile<Size, Parent>(parent.thread_rank() / Size, Parent::size() / Size);
    }
}

// The run-time form: a tile of `tile_size` threads (a power of two) of a block, of a tile,
// or of a coalesced group (consecutive ranks), as a thread_group.
inline thread_group tiled_partition(const thread_group &parent, unsigned int tile_size)
{
    if (tile_size == 0 || (tile_size & (tile_size - 1)) != 0)
        cudaemu::cg_misuse("tiled_partition(group, n): n must be a power of two");
    unsigned int rank = (unsigned int)parent.thread_rank(), parent_size = (unsigned int)parent.size();
    if (parent.kind_ == details::group_kind::grid || parent.kind_ == details::group_kind::multi_warp_tile)
        cudaemu::cg_misuse("tiled_partition(group, n) partitions a thread block, a tile of at most 32 threads or a "
                           "coalesced group");
    if (tile_size > parent_size) tile_size = parent_size;
    unsigned int meta_rank = rank / tile_size, meta_size = (parent_size + tile_size - 1) / tile_size;
    if (parent.kind_ == details::group_kind::block && tile_size > 32) {
        thread_group tile(details::group_kind::multi_warp_tile, 0xffffffffu, rank % tile_size, tile_size,
                          meta_rank * tile_size, meta_rank, meta_size);
        tile.scratch_ = parent.scratch_;
        return tile;
    }
    if (tile_size > 32) cudaemu::cg_misuse("tiled_partition(group, n): n > 32 needs the group to be a thread block");
    unsigned int mask;
    if (parent.kind_ == details::group_kind::block) {
        unsigned int bits = tile_size == 32 ? 0xffffffffu : ((1u << tile_size) - 1);
        mask = tile_size == 32 ? bits : bits << (cudaemu::lane_id() & ~(tile_size - 1));
    } else {
        // Ranks meta_rank * tile_size .. + tile_size - 1 of the parent's lanes.
        mask = 0;
        for (unsigned int r = meta_rank * tile_size; r < (meta_rank + 1) * tile_size && r < parent_size; ++r)
            mask |= 1u << cudaemu::lane_of_rank(parent.mask_, r);
    }
    return coalesced_group(mask, meta_rank, meta_size);
}

inline coalesced_group tiled_partition(const coalesced_group &parent, unsigned int tile_size)
{
    return coalesced_group::of(tiled_partition(static_cast<const thread_group &>(parent), tile_size));
}

// The lanes of `parent` whose predicate is the caller's.
template <class Group>
inline coalesced_group binary_partition(const Group &parent, bool predicate)
{
    unsigned int mask = parent.mask(), ones = __ballot_sync(mask, predicate);
    return coalesced_group(predicate ? ones : mask & ~ones);
}

// The lanes of `parent` whose label is the caller's.
template <class Group, class Label>
inline coalesced_group labeled_partition(const Group &parent, Label label)
{
    return coalesced_group(__match_any_sync(parent.mask(), label));
}

template <class Group>
inline void sync(const Group &group)
{
    group.sync();
}
template <class Group>
inline unsigned long long thread_rank(const Group &group)
{
    return group.thread_rank();
}
template <class Group>
inline unsigned long long group_size(const Group &group)
{
    return group.size();
}

template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return a < b ? a : b; } };
template <class T> struct greater { T operator()(T a, T b) const { return a > b ? a : b; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };

namespace details {
// Every member's value by rank (warp groups: one exchange; multi-warp tiles: the scratch).
template <class Group, class T, class Use>
inline auto with_values(const Group &group, T value, Use use)
{
    if constexpr (std::is_base_of<warp_group_base, Group>::value) {
        cudaemu::WarpExchange x = cudaemu::warp_exchange(group.mask(), cudaemu::to_bits(value), 0);
        unsigned long long by_rank[32];
        unsigned int n = 0;
        for (unsigned int lane = 0; lane < 32; ++lane)
            if ((group.mask() >> lane) & 1u) by_rank[n++] = x.values[lane];
        return use(by_rank, group.size(), group.thread_rank());
    } else {
        const unsigned long long *slots = group.exchange(value);
        auto result = use(slots, group.size(), group.thread_rank());
        return result;
    }
}
}  // namespace details

// reduce(group, value, op): every thread of the group gets op folded over the group's values
// in rank order.
template <class Group, class T, class Op>
inline T reduce(const Group &group, T value, Op op)
{
    return details::with_values(group, value, [&](const unsigned long long *values, unsigned int n, unsigned int) {
        T result = cudaemu::from_bits<T>(values[0]);
        for (unsigned int r = 1; r < n; ++r) result = op(result, cudaemu::from_bits<T>(values[r]));
        return result;
    });
}

// inclusive_scan: op over ranks 0..mine; exclusive_scan: over ranks 0..mine-1 (rank 0 gets T()).
template <class Group, class T, class Op = plus<T>>
inline T inclusive_scan(const Group &group, T value, Op op = Op())
{
    return details::with_values(group, value, [&](const unsigned long long *values, unsigned int, unsigned int rank) {
        T result = cudaemu::from_bits<T>(values[0]);
        for (unsigned int r = 1; r <= rank; ++r) result = op(result, cudaemu::from_bits<T>(values[r]));
        return result;
    });
}
template <class Group, class T, class Op = plus<T>>
inline T exclusive_scan(const Group &group, T value, Op op = Op())
{
    return details::with_values(group, value, [&](const unsigned long long *values, unsigned int, unsigned int rank) {
        if (rank == 0) return T();
        T result = cudaemu::from_bits<T>(values[0]);
        for (unsigned int r = 1; r < rank; ++r) result = op(result, cudaemu::from_bits<T>(values[r]));
        return result;
    });
}

}  // namespace cooperative_groups
