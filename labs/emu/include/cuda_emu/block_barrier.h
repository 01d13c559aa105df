// libcu++'s cuda::barrier (<cuda/barrier>) under the CPU emulator (EMU=1): a split barrier of
// a block's threads, usually in shared memory (`__shared__ cuda::barrier<cuda::thread_scope_block>
// bar;` made ready by one thread with `init(&bar, count)`, as on a GPU, where a __shared__
// object is never constructed).
//
// What it does ([NVIDIA CUDA Programming Guide n.d.], "Asynchronous Barrier"): each phase
// expects `count` arrivals; arrive() counts one and returns a token of the phase; wait(token)
// returns once that phase has completed; the last arrival runs the completion function and
// starts the next phase; arrive_and_drop() also lowers the count of later phases. A block's
// threads run on one CPU thread here, so a waiting thread lets the others run until the phase
// completes (and stops with a message if none of them can: a GPU would hang). A completed
// phase orders, for the race detector, every shared-memory access before it before every one
// after it (it may hide a race, never report a false one). A copy bound to the barrier,
// cuda::memcpy_async(dst, src, size, bar), is made at the call, a completion a GPU may choose.
//
// Not emulated: barriers of thread_scope_device or _system (threads of several blocks), the
// transaction counts of sm_90 (barrier_arrive_tx), waits with a time limit.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include "async_copy.h"

namespace cudaemu {
struct no_completion {
    void operator()() const {}
};

[[noreturn]] inline void barrier_never_completes(std::ptrdiff_t missing, std::ptrdiff_t expected, const char *why)
{
    std::fprintf(stderr,
                 "cuda-emu: cuda::barrier::wait: the phase waited for can never complete: %td of its %td arrivals are "
                 "still missing and %s (on a GPU the block hangs). Check that as many threads arrive as init() was "
                 "given, and that no thread waits at __syncthreads() for a thread that waits here\n",
                 missing, expected, why);
    std::abort();
}
}  // namespace cudaemu

namespace cuda {

template <thread_scope Scope, class CompletionFunction = cudaemu::no_completion>
class barrier {
    static_assert(Scope == thread_scope_block || Scope == thread_scope_thread,
                  "cuda::barrier: only barriers of a block's threads (thread_scope_block) are emulated");

public:
    using arrival_token = unsigned long long;  // the phase it was given in
    static constexpr std::ptrdiff_t max() { return (std::ptrdiff_t(1) << 30) - 1; }

    barrier() = default;  // trivial: a __shared__ barrier is made ready by init()
    explicit barrier(std::ptrdiff_t expected, CompletionFunction completion = CompletionFunction())
    {
        start(expected, completion);
    }
    barrier(const barrier &) = delete;
    barrier &operator=(const barrier &) = delete;

    [[nodiscard]] arrival_token arrive(std::ptrdiff_t update = 1)
    {
        arrival_token token = phase_;
        pending_ -= update;
        if (pending_ <= 0) complete_phase();
        return token;
    }
    void wait(arrival_token &&token)
    {
        // A waiter gives its turn to the others until the phase ends. When every thread of the
        // block that has not returned waits here, none can arrive; the bound on turns catches
        // threads that wait on different barriers for each other (each yields to the next).
        if (phase_ != token) return;
        ++waiting_;  // the phase's completion sets it back to 0
        for (unsigned long long turns = 0; phase_ == token; ++turns) {
            if ((unsigned int)waiting_ >= cudaemu::live_threads_of_block())
                cudaemu::barrier_never_completes(pending_, expected_, "every thread of the block that could arrive waits");
            if (!cudaemu::let_other_threads_run())
                cudaemu::barrier_never_completes(pending_, expected_, "no other thread of the block can run");
            if (turns > 10000000ull)
                cudaemu::barrier_never_completes(pending_, expected_, "the threads that could arrive are all waiting");
        }
    }
    void arrive_and_wait() { wait(arrive()); }
    void arrive_and_drop()
    {
        --expected_;
        (void)arrive();
    }

    template <thread_scope S, class F>
    friend void init(barrier<S, F> *bar, std::ptrdiff_t expected, F completion);

private:
    void start(std::ptrdiff_t expected, CompletionFunction completion)
    {
        expected_ = pending_ = expected;
        waiting_ = 0;
        phase_ = 0;
        completion_ = completion;
    }
    void complete_phase()
    {
        completion_();
        pending_ = expected_;
        waiting_ = 0;
        cudaemu::order_block_accesses();
        ++phase_;
    }

    std::ptrdiff_t expected_;
    std::ptrdiff_t pending_;
    std::ptrdiff_t waiting_;  // threads in wait() for the current phase
    unsigned long long phase_;
    CompletionFunction completion_;
};

template <thread_scope Scope, class F>
inline void init(barrier<Scope, F> *bar, std::ptrdiff_t expected, F completion)
{
    bar->start(expected, completion);
}
template <thread_scope Scope>
inline void init(barrier<Scope> *bar, std::ptrdiff_t expected)
{
    init(bar, expected, cudaemu::no_completion{});
}

// A copy whose completion the barrier's current phase waits for: made now.
template <class Shape, thread_scope Scope, class F>
inline void memcpy_async(void *destination, const void *source, Shape shape, barrier<Scope, F> &bar,
                         const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    (void)bar;
    std::size_t size = cudaemu::shape_bytes(shape);
    cudaemu::check_copy_alignment("cuda::memcpy_async", destination, source, size, cudaemu::shape_alignment(shape));
    cudaemu::deliver_copy(cudaemu::PendingCopy{destination, source, size, file, line, "cuda::memcpy_async"});
}

template <class T, class Shape, thread_scope Scope, class F>
inline void memcpy_async(T *destination, const T *source, Shape shape, barrier<Scope, F> &bar,
                         const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    memcpy_async(static_cast<void *>(destination), static_cast<const void *>(source), shape, bar, file, line);
}

}  // namespace cuda
