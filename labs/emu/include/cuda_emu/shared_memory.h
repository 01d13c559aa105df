// Shared memory. Each CPU thread of the emulator owns one arena that the block it runs uses:
// dynamic shared memory (extern __shared__) at its start, then the block's static __shared__
// variables, placed when a thread of the block first reaches their declaration. Under
// AddressSanitizer the bytes between and after them are poisoned, so overruns are reported.
#pragma once

#include <cstddef>

namespace cudaemu {
void *dynamic_shared_memory();
int new_shared_variable_id();
// The running block's copy of variable `id` (allocated on its first use in the block).
// `natural_align` is the type's own alignment, which CUDA's size accounting uses.
void *shared_variable(int id, std::size_t size, std::size_t natural_align, std::size_t align);

// What the rewriter turns `__shared__ T name[N];` into: `auto &name = static_shared<T[N]>([]{});`.
// The lambda's type is unique to the declaration (and to each instantiation of an enclosing
// template), which makes `id` unique to it too.
template <class T, std::size_t Align = 0, class Declaration>
inline T &static_shared(Declaration)
{
    static const int id = new_shared_variable_id();
    constexpr std::size_t align = Align > alignof(T) ? Align : (alignof(T) > 16 ? alignof(T) : 16);
    return *static_cast<T *>(shared_variable(id, sizeof(T), alignof(T), align));
}
}  // namespace cudaemu
