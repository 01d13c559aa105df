// Fibers: stacks the emulator switches between, one per CUDA thread that is waiting at a
// barrier. Switching is Boost.Context's fcontext (about 5 ns; ucontext's swapcontext makes a
// system call and costs about 200 ns). Under AddressSanitizer every switch is announced to it
// (__sanitizer_start/finish_switch_fiber) so that it follows the current stack.
#pragma once

#include <boost/context/detail/fcontext.hpp>
#include <cstddef>

#include "engine/asan.h"

namespace cudaemu {

void fiber_trampoline(boost::context::detail::transfer_t transfer);

class Fiber {
public:
    Fiber() = default;  // the CPU thread's own stack
    explicit Fiber(std::size_t stack_bytes, std::size_t color_offset);
    ~Fiber();
    Fiber(const Fiber &) = delete;
    Fiber &operator=(const Fiber &) = delete;

    // Prepares the fiber to run `entry` from the top of its stack on the next switch to it.
    void reset(void (*entry)());
    // True when a fault at `address` with the stack pointer at `stack_pointer` means this
    // fiber's stack overflowed: the address is in its guard page, or the pointer below it.
    bool overflowed(const void *address, const void *stack_pointer) const;
    const char *stack_low() const { return usable_low_; }
    // Asks the cache for the top of the stack as the fiber left it (a switch to it reads it).
    void prefetch() const
    {
        const char *top = static_cast<const char *>(context_);
        __builtin_prefetch(top);
        __builtin_prefetch(top + 64);
        __builtin_prefetch(top + 128);
        __builtin_prefetch(top + 192);
    }
    std::size_t stack_bytes() const { return usable_bytes_; }

    // Suspends `from` (the running fiber) and resumes `to`. With `from_done`, `from` is never
    // resumed again from here (it may be reset()). Inline: it sits on every barrier's path.
    static inline void switch_to(Fiber *from, Fiber *to, bool from_done) __attribute__((always_inline));

private:
    friend void fiber_trampoline(boost::context::detail::transfer_t transfer);
    static void arrive(boost::context::detail::transfer_t transfer, void *fake_stack)
    {
        if (transfer.data) *static_cast<void **>(transfer.data) = transfer.fctx;
#if CUDAEMU_ASAN
        __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#else
        (void)fake_stack;
#endif
    }
#if CUDAEMU_ASAN
    static void native_stack(const void **low, std::size_t *bytes);
#endif
    static thread_local void (*starting_entry_)();

    void *context_ = nullptr;      // the saved fcontext while suspended
    char *mapping_ = nullptr;      // guard page + stack, from mmap
    std::size_t mapping_bytes_ = 0;
    char *usable_low_ = nullptr;
    std::size_t usable_bytes_ = 0;
    void *asan_fake_stack_ = nullptr;
    void (*entry_)() = nullptr;
};

inline void Fiber::switch_to(Fiber *from, Fiber *to, bool from_done)
{
#if CUDAEMU_ASAN
    const void *low = to->usable_low_;
    std::size_t bytes = to->usable_bytes_;
    if (!to->mapping_) native_stack(&low, &bytes);
    __sanitizer_start_switch_fiber(from_done ? nullptr : &from->asan_fake_stack_, low, bytes);
#endif
    starting_entry_ = to->entry_;  // read by the trampoline when `to` starts fresh
    boost::context::detail::transfer_t transfer =
        boost::context::detail::jump_fcontext(to->context_, from_done ? nullptr : &from->context_);
    arrive(transfer, from->asan_fake_stack_);
}

}  // namespace cudaemu
