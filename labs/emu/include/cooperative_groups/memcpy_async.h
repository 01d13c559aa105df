// Cooperative groups' memcpy_async and wait (<cooperative_groups/memcpy_async.h>) under the CPU
// emulator (EMU=1).
//
// cg::memcpy_async(group, dst, src, size) is a collective copy: every thread of the group calls
// it with the same arguments and the group's threads share the work ([NVIDIA CUDA Programming
// Guide n.d.], "memcpy_async"); cg::wait(group) waits for the group's copies and syncs the group,
// cg::wait_prior<N>(group) for all but its N most recent (here all: none is pending). Each thread
// makes its share at the call (the words of the copy whose index modulo the group's size is
// its rank), a completion a GPU may choose; the race detector sees each share as that thread's
// stores, so a read of another thread's share needs the group's sync in wait(), as on a GPU.
#pragma once

#include <cstddef>

#include "../cooperative_groups.h"
#include "../cuda_emu/async_copy.h"

namespace cooperative_groups {

namespace details {
template <class Group>
inline void copy_share(const Group &group, void *destination, const void *source, std::size_t size,
                       std::size_t alignment, const char *file, int line)
{
    cudaemu::check_copy_alignment("cg::memcpy_async", destination, source, size, alignment);
    // Pieces of the promised alignment (at most 16 bytes, a cp.async's largest), dealt to the
    // ranks in turn.
    std::size_t piece = alignment < 4 ? 4 : (alignment > 16 ? 16 : alignment);
    if (size % piece != 0 || (reinterpret_cast<std::uintptr_t>(destination) | reinterpret_cast<std::uintptr_t>(source)) % piece != 0)
        piece = 1;
    std::size_t ranks = (std::size_t)group.size(), rank = (std::size_t)group.thread_rank();
    char *to = static_cast<char *>(destination);
    const char *from = static_cast<const char *>(source);
    for (std::size_t at = rank * piece; at < size; at += ranks * piece)
        cudaemu::deliver_copy(cudaemu::PendingCopy{to + at, from + at, piece, file, line, "cg::memcpy_async"});
}
}  // namespace details

template <class Group, class Shape>
inline void memcpy_async(const Group &group, void *destination, const void *source, Shape shape,
                         const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    details::copy_share(group, destination, source, cudaemu::shape_bytes(shape), cudaemu::shape_alignment(shape),
                        file, line);
}

template <class Group, class T, class Shape>
inline void memcpy_async(const Group &group, T *destination, const T *source, Shape shape,
                         const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    details::copy_share(group, destination, source, cudaemu::shape_bytes(shape), cudaemu::shape_alignment(shape),
                        file, line);
}

// The element-count form: copies src_count elements of T into a destination of dst_count,
// which must hold them.
template <class Group, class T>
inline void memcpy_async(const Group &group, T *destination, std::size_t dst_count, const T *source,
                         std::size_t src_count, const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    if (src_count > dst_count)
        cudaemu::cg_misuse("memcpy_async(group, dst, dst_count, src, src_count): src_count is larger than dst_count");
    details::copy_share(group, destination, source, src_count * sizeof(T), alignof(T), file, line);
}

template <class Group>
inline void wait(const Group &group)
{
    group.sync();
}

template <unsigned int NumStages, class Group>
inline void wait_prior(const Group &group)
{
    group.sync();
}

}  // namespace cooperative_groups
