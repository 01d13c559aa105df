// libcu++'s cuda::pipeline (<cuda/pipeline>) under the CPU emulator (EMU=1): a thread's own
// pipeline of asynchronous copies (cuda::make_pipeline(), thread_scope_thread).
//
// The pipeline is a queue of stages ([NVIDIA CUDA Programming Guide n.d.], "Asynchronous Data
// Copies using cuda::pipeline"): producer_acquire opens a stage, memcpy_async adds copies to it,
// producer_commit closes it; consumer_wait waits for the oldest committed stage and
// consumer_release frees it; pipeline_consumer_wait_prior<N> waits for all committed stages but
// the N most recent. Here a copy is recorded when issued and made when a wait covers its stage,
// as late as a GPU may make it: a kernel that reads a destination before the wait reads what
// was there before, as it may on a GPU, and the race detector sees the copy's stores where
// the wait is (another thread's read needs a barrier after that wait).
//
// Not emulated: pipelines shared by a block's threads (make_pipeline(group, shared_state),
// cuda::pipeline_shared_state), which no program of the conformance runs uses.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "async_copy.h"
#include "block_barrier.h"

namespace cuda {

template <thread_scope Scope>
class pipeline {
    static_assert(Scope == thread_scope_thread,
                  "cuda::pipeline: only a thread's own pipeline (cuda::make_pipeline(), thread_scope_thread) is "
                  "emulated; a pipeline shared by a block (pipeline_shared_state) is not");

public:
    pipeline() = default;
    pipeline(pipeline &&) = default;
    pipeline(const pipeline &) = delete;
    pipeline &operator=(const pipeline &) = delete;
    // Copies still in flight when the pipeline goes land, as the hardware's would.
    ~pipeline() { complete(copies_.size()); }

    void producer_acquire() {}
    void producer_commit() { stage_ends_.push_back(copies_.size()); }
    // Waits for the oldest committed stage that is not waited for yet.
    void consumer_wait()
    {
        if (waited_stages_ < stage_ends_.size()) complete(stage_ends_[waited_stages_++]);
    }
    // Frees the oldest waited-for stage: its slot may take new copies.
    void consumer_release()
    {
        if (released_stages_ < waited_stages_) ++released_stages_;
        if (released_stages_ == stage_ends_.size() && delivered_ == copies_.size()) {  // all drained: start over
            copies_.clear();
            stage_ends_.clear();
            delivered_ = waited_stages_ = released_stages_ = 0;
        }
    }
    bool quit()
    {
        complete(copies_.size());
        return true;
    }

    // Every committed stage but the `pending` most recent is complete (pipeline_consumer_wait_prior).
    void wait_prior(std::size_t pending)
    {
        std::size_t committed = stage_ends_.size();
        if (committed <= pending) return;
        std::size_t last = committed - pending;  // stages [0, last) must be complete
        if (waited_stages_ < last) waited_stages_ = last;
        complete(stage_ends_[last - 1]);
    }

    void issue(const cudaemu::PendingCopy &copy) { copies_.push_back(copy); }

private:
    // Makes the recorded copies up to (not including) copy number `end`.
    void complete(std::size_t end)
    {
        for (; delivered_ < end; ++delivered_) cudaemu::deliver_copy(copies_[delivered_]);
    }

    std::vector<cudaemu::PendingCopy> copies_;  // in issue order; delivered_ of them made
    std::vector<std::size_t> stage_ends_;       // committed stage i holds copies [end of i-1, end of i)
    std::size_t delivered_ = 0, waited_stages_ = 0, released_stages_ = 0;
};

inline pipeline<thread_scope_thread> make_pipeline() { return pipeline<thread_scope_thread>(); }

template <std::uint8_t Prior>
inline void pipeline_consumer_wait_prior(pipeline<thread_scope_thread> &pipe)
{
    pipe.wait_prior(Prior);
}

// Copies issued into `pipe`'s open stage, made when a wait covers that stage. The shape is a
// byte count or an aligned_size_t (its promise is checked: a GPU traps on a misaligned copy).
template <class Shape, thread_scope Scope>
inline void memcpy_async(void *destination, const void *source, Shape shape, pipeline<Scope> &pipe,
                         const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    std::size_t size = cudaemu::shape_bytes(shape);
    cudaemu::check_copy_alignment("cuda::memcpy_async", destination, source, size, cudaemu::shape_alignment(shape));
    pipe.issue(cudaemu::PendingCopy{destination, source, size, file, line, "cuda::memcpy_async"});
}

template <class T, class Shape, thread_scope Scope>
inline void memcpy_async(T *destination, const T *source, Shape shape, pipeline<Scope> &pipe,
                         const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    memcpy_async(static_cast<void *>(destination), static_cast<const void *>(source), shape, pipe, file, line);
}

// Commits the open stage and binds it to `bar`: the barrier's current phase completes only once
// the stage's copies are made. The calling thread still arrives itself; here the copies are
// made now, before any arrival of this thread can complete the phase.
template <thread_scope Scope>
inline void pipeline_producer_commit(pipeline<thread_scope_thread> &pipe, barrier<Scope> &bar)
{
    (void)bar;
    pipe.producer_commit();
    pipe.wait_prior(0);
}

}  // namespace cuda
