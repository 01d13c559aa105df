// Fibers: stacks the emulator switches between, one per CUDA thread that is waiting at a
// barrier. Switching is Boost.Context's fcontext (about 5 ns), or, where Boost.Context is not
// installed (emu.mk probes for it; CUDAEMU_FIBER_UCONTEXT=1), the C library's ucontext, whose
// swapcontext saves the signal mask with a system call (make emu-bench shows the cost). Under
// AddressSanitizer every switch is announced to it (__sanitizer_start/finish_switch_fiber) so
// that it follows the current stack.
#pragma once

#if CUDAEMU_FIBER_UCONTEXT
#include <ucontext.h>
#else
#include <boost/context/detail/fcontext.hpp>
#endif
#include <cstddef>

#include "engine/asan.h"

namespace cudaemu {

#if CUDAEMU_FIBER_UCONTEXT
void fiber_trampoline();
#else
void fiber_trampoline(boost::context::detail::transfer_t transfer);
#endif

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
#if CUDAEMU_FIBER_UCONTEXT
        const char *top = reinterpret_cast<const char *>(&ucontext_);
#else
        const char *top = static_cast<const char *>(context_);
#endif
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
#if CUDAEMU_FIBER_UCONTEXT
    friend void fiber_trampoline();
    static void arrive(void *fake_stack)
    {
#else
    friend void fiber_trampoline(boost::context::detail::transfer_t transfer);
    static void arrive(boost::context::detail::transfer_t transfer, void *fake_stack)
    {
        if (transfer.data) *static_cast<void **>(transfer.data) = transfer.fctx;
#endif
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

#if CUDAEMU_FIBER_UCONTEXT
    ucontext_t ucontext_;          // the saved context while suspended
#else
    void *context_ = nullptr;      // the saved fcontext while suspended
#endif
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
#if CUDAEMU_FIBER_UCONTEXT
    if (from_done)
        setcontext(&to->ucontext_);
    else
        swapcontext(&from->ucontext_, &to->ucontext_);
    arrive(from->asan_fake_stack_);
#else
    boost::context::detail::transfer_t transfer =
        boost::context::detail::jump_fcontext(to->context_, from_done ? nullptr : &from->context_);
    arrive(transfer, from->asan_fake_stack_);
#endif
}

}  // namespace cudaemu
