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

// True when `address` is in a live frame of the running fiber's ASan fake stack. With
// detect_stack_use_after_return on (the default of GCC 13's libasan, off in GCC 12's), a
// function's address-taken locals live there instead of on the fiber's stack, and the frames are
// handed to the next CUDA thread the fiber runs: the race detector must not take them for
// global memory.
inline bool asan_in_fake_stack(const void *address)
{
#if CUDAEMU_ASAN
    void *fake_stack = __asan_get_current_fake_stack();
    return fake_stack && __asan_addr_is_in_fake_stack(fake_stack, const_cast<void *>(address), nullptr, nullptr);
#else
    (void)address;
    return false;
#endif
}
}  // namespace cudaemu
