// What libcu++'s asynchronous copies (<cuda/pipeline>, <cuda/barrier>) and cooperative groups'
// memcpy_async share under the CPU emulator (EMU=1): the scopes, aligned_size_t, one copy's
// checks, and the delivery of a copy's bytes, shown to the race detector and the profile.
//
// On a GPU such a copy (cp.async, sm_80 and later) starts at the call and lands by the wait
// that covers it. A copy delivered here is shown to the checkers as what it is on the
// hardware: a read of its source (global memory, for the profile) and a store of its
// destination (shared memory: the race detector sees it, so a thread that reads another
// thread's copy with no barrier after the wait is reported).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "memory_access.h"

namespace cudaemu {
// The other threads of the running block run first; false when none can (outside a kernel,
// or the caller is the block's only thread that can go on). src/engine/device_entry_points.cpp.
bool let_other_threads_run();
// The running block's threads that have not returned (1 outside a kernel).
unsigned int live_threads_of_block();
// Every shared-memory access of the block so far is ordered before every later one, for the
// race detector (a cuda::barrier phase completing).
void order_block_accesses();

[[noreturn]] inline void async_copy_misuse(const char *call, const void *dst, const void *src, std::size_t size,
                                           std::size_t alignment)
{
    std::fprintf(stderr,
                 "cuda-emu: %s(%p, %p, %zu bytes): with aligned_size_t<%zu> both addresses and the size must be "
                 "multiples of %zu (a GPU traps on a misaligned address); align the buffers or pass a plain size_t\n",
                 call, dst, src, size, alignment, alignment);
    std::abort();
}

inline void check_copy_alignment(const char *call, const void *dst, const void *src, std::size_t size,
                                 std::size_t alignment)
{
    if (alignment > 1 && ((reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src) | size) %
                          alignment) != 0)
        async_copy_misuse(call, dst, src, size, alignment);
}

// One copy, made at the call and delivered (its bytes copied) at the wait that covers it, or
// at once where the emulator completes it at the call. The call's file, line and name make its
// site for the checkers, looked up only when one is on.
struct PendingCopy {
    void *dst;
    const void *src;
    std::size_t size;
    const char *file;
    int line;
    const char *call;
};

// Copies the bytes and shows them to the checkers in 4-byte words (a shared-memory bank's
// width; the race detector compares an access's first byte), in bytes where a copy is not
// made of whole words.
inline void deliver_copy(const PendingCopy &copy)
{
    std::memcpy(copy.dst, copy.src, copy.size);
    if (__builtin_expect(!access_hooks_on, 1)) return;
    const AccessSite *site = call_site(copy.file, copy.line, copy.call);
    const char *from = static_cast<const char *>(copy.src);
    char *to = static_cast<char *>(copy.dst);
    std::size_t step = ((reinterpret_cast<std::uintptr_t>(copy.dst) | copy.size) % 4) == 0 ? 4 : 1;
    for (std::size_t at = 0; at < copy.size; at += step) {
        observe_global_access(from + at, step, Access::Read, site);
        observe_shared_access(to + at, step, Access::Write, site);
    }
}
}  // namespace cudaemu

namespace cuda {
// libcu++'s scopes: which threads an object synchronizes.
enum thread_scope {
    thread_scope_system = 0,
    thread_scope_device = 1,
    thread_scope_block = 2,
    thread_scope_thread = 3,
};

// A size that promises both addresses and the size itself are multiples of Alignment.
template <std::size_t Alignment>
struct aligned_size_t {
    static_assert(Alignment > 0 && (Alignment & (Alignment - 1)) == 0, "cuda::aligned_size_t: a power of two");
    static constexpr std::size_t align = Alignment;
    std::size_t value;
    explicit constexpr aligned_size_t(std::size_t size) : value(size) {}
    constexpr operator std::size_t() const { return value; }
};
}  // namespace cuda

namespace cudaemu {
// The size and promised alignment of a copy's shape: a size_t, or an aligned_size_t.
inline std::size_t shape_bytes(std::size_t size) { return size; }
template <std::size_t A>
inline std::size_t shape_bytes(cuda::aligned_size_t<A> size) { return size.value; }
inline constexpr std::size_t shape_alignment(std::size_t) { return 1; }
template <std::size_t A>
inline constexpr std::size_t shape_alignment(cuda::aligned_size_t<A>) { return A; }
}  // namespace cudaemu
