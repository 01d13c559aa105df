// Runs the blocks of a grid on one CPU thread, one block at a time, each CUDA thread of the
// block on a fiber.
//
// A thread runs until it returns or waits (at __syncthreads, a warp function, or
// this_grid().sync()). When it returns, the same fiber goes straight on with the next thread
// that has not started, so a kernel without barriers runs every thread to completion with no
// context switch at all. When it waits, its fiber keeps its state and another fiber takes
// over; when the last thread a barrier waits for arrives, the waiting threads become ready
// and are resumed, in thread order (or a random order under EMU_SCHEDULE=random).
// A thread that has returned no longer counts at any barrier, as on Volta and later GPUs.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/block_sync_api.h"
#include "engine/device_limits.h"
#include "engine/fiber.h"
#include "engine/grid_run.h"
#include "engine/profiler.h"
#include "engine/race_detector.h"
#include "engine/schedule.h"
#include "engine/shared_arena.h"

namespace cudaemu {

constexpr unsigned int kWarpLanes = kWarpSize;

class BlockRunner;
// The calling CPU thread's runner while it runs a kernel, else null. A plain thread-local
// (no initializer to check) because every device function reads it.
extern __thread BlockRunner *tls_kernel_runner;

class BlockRunner {
public:
    BlockRunner();
    ~BlockRunner();

    // The runner of the calling CPU thread (made on first use).
    static BlockRunner &for_this_thread();
    // The runner of the calling CPU thread if it is inside a kernel, else null.
    static BlockRunner *running_kernel() { return tls_kernel_runner; }

    void run_block(GridRun &grid, uint3 block_index, std::uint64_t block_linear);

    // What the device functions call (on a fiber of this runner).
    void sync_threads();
    BlockVote sync_threads_vote(int predicate);
    WarpExchange warp_exchange(unsigned int mask, unsigned long long value, int predicate);
    unsigned int live_lanes() const;
    void note_warp_matrix_op()  // wmma::mma_sync, once a warp (include/mma.h)
    {
        if (profiling_) recorder_.warp_matrix_op();
    }
    void sync_grid();
    // cg::coalesced_threads(): the lanes of the caller's warp that reach this call (`file`,
    // `line`) before the warp can go no further (see converge()).
    unsigned int converge(const char *file, int line);
    // Warp-synchronous shared memory (cuda_emu/memory_access.h): the running lane waits until
    // every other live lane of its warp waits too or has returned.
    void keep_warp_in_step();
    // The barrier of a tile of whole warps (cg::thread_block_tile<N> with N > 32).
    void sync_range(unsigned int first, unsigned int count);
    // clock() and clock64(): the running thread lets the block's other threads run first, as an
    // SM's warps run side by side while one waits for its clock (device_clock.cpp says why).
    // Lets the block's other threads run first; false when none can (the caller is alone).
    bool yield_running_thread();
    unsigned int live_threads() const { return live_; }  // not yet returned
    // Orders every access made so far before every later one, for the race detector: a
    // cuda::barrier phase completing (it may hide a race, never report a false one).
    void order_block_accesses()
    {
        if (racecheck_) race_shadow_.barrier();
    }
    // The memory-access hook (cuda_emu/memory_access.h), on the running thread's behalf.
    void observe_shared_access(const void *address, std::size_t size, Access kind, const AccessSite *site);
    void observe_global_access(const void *address, std::size_t size, Access kind, const AccessSite *site);
    void observe_atomic(const void *address, std::size_t size);
    void observe_global_write(const void *address, std::size_t size, unsigned long long bits, ValueKind value_kind,
                              const AccessSite *site);

    SharedArena &arena() { return arena_; }
    const GridRun *grid() const { return grid_; }
    // For crash reports: the thread running now, and whether its stack overflowed.
    bool current_thread_index(uint3 *thread_index) const;
    // Ends the running CUDA thread where it is, as a failed device-side assert does on a GPU
    // (its stack is dropped, not unwound); the block goes on with its other threads.
    [[noreturn]] void exit_running_thread();
    bool stack_overflowed(const void *fault_address, const void *stack_pointer) const;

private:
    enum class State : unsigned char { Unstarted, Running, Waiting, Ready, Exited };
    enum class Wait : unsigned char { None, Block, Warp, Grid, Converge, Range, Step };
    struct Thread {
        uint3 index;
        unsigned int linear;
        Fiber *fiber;
        State state;
        Wait wait;
        unsigned short warp_result;  // which of its warp's results to read when resumed
        unsigned int converged;      // the lanes of its coalesced group, once formed
        bool yielded;                // gave its turn while it waits (a cuda::barrier, a clock spin)
    };
    // Lanes waiting in cg::coalesced_threads() at one call site.
    struct Convergence {
        const char *file;
        int line;
        unsigned int arrived;
    };
    // Threads waiting at the barrier of one multi-warp tile.
    struct RangeBarrier {
        unsigned int first, count;
        std::vector<unsigned int> waiters;
    };
    // Lanes of one warp waiting in warp functions called with the same mask: CUDA requires
    // the lanes a mask names to call the same function with that mask, so each distinct mask
    // is its own rendezvous (tiles of one warp shuffle independently).
    struct WarpGroup {
        unsigned int mask;
        unsigned int arrived;
    };
    // What a finished rendezvous's lanes read once resumed; kept until each has read it.
    struct WarpResult {
        unsigned long long values[32];
        unsigned int ballot;
        unsigned int arrived;
        int readers;
    };
    struct Warp {
        unsigned int exists;               // lanes the block has (fewer than 32 in its last warp)
        unsigned int live;                 // lanes not yet returned
        unsigned int predicates;           // the waiting lanes' votes
        unsigned long long deposits[32];   // the waiting lanes' values
        std::vector<WarpGroup> groups;     // rendezvous still waiting for lanes
        std::vector<WarpResult> results;   // finished rendezvous not yet read by all lanes
        std::vector<Convergence> converging;  // coalesced_threads() calls not yet formed
        unsigned int stepping;             // lanes waiting in keep_warp_in_step()
        unsigned int held;                 // lanes waiting (State::Waiting) or yielded: warp_waits' one test
    };
    enum class NextKind { Resume, Start, Finish };
    struct Next {
        NextKind kind;
        Thread *thread;
    };

    static void fiber_main();
    void prepare_threads(const dim3 &block);
    void enter(Thread &thread);
    Thread &start_next_thread(Fiber *fiber);
    void thread_returned(Thread &thread);
    void mark_held(const Thread &thread, bool held);
    BlockVote block_barrier(int predicate);
    Next pick_next();
    void wait(Thread &thread);
    void transfer(Fiber *from, bool from_done, Next next);
    void make_ready(unsigned int linear);
    void release_block_barrier();
    bool complete_warp_group(unsigned int warp, std::size_t group);
    void complete_grid_arrival();
    void try_converge(unsigned int warp);
    bool warp_waits(unsigned int warp) const;
    void try_step(unsigned int warp);
    bool try_release_range(std::size_t barrier);
    unsigned int live_in_range(unsigned int first, unsigned int count) const;
    Fiber *acquire_fiber();
    [[noreturn]] void report_deadlock();
    void warn_missing_lanes(unsigned int mask, unsigned int exists) const;

    GridRun *grid_ = nullptr;
    std::vector<Thread> threads_;
    dim3 prepared_shape_{0, 0, 0};
    unsigned int count_ = 0;
    unsigned int live_ = 0;
    std::vector<unsigned int> start_order_;
    bool start_order_shuffled_ = false;
    unsigned int next_start_ = 0;
    std::vector<unsigned int> ready_;  // a FIFO: entries from ready_head_ on
    std::size_t ready_head_ = 0;
    std::vector<unsigned int> block_waiters_;
    unsigned int block_generation_ = 0;
    int vote_true_[2] = {0, 0};
    int vote_arrivals_[2] = {0, 0};
    std::vector<unsigned int> grid_waiters_;
    std::vector<Warp> warps_;
    std::vector<RangeBarrier> range_barriers_;
    // Threads waiting in coalesced_threads(), keep_warp_in_step() or a multi-warp tile's sync: while none do, a
    // thread that parks or returns checks nothing more than this count.
    unsigned int group_waiters_ = 0;
    Random random_;
    bool random_schedule_ = false;

    Thread *running_ = nullptr;
    Fiber *current_fiber_ = nullptr;
    Fiber native_;
    std::vector<std::unique_ptr<Fiber>> fibers_;
    std::vector<Fiber *> free_fibers_;
    std::size_t stack_bytes_;
    SharedArena arena_;
    bool racecheck_ = false;  // this block's accesses are watched
    bool profiling_ = false;  // and counted (EMU_PROFILE)
    WarpRecorder recorder_;
    bool on_own_stack(const void *address) const;
    void profile(const void *address, std::size_t size, Op op, const AccessSite *site);
    SharedRaceShadow race_shadow_;
    uint3 block_index_{0, 0, 0};
    std::uint32_t grid_phase_ = 0;  // this_grid().sync() calls the block has passed
    std::uint64_t block_linear_ = 0;
    std::unique_ptr<char[]> signal_stack_;
};

}  // namespace cudaemu
