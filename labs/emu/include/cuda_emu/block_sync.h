// Barriers and warp-level functions. The runtime runs a block's threads as fibers on one CPU
// thread; each function below parks the calling fiber until every thread it waits for has
// arrived (threads that have returned from the kernel no longer count), then resumes it.
#pragma once

#include <cstring>
#include <type_traits>

#include "../device_launch_parameters.h"

namespace cudaemu {
// Runtime entry points (src/engine/device_entry_points.cpp). Outside a kernel they act for a lone thread.
void sync_threads();
struct BlockVote {
    int true_count;  // threads whose predicate was non-zero
    int arrivals;    // threads that took part in the barrier
};
BlockVote sync_threads_vote(int predicate);
// One warp-wide exchange: every taking-part lane deposits `value` and `predicate`, waits for
// the lanes named in `mask` (that have not exited), then reads the lanes' values.
struct WarpExchange {
    const unsigned long long *values;  // indexed by lane; valid until the warp's next exchange
    unsigned int ballot;               // lanes whose predicate was non-zero
    unsigned int arrived;              // lanes that took part
    unsigned int lane;                 // the caller's lane
};
WarpExchange warp_exchange(unsigned int mask, unsigned long long value, int predicate);
unsigned int live_lanes();

template <class T>
inline unsigned long long to_bits(T value)
{
    static_assert(sizeof(T) <= sizeof(unsigned long long) && std::is_trivially_copyable<T>::value,
                  "warp shuffles move 4- and 8-byte values (int, float, double, ...): split larger types");
    unsigned long long bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    return bits;
}
template <class T>
inline T from_bits(unsigned long long bits)
{
    T value;
    std::memcpy(&value, &bits, sizeof(T));
    return value;
}
// Cooperative groups' shuffles (tile.shfl and kin) take any trivially copyable type, as CUDA's
// do: a larger one moves 8 bytes at a time, each piece a shuffle of its own by every lane.
// `one` shuffles one unsigned long long.
template <class T, class Shuffle>
inline T shuffle_pieces(T var, Shuffle one)
{
    static_assert(std::is_trivially_copyable<T>::value, "cooperative groups shuffle trivially copyable types");
    if constexpr (sizeof(T) <= sizeof(unsigned long long)) {
        return one(var);
    } else {
        constexpr std::size_t pieces = (sizeof(T) + 7) / 8;
        unsigned long long bits[pieces] = {};
        std::memcpy(bits, &var, sizeof(T));
        for (std::size_t i = 0; i < pieces; ++i) bits[i] = one(bits[i]);
        T value;
        std::memcpy(&value, bits, sizeof(T));
        return value;
    }
}
}  // namespace cudaemu

inline void __syncthreads() { cudaemu::sync_threads(); }
inline int __syncthreads_count(int predicate) { return cudaemu::sync_threads_vote(predicate).true_count; }
inline int __syncthreads_and(int predicate)
{
    cudaemu::BlockVote vote = cudaemu::sync_threads_vote(predicate);
    return vote.true_count == vote.arrivals;
}
inline int __syncthreads_or(int predicate) { return cudaemu::sync_threads_vote(predicate).true_count != 0; }

inline void __syncwarp(unsigned int mask = 0xffffffffu) { cudaemu::warp_exchange(mask, 0, 0); }
inline unsigned int __activemask() { return cudaemu::live_lanes(); }

// Shuffles read another lane's value. `width` (a power of two up to 32) splits the warp into
// segments; a source outside the caller's segment yields the caller's own value, as in CUDA.
template <class T>
inline T __shfl_sync(unsigned int mask, T var, int src_lane, int width = warpSize)
{
    cudaemu::WarpExchange x = cudaemu::warp_exchange(mask, cudaemu::to_bits(var), 0);
    unsigned int segment = x.lane & ~(unsigned int)(width - 1);
    return cudaemu::from_bits<T>(x.values[segment + ((unsigned int)src_lane & (unsigned int)(width - 1))]);
}
template <class T>
inline T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize)
{
    cudaemu::WarpExchange x = cudaemu::warp_exchange(mask, cudaemu::to_bits(var), 0);
    unsigned int in_segment = x.lane & (unsigned int)(width - 1);
    return in_segment < delta ? var : cudaemu::from_bits<T>(x.values[x.lane - delta]);
}
template <class T>
inline T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize)
{
    cudaemu::WarpExchange x = cudaemu::warp_exchange(mask, cudaemu::to_bits(var), 0);
    unsigned int in_segment = x.lane & (unsigned int)(width - 1);
    return in_segment + delta >= (unsigned int)width ? var : cudaemu::from_bits<T>(x.values[x.lane + delta]);
}
template <class T>
inline T __shfl_xor_sync(unsigned int mask, T var, int lane_mask, int width = warpSize)
{
    cudaemu::WarpExchange x = cudaemu::warp_exchange(mask, cudaemu::to_bits(var), 0);
    unsigned int source = x.lane ^ (unsigned int)lane_mask;
    unsigned int segment_end = (x.lane & ~(unsigned int)(width - 1)) + (unsigned int)width;
    return source >= segment_end || source >= 32 ? var : cudaemu::from_bits<T>(x.values[source]);
}

inline unsigned int __ballot_sync(unsigned int mask, int predicate)
{
    return cudaemu::warp_exchange(mask, 0, predicate).ballot & mask;
}
inline int __any_sync(unsigned int mask, int predicate) { return __ballot_sync(mask, predicate) != 0; }
inline int __all_sync(unsigned int mask, int predicate)
{
    cudaemu::WarpExchange x = cudaemu::warp_exchange(mask, 0, predicate);
    unsigned int taking_part = x.arrived & mask;
    return (x.ballot & taking_part) == taking_part;
}
inline int __uni_sync(unsigned int mask, int predicate)
{
    cudaemu::WarpExchange x = cudaemu::warp_exchange(mask, 0, predicate);
    unsigned int taking_part = x.arrived & mask, ballot = x.ballot & taking_part;
    return ballot == 0 || ballot == taking_part;
}

// Lanes of `mask` holding the same value as the caller's.
template <class T>
inline unsigned int __match_any_sync(unsigned int mask, T value)
{
    cudaemu::WarpExchange x = cudaemu::warp_exchange(mask, cudaemu::to_bits(value), 0);
    unsigned int same = 0;
    for (unsigned int lane = 0; lane < 32; ++lane)
        if ((x.arrived & mask & (1u << lane)) && x.values[lane] == x.values[x.lane]) same |= 1u << lane;
    return same;
}
template <class T>
inline unsigned int __match_all_sync(unsigned int mask, T value, int *pred)
{
    unsigned int same = __match_any_sync(mask, value);
    *pred = same == (mask & cudaemu::live_lanes());
    return *pred ? same : 0;
}

// Warp reductions (sm_80) over the lanes of `mask`.
namespace cudaemu {
template <class T, class Op>
inline T warp_reduce(unsigned int mask, T value, Op op)
{
    WarpExchange x = warp_exchange(mask, to_bits(value), 0);
    bool first = true;
    T result = value;
    for (unsigned int lane = 0; lane < 32; ++lane) {
        if (!(x.arrived & mask & (1u << lane))) continue;
        T v = from_bits<T>(x.values[lane]);
        result = first ? v : op(result, v);
        first = false;
    }
    return result;
}
}  // namespace cudaemu
inline unsigned int __reduce_add_sync(unsigned int mask, unsigned int v) { return cudaemu::warp_reduce(mask, v, [](unsigned int a, unsigned int b) { return a + b; }); }
inline int __reduce_add_sync(unsigned int mask, int v) { return (int)__reduce_add_sync(mask, (unsigned int)v); }
inline unsigned int __reduce_min_sync(unsigned int mask, unsigned int v) { return cudaemu::warp_reduce(mask, v, [](unsigned int a, unsigned int b) { return a < b ? a : b; }); }
inline int __reduce_min_sync(unsigned int mask, int v) { return cudaemu::warp_reduce(mask, v, [](int a, int b) { return a < b ? a : b; }); }
inline unsigned int __reduce_max_sync(unsigned int mask, unsigned int v) { return cudaemu::warp_reduce(mask, v, [](unsigned int a, unsigned int b) { return a > b ? a : b; }); }
inline int __reduce_max_sync(unsigned int mask, int v) { return cudaemu::warp_reduce(mask, v, [](int a, int b) { return a > b ? a : b; }); }
inline unsigned int __reduce_and_sync(unsigned int mask, unsigned int v) { return cudaemu::warp_reduce(mask, v, [](unsigned int a, unsigned int b) { return a & b; }); }
inline unsigned int __reduce_or_sync(unsigned int mask, unsigned int v) { return cudaemu::warp_reduce(mask, v, [](unsigned int a, unsigned int b) { return a | b; }); }
inline unsigned int __reduce_xor_sync(unsigned int mask, unsigned int v) { return cudaemu::warp_reduce(mask, v, [](unsigned int a, unsigned int b) { return a ^ b; }); }
