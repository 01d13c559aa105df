// CUDA's asynchronous copies into shared memory (cp.async, sm_80 and later), as the CPU
// emulator (EMU=1) provides them: the primitives of CUDA's cuda_pipeline_primitives.h.
//
// On a GPU __pipeline_memcpy_async starts a copy from global to shared memory and returns at
// once; the copy lands some time before the __pipeline_wait_prior that covers its commit
// group. Here it copies at once: a completion the GPU may choose, so a kernel that is right on
// the GPU is right here. A kernel that reads the shared memory before waiting (and before a
// barrier, for other threads' copies) is wrong on a GPU and may still pass here: the race
// detector does not see these copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cudaemu {
// What a GPU refuses (the compiler, or a misaligned-address trap): stop here, where gdb sees it.
inline void check_async_copy(const void *dst, const void *src, size_t size, size_t zfill)
{
    bool size_ok = size == 4 || size == 8 || size == 16;
    bool aligned = size_ok && (reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) % size == 0;
    if (!size_ok || zfill > size || !aligned) {
        std::fprintf(stderr,
                     "cuda-emu: __pipeline_memcpy_async(%p, %p, %zu, %zu): the size must be 4, 8 or 16, zfill at "
                     "most the size, and both addresses aligned to the size\n",
                     dst, src, size, zfill);
        std::abort();
    }
}
}  // namespace cudaemu

// Copies size_and_align bytes (4, 8 or 16, both addresses aligned to it) from global to shared
// memory, the last zfill of them as zeros (those are not read).
inline void __pipeline_memcpy_async(void *__restrict__ dst_shared, const void *__restrict__ src_global,
                                    size_t size_and_align, size_t zfill = 0)
{
    cudaemu::check_async_copy(dst_shared, src_global, size_and_align, zfill);
    std::memcpy(dst_shared, src_global, size_and_align - zfill);
    std::memset(static_cast<char *>(dst_shared) + (size_and_align - zfill), 0, zfill);
}

// Ends the calling thread's current group of copies (nothing to do: they are complete).
inline void __pipeline_commit() {}

// Waits until at most `prior` of the calling thread's groups are pending: none ever is.
inline void __pipeline_wait_prior(size_t prior) { (void)prior; }
