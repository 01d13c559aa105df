// AddressSanitizer hooks, compiled away when the runtime is built without -fsanitize=address.
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define CUDAEMU_ASAN 1
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#else
#define CUDAEMU_ASAN 0
#endif

namespace cudaemu {
inline void asan_poison(const void *address, std::size_t bytes)
{
#if CUDAEMU_ASAN
    __asan_poison_memory_region(address, bytes);
#else
    (void)address;
    (void)bytes;
#endif
}
inline void asan_unpoison(const void *address, std::size_t bytes)
{
#if CUDAEMU_ASAN
    __asan_unpoison_memory_region(address, bytes);
#else
    (void)address;
    (void)bytes;
#endif
}
}  // namespace cudaemu
