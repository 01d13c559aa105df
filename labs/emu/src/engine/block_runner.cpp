#include "engine/block_runner.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <string>

#include "engine/asan.h"
#include "reports/crash_report.h"
#include "reports/diagnostics.h"
#include "settings.h"

// The kernel built-ins: per CPU thread, and threadIdx rewritten at every fiber switch.
__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread dim3 blockDim;
__thread dim3 gridDim;

// The functions on every barrier's path are inlined into one another, so that a waiting
// fiber's stack holds one frame between the kernel and the switch: fewer cache lines to save
// and reload per thread per barrier.
#define CUDAEMU_HOT inline __attribute__((always_inline))

namespace cudaemu {
__thread BlockRunner *tls_kernel_runner = nullptr;
__thread unsigned char lane_shared_traffic = 0;
__thread const char *shared_arena_low = nullptr;
__thread const char *shared_arena_high = nullptr;
__thread const char *fiber_stack_low = nullptr;
__thread const char *fiber_stack_high = nullptr;
// Where the profile's fast path is off: free slots (key 0), which no access continues.
static ProfileRun no_profile_runs[kProfileRunSlots * kProfileRunRow];
__thread ProfileRun *profile_runs = no_profile_runs;

namespace {
// The hooks' view of the running fiber's stack (cuda_emu/memory_access.h); none outside a kernel.
inline void set_fiber_stack(const Fiber *fiber)
{
    fiber_stack_low = fiber ? fiber->stack_low() : nullptr;
    fiber_stack_high = fiber && fiber_stack_low ? fiber_stack_low + fiber->stack_bytes() : nullptr;
}
}  // namespace

namespace {
thread_local BlockRunner *tls_runner = nullptr;  // this CPU thread's runner, once made

// Each fiber's stack starts at a different offset (a "color") below its page-aligned top, so
// that the tops of a thousand fibers do not all compete for the same cache sets.
std::size_t stack_color(std::size_t fiber_number) { return (fiber_number % 128) * 64; }
}  // namespace

BlockRunner::BlockRunner() : stack_bytes_(fiber_stack_bytes())
{
    prepare_crash_report_for_this_thread(signal_stack_);
}

BlockRunner::~BlockRunner()
{
    if (tls_runner == this) tls_runner = nullptr;
    if (signal_stack_) {
        stack_t disable{};
        disable.ss_flags = SS_DISABLE;
        sigaltstack(&disable, nullptr);
    }
}

BlockRunner &BlockRunner::for_this_thread()
{
    thread_local std::unique_ptr<BlockRunner> runner;
    if (!runner) {
        runner.reset(new BlockRunner());
        tls_runner = runner.get();
    }
    return *runner;
}

void BlockRunner::prepare_threads(const dim3 &block)
{
    count_ = block.x * block.y * block.z;
    if (prepared_shape_.x != block.x || prepared_shape_.y != block.y || prepared_shape_.z != block.z) {
        threads_.resize(count_);
        for (unsigned int linear = 0; linear < count_; ++linear) {
            Thread &thread = threads_[linear];
            thread.linear = linear;
            thread.index = uint3{linear % block.x, (linear / block.x) % block.y, linear / (block.x * block.y)};
            thread.fiber = nullptr;
            thread.state = State::Exited;
            thread.wait = Wait::None;
            thread.yielded = false;
        }
        warps_.resize((count_ + kWarpLanes - 1) / kWarpLanes);
        start_order_.resize(count_);
        for (unsigned int i = 0; i < count_; ++i) start_order_[i] = i;
        start_order_shuffled_ = false;
        ready_.reserve(count_);
        block_waiters_.reserve(count_);
        grid_waiters_.reserve(count_);
        prepared_shape_ = block;
    }
    // Every thread of the previous block has returned, so each Thread is as a new block needs
    // it (start_next_thread sets the rest); only the warps and the order are reset.
    for (std::size_t warp = 0; warp < warps_.size(); ++warp) {
        unsigned int lanes = std::min<unsigned int>(kWarpLanes, count_ - (unsigned int)warp * kWarpLanes);
        Warp &w = warps_[warp];
        w.live = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
        w.exists = w.live;
        w.predicates = 0;
        // A lane that never deposited (one the block does not have, or one that has not yet
        // called a warp function) reads 0, never a value left by an earlier block or kernel.
        std::fill(std::begin(w.deposits), std::end(w.deposits), 0ull);
        w.groups.clear();
        w.results.clear();
        w.converging.clear();
        w.stepping = 0;
        w.held = 0;
    }
    range_barriers_.clear();
    group_waiters_ = 0;
    // The order starts from thread order, so that it depends on the block's seed alone.
    if (random_schedule_ || start_order_shuffled_)
        for (unsigned int i = 0; i < count_; ++i) start_order_[i] = i;
    if (random_schedule_)
        for (unsigned int i = count_; i > 1; --i) std::swap(start_order_[i - 1], start_order_[random_.below(i)]);
    start_order_shuffled_ = random_schedule_;
    live_ = count_;
    next_start_ = 0;
    ready_.clear();
    ready_head_ = 0;
    block_waiters_.clear();
    grid_waiters_.clear();
    block_generation_ = 0;
    vote_true_[0] = vote_true_[1] = vote_arrivals_[0] = vote_arrivals_[1] = 0;
}

void BlockRunner::run_block(GridRun &grid, uint3 block_index, std::uint64_t block_linear)
{
    grid_ = &grid;
    random_schedule_ = grid.schedule.random;
    if (random_schedule_)
        random_ = Random(grid.schedule.seed * 0x100000001b3ull ^ (grid.launch_number << 32) ^ block_linear);
    prepare_threads(grid.block);
    blockIdx = block_index;
    blockDim = grid.block;
    gridDim = grid.grid;
    arena_.begin_block(grid.dynamic_shared_bytes, grid.kernel_name, random_schedule_);
    shared_arena_low = arena_.dynamic_base();
    shared_arena_high = shared_arena_low + arena_.capacity();
    block_index_ = block_index;
    block_linear_ = block_linear;
    grid_phase_ = 0;
    racecheck_ = grid.global_writes != nullptr;
    if (racecheck_) race_shadow_.begin_block(arena_.capacity(), (unsigned int)warps_.size());
    profiling_ = grid.profile != nullptr;
    if (profiling_) recorder_.begin_block(grid.profile, count_);

    tls_runner = this;
    tls_kernel_runner = this;
    Fiber *first = acquire_fiber();
    first->reset(&BlockRunner::fiber_main);
    current_fiber_ = first;
    set_fiber_stack(first);
    Fiber::switch_to(&native_, first, false);
    // Every thread of the block has returned.
    set_fiber_stack(nullptr);
    shared_arena_low = shared_arena_high = nullptr;
    profile_runs = no_profile_runs;
    if (profiling_) recorder_.end_block();
    tls_kernel_runner = nullptr;
    running_ = nullptr;
    threadIdx = uint3{0, 0, 0};

    std::size_t placed = arena_.static_bytes();
    std::size_t seen = grid.max_static_shared.load(std::memory_order_relaxed);
    while (placed > seen && !grid.max_static_shared.compare_exchange_weak(seen, placed)) {
    }
    if (grid.grid_barrier) grid.grid_barrier->leave();
}

Fiber *BlockRunner::acquire_fiber()
{
    if (free_fibers_.empty()) {
        fibers_.emplace_back(new Fiber(stack_bytes_, stack_color(fibers_.size())));
        return fibers_.back().get();
    }
    Fiber *fiber = free_fibers_.back();
    free_fibers_.pop_back();
    return fiber;
}

// Keeps the warp's `held` mask in step with the lane's state, so that warp_waits, asked at
// every lane's wait while lanes are kept in step, is one test rather than a look at 32 lanes.
CUDAEMU_HOT void BlockRunner::mark_held(const Thread &thread, bool held)
{
    unsigned int bit = 1u << (thread.linear % kWarpLanes);
    Warp &w = warps_[thread.linear / kWarpLanes];
    w.held = held ? w.held | bit : w.held & ~bit;
}

CUDAEMU_HOT void BlockRunner::enter(Thread &thread)
{
    thread.state = State::Running;
    thread.wait = Wait::None;
    thread.yielded = false;
    mark_held(thread, false);
    running_ = &thread;
    threadIdx = thread.index;
    lane_shared_traffic = 0;  // it starts, or its warp has caught up with it: a new step
    // The profile's fast path, where nothing else watches each access (the race detector does).
    profile_runs = profiling_ && !racecheck_ ? recorder_.open_runs(thread.linear) : no_profile_runs;
}

CUDAEMU_HOT BlockRunner::Thread &BlockRunner::start_next_thread(Fiber *fiber)
{
    Thread &thread = threads_[start_order_[next_start_++]];
    thread.fiber = fiber;
    enter(thread);
    return thread;
}

// The body of every fiber: run threads that have not started, one after another, until the
// running one has to wait or none is left to start; then hand over and stop.
void BlockRunner::fiber_main()
{
    BlockRunner &runner = *tls_runner;
    Fiber *self = runner.current_fiber_;
    for (;;) {
        Thread &thread = runner.start_next_thread(self);
        runner.grid_->call->run_thread(runner.grid_->call->bound_args);
        runner.thread_returned(thread);
        Next next = runner.pick_next();
        if (next.kind == NextKind::Start) continue;
        runner.transfer(self, true, next);
    }
}

void BlockRunner::exit_running_thread()
{
    thread_returned(*running_);
    transfer(current_fiber_, true, pick_next());
    __builtin_unreachable();
}

CUDAEMU_HOT void BlockRunner::thread_returned(Thread &thread)
{
    thread.state = State::Exited;
    thread.fiber = nullptr;
    mark_held(thread, false);
    running_ = nullptr;
    --live_;
    unsigned int warp = thread.linear / kWarpLanes;
    Warp &w = warps_[warp];
    w.live &= ~(1u << (thread.linear % kWarpLanes));
    if (profiling_ && w.live == 0) recorder_.flush_warp(warp);
    // A lane that returns is no longer waited for: rendezvous may now be complete.
    for (std::size_t group = w.groups.size(); group-- > 0;) complete_warp_group(warp, group);
    if (__builtin_expect(group_waiters_ != 0, 0)) {
        if (!w.converging.empty()) try_converge(warp);
        if (w.stepping) try_step(warp);
        for (std::size_t barrier = range_barriers_.size(); barrier-- > 0;) try_release_range(barrier);
    }
    if (!block_waiters_.empty() && block_waiters_.size() == live_) release_block_barrier();
    if (!grid_waiters_.empty() && grid_waiters_.size() == live_) complete_grid_arrival();
}

CUDAEMU_HOT BlockRunner::Next BlockRunner::pick_next()
{
    std::size_t ready = ready_.size() - ready_head_;
    bool can_start = next_start_ < count_;
    if (random_schedule_) {
        std::size_t choices = ready + (can_start ? 1 : 0);
        if (choices > 0) {
            std::size_t pick = (std::size_t)random_.below(choices);
            if (pick == ready) return Next{NextKind::Start, nullptr};
            std::swap(ready_[ready_head_], ready_[ready_head_ + pick]);
        }
    }
    if (ready > 0) {
        Thread *thread = &threads_[ready_[ready_head_++]];
        // The thread after this one is likely resumed next: start fetching its stack now.
        if (ready > 1) threads_[ready_[ready_head_]].fiber->prefetch();
        if (ready_head_ == ready_.size()) {
            ready_.clear();
            ready_head_ = 0;
        } else if (ready_head_ >= count_) {  // keep the queue's storage bounded
            ready_.erase(ready_.begin(), ready_.begin() + (std::ptrdiff_t)ready_head_);
            ready_head_ = 0;
        }
        return Next{NextKind::Resume, thread};
    }
    if (can_start) return Next{NextKind::Start, nullptr};
    if (live_ == 0) return Next{NextKind::Finish, nullptr};
    report_deadlock();
}

CUDAEMU_HOT void BlockRunner::transfer(Fiber *from, bool from_done, Next next)
{
    Fiber *to = nullptr;
    switch (next.kind) {
    case NextKind::Resume: to = next.thread->fiber; break;
    case NextKind::Start:
        to = acquire_fiber();
        to->reset(&BlockRunner::fiber_main);
        break;
    case NextKind::Finish: to = &native_; break;
    }
    if (from_done) free_fibers_.push_back(from);
    current_fiber_ = to;
    set_fiber_stack(to == &native_ ? nullptr : to);
    Fiber::switch_to(from, to, from_done);
}

// Parks the running thread (already recorded as waiting somewhere) until it is resumed.
CUDAEMU_HOT void BlockRunner::wait(Thread &thread)
{
    // A lane that parks may be the last its warp's coalesced_threads() calls (or lanes kept in
    // step) wait for.
    if (__builtin_expect(group_waiters_ != 0, 0)) {
        unsigned int warp = thread.linear / kWarpLanes;
        if (!warps_[warp].converging.empty()) try_converge(warp);
        if (warps_[warp].stepping) try_step(warp);
    }
    Next next = pick_next();
    if (next.kind == NextKind::Resume && next.thread == &thread) {
        enter(thread);
        return;
    }
    transfer(thread.fiber, false, next);
    enter(thread);
}

bool BlockRunner::yield_running_thread()
{
    if (!running_) return false;
    Thread &thread = *running_;
    bool others_ready = ready_.size() > ready_head_;
    if (next_start_ >= count_ && !others_ready) return false;  // the only thread left: nothing to let run
    make_ready(thread.linear);
    // It waits for others (a cuda::barrier's phase, a clock spin): lanes of its warp kept in step
    // must not wait for it to reach them, or neither goes on (the barrier's last arrival among them).
    thread.yielded = true;
    mark_held(thread, true);
    unsigned int warp = thread.linear / kWarpLanes;
    if (__builtin_expect(group_waiters_ != 0, 0) && warps_[warp].stepping) try_step(warp);
    // Threads not yet started go first: a thread that waits for the clock as the block's first
    // one (a spin on clock()) is then overtaken by all of them, as on an SM.
    Next next = next_start_ < count_ && !random_schedule_ ? Next{NextKind::Start, nullptr} : pick_next();
    if (next.kind == NextKind::Resume && next.thread == &thread) {
        enter(thread);
        return true;
    }
    transfer(thread.fiber, false, next);
    enter(thread);
    return true;
}

CUDAEMU_HOT void BlockRunner::make_ready(unsigned int linear)
{
    threads_[linear].state = State::Ready;
    if (!threads_[linear].yielded) mark_held(threads_[linear], false);
    ready_.push_back(linear);
}

// ---- __syncthreads and its voting forms.
void BlockRunner::release_block_barrier()
{
    unsigned int parity = block_generation_ & 1;
    vote_arrivals_[parity] = (int)block_waiters_.size();
    for (unsigned int linear : block_waiters_) make_ready(linear);
    block_waiters_.clear();
    if (racecheck_) race_shadow_.barrier();
    if (profiling_) {
        recorder_.flush_all();  // every lane is here: what each logged before is a whole stretch
        recorder_.barrier_passed();
    }
    ++block_generation_;
    vote_true_[block_generation_ & 1] = 0;
}

CUDAEMU_HOT BlockVote BlockRunner::block_barrier(int predicate)
{
    Thread &thread = *running_;
    unsigned int parity = block_generation_ & 1;
    if (predicate) ++vote_true_[parity];
    thread.state = State::Waiting;
    mark_held(thread, true);
    thread.wait = Wait::Block;
    block_waiters_.push_back(thread.linear);
    if (block_waiters_.size() == live_) release_block_barrier();
    wait(thread);
    return BlockVote{vote_true_[parity], vote_arrivals_[parity]};
}

void BlockRunner::sync_threads() { block_barrier(0); }
BlockVote BlockRunner::sync_threads_vote(int predicate) { return block_barrier(predicate); }

// ---- Warp exchanges: shuffles, votes, __syncwarp.
// Completes rendezvous `group` of `warp` if every live lane its mask names has arrived: its
// lanes' values are copied into a result they read when resumed.
bool BlockRunner::complete_warp_group(unsigned int warp, std::size_t group)
{
    Warp &w = warps_[warp];
    WarpGroup done = w.groups[group];
    if ((done.mask & w.live & ~done.arrived) != 0) return false;
    std::size_t slot = 0;
    while (slot < w.results.size() && w.results[slot].readers > 0) ++slot;
    if (slot == w.results.size()) w.results.emplace_back();
    WarpResult &result = w.results[slot];
    std::copy(std::begin(w.deposits), std::end(w.deposits), std::begin(result.values));
    result.ballot = w.predicates & done.arrived;
    result.arrived = done.arrived;
    result.readers = __builtin_popcount(done.arrived);
    for (unsigned int lane = 0; lane < kWarpLanes; ++lane)
        if (done.arrived & (1u << lane)) {
            threads_[warp * kWarpLanes + lane].warp_result = (unsigned short)slot;
            make_ready(warp * kWarpLanes + lane);
        }
    w.groups[group] = w.groups.back();
    w.groups.pop_back();
    if (racecheck_) race_shadow_.warp_synced(warp);
    return true;
}

WarpExchange BlockRunner::warp_exchange(unsigned int mask, unsigned long long value, int predicate)
{
    Thread &thread = *running_;
    unsigned int warp = thread.linear / kWarpLanes, lane = thread.linear % kWarpLanes, bit = 1u << lane;
    Warp &w = warps_[warp];
    if (__builtin_expect((mask & ~w.exists) != 0, 0)) warn_missing_lanes(mask, w.exists);
    w.deposits[lane] = value;
    w.predicates = predicate ? (w.predicates | bit) : (w.predicates & ~bit);
    std::size_t group = 0;
    while (group < w.groups.size() && w.groups[group].mask != mask) ++group;
    if (group == w.groups.size()) w.groups.push_back(WarpGroup{mask, 0});
    w.groups[group].arrived |= bit;
    thread.state = State::Waiting;
    mark_held(thread, true);
    thread.wait = Wait::Warp;
    complete_warp_group(warp, group);
    wait(thread);
    // Read at once: no other fiber runs before the caller has used the values.
    WarpResult &result = w.results[thread.warp_result];
    --result.readers;
    return WarpExchange{result.values, result.ballot, result.arrived, lane};
}

// A mask naming lanes the block does not have is undefined behaviour in CUDA. Said once per
// program: in a block of 8 threads every shuffle names them.
void BlockRunner::warn_missing_lanes(unsigned int mask, unsigned int exists) const
{
    static std::atomic_flag warned = ATOMIC_FLAG_INIT;
    if (warned.test_and_set()) return;
    warn("kernel %s%s: a warp function (__shfl*_sync, __ballot_sync, __syncwarp, ...) was given the mask 0x%08x, "
         "which names lanes that do not exist in a block of %u threads (this warp has lanes 0x%08x): undefined "
         "behaviour in CUDA. Here a shuffle from such a lane reads 0 (an H100 gave the same sums); pass the mask "
         "of the lanes that exist, e.g. __activemask(), or launch whole warps (threads a multiple of 32)",
         grid_->kernel_name, grid_->launch_site().c_str(), mask, count_, exists);
}

unsigned int BlockRunner::live_lanes() const
{
    return running_ ? warps_[running_->linear / kWarpLanes].live : 1u;
}

// Whether every live lane of `warp` waits (a lane not yet started does not).
bool BlockRunner::warp_waits(unsigned int warp) const
{
    const Warp &w = warps_[warp];
    return (w.live & ~w.held) == 0;
}

// ---- cg::coalesced_threads(). A GPU's coalesced group is the lanes of the warp that are
// active together at the call. Threads here run one at a time, so the emulator forms the
// group when it can no longer grow: once every live lane of the warp is waiting (at this call,
// a barrier, a warp function) or has returned, the lanes waiting at this call site are the
// group (those at another coalesced_threads() call form their own). Lanes that took the other
// side of a branch are therefore not in it, as on a GPU; a lane that reaches the call in a
// later iteration of a loop while the others still wait joins them, which a GPU would not do
// (the group is then larger, never inconsistent: every member sees the same mask).
void BlockRunner::try_converge(unsigned int warp)
{
    Warp &w = warps_[warp];
    if (!warp_waits(warp)) return;
    for (const Convergence &group : w.converging)
        for (unsigned int lane = 0; lane < kWarpLanes; ++lane)
            if (group.arrived & (1u << lane)) {
                threads_[warp * kWarpLanes + lane].converged = group.arrived;
                make_ready(warp * kWarpLanes + lane);
                --group_waiters_;
            }
    w.converging.clear();
}

unsigned int BlockRunner::converge(const char *file, int line)
{
    Thread &thread = *running_;
    unsigned int warp = thread.linear / kWarpLanes, bit = 1u << (thread.linear % kWarpLanes);
    Warp &w = warps_[warp];
    std::size_t group = 0;
    while (group < w.converging.size() &&
           !(w.converging[group].line == line && w.converging[group].file == file))
        ++group;
    if (group == w.converging.size()) w.converging.push_back(Convergence{file, line, 0});
    w.converging[group].arrived |= bit;
    ++group_waiters_;
    thread.state = State::Waiting;
    mark_held(thread, true);
    thread.wait = Wait::Converge;
    wait(thread);  // try_converge runs there
    return thread.converged;
}

// ---- Warp-synchronous shared memory (cuda_emu/memory_access.h says when a lane comes here).
// The lanes kept in step go on, in lane order, once the warp can go no further without them:
// every live lane waits (here, at a barrier, in a warp function) or has returned.
void BlockRunner::try_step(unsigned int warp)
{
    Warp &w = warps_[warp];
    if (!warp_waits(warp)) return;
    for (unsigned int lane = 0; lane < kWarpLanes; ++lane)
        if (w.stepping & (1u << lane)) make_ready(warp * kWarpLanes + lane);
    group_waiters_ -= (unsigned int)__builtin_popcount(w.stepping);
    w.stepping = 0;
}

void BlockRunner::keep_warp_in_step()
{
    // EMU_SCHEDULE=random and EMU_RACECHECK=1 look for code that relies on an order CUDA does
    // not promise (since Volta, lanes of a warp need __syncwarp() to see each other's stores):
    // there, lanes run one after another, as without this.
    if (random_schedule_ || racecheck_) return;
    Thread &thread = *running_;
    unsigned int warp = thread.linear / kWarpLanes, bit = 1u << (thread.linear % kWarpLanes);
    Warp &w = warps_[warp];
    thread.state = State::Waiting;  // counted as waiting, so that warp_waits sees the others only
    mark_held(thread, true);
    // Alone in its warp at this point (the others wait elsewhere, or have returned): go on. With
    // others kept in step here, the last to arrive goes in lane order with them, never first.
    if (w.stepping == 0 && warp_waits(warp)) {
        enter(thread);
        return;
    }
    w.stepping |= bit;
    ++group_waiters_;
    thread.wait = Wait::Step;
    wait(thread);  // try_step runs there
}

// ---- The barrier of a multi-warp tile: threads first .. first + count - 1 of the block.
unsigned int BlockRunner::live_in_range(unsigned int first, unsigned int count) const
{
    unsigned int live = 0;
    for (unsigned int linear = first; linear < first + count && linear < count_; ++linear)
        if (warps_[linear / kWarpLanes].live & (1u << (linear % kWarpLanes))) ++live;
    return live;
}

bool BlockRunner::try_release_range(std::size_t barrier)
{
    RangeBarrier &b = range_barriers_[barrier];
    if (b.waiters.size() < live_in_range(b.first, b.count)) return false;
    for (unsigned int linear : b.waiters) make_ready(linear);
    group_waiters_ -= (unsigned int)b.waiters.size();
    // The detector has no partial-block epochs: ordering the whole block may hide a race
    // between two tiles (a miss), never report one that is not there.
    if (racecheck_) race_shadow_.barrier();
    range_barriers_[barrier] = std::move(range_barriers_.back());
    range_barriers_.pop_back();
    return true;
}

void BlockRunner::sync_range(unsigned int first, unsigned int count)
{
    Thread &thread = *running_;
    std::size_t barrier = 0;
    while (barrier < range_barriers_.size() &&
           !(range_barriers_[barrier].first == first && range_barriers_[barrier].count == count))
        ++barrier;
    if (barrier == range_barriers_.size()) range_barriers_.push_back(RangeBarrier{first, count, {}});
    range_barriers_[barrier].waiters.push_back(thread.linear);
    ++group_waiters_;
    thread.state = State::Waiting;
    mark_held(thread, true);
    thread.wait = Wait::Range;
    try_release_range(barrier);
    wait(thread);
}

// ---- this_grid().sync()
void BlockRunner::complete_grid_arrival()
{
    // Every thread of this block is here: wait (blocking this CPU thread, whose fibers are all
    // parked) for the other blocks, each on its own CPU thread.
    grid_->grid_barrier->arrive_and_wait();
    ++grid_phase_;
    if (racecheck_) race_shadow_.barrier();
    if (profiling_) recorder_.flush_all();
    for (unsigned int linear : grid_waiters_) make_ready(linear);
    grid_waiters_.clear();
}

void BlockRunner::sync_grid()
{
    if (!grid_->grid_barrier)
        fatal("kernel %s%s calls this_grid().sync(), which needs every block resident: launch it with "
              "cudaLaunchCooperativeKernel, not <<<...>>>",
              grid_->kernel_name, grid_->launch_site().c_str());
    Thread &thread = *running_;
    thread.state = State::Waiting;
    mark_held(thread, true);
    thread.wait = Wait::Grid;
    grid_waiters_.push_back(thread.linear);
    if (grid_waiters_.size() == live_) complete_grid_arrival();
    wait(thread);
}

// ---- The memory-access hook.
// A thread's own locals, on its fiber's stack or ASan's fake stack: the next thread on this
// fiber reuses the addresses, and on a GPU they are registers or local memory.
bool BlockRunner::on_own_stack(const void *address) const
{
    const char *a = static_cast<const char *>(address);
    if (current_fiber_ && a >= current_fiber_->stack_low() &&
        a < current_fiber_->stack_low() + current_fiber_->stack_bytes())
        return true;
    return asan_in_fake_stack(address);
}

// One access for the profile: into shared memory (a pointer into the arena) or global memory.
CUDAEMU_NO_ASAN void BlockRunner::profile(const void *address, std::size_t size, Op op, const AccessSite *site)
{
    if (!running_) return;
    Space space = arena_.contains(address) ? Space::Shared : Space::Global;
    if (space == Space::Global && on_own_stack(address)) return;
    recorder_.record(running_->linear, site, (std::uintptr_t)address, (std::uint32_t)size, space, op);
}

CUDAEMU_NO_ASAN void BlockRunner::observe_shared_access(const void *address, std::size_t size, Access kind, const AccessSite *site)
{
    if (profiling_ && running_ && arena_.contains(address)) {
        if (kind != Access::Write && kind != Access::Rewrite) profile(address, size, Op::Load, site);
        if (kind != Access::Read) profile(address, size, Op::Store, site);
    }
    if (!racecheck_ || !running_ || !arena_.contains(address)) return;
    race_shadow_.access(*grid_, block_index_, running_->linear, arena_.offset_of(address), kind, site);
}

CUDAEMU_NO_ASAN void BlockRunner::observe_global_access(const void *address, std::size_t size, Access kind, const AccessSite *site)
{
    if (!profiling_) return;
    if (kind != Access::Write) profile(address, size, Op::Load, site);
    if (kind != Access::Read) profile(address, size, Op::Store, site);
}

void BlockRunner::observe_atomic(const void *address, std::size_t size)
{
    if (profiling_) profile(address, size, Op::Atomic, nullptr);
}

void BlockRunner::observe_global_write(const void *address, std::size_t size, unsigned long long bits,
                                       ValueKind value_kind, const AccessSite *site)
{
    if (profiling_) profile(address, size, Op::Store, site);
    if (!racecheck_ || !running_ || !grid_->global_writes || arena_.contains(address)) return;
    if (on_own_stack(address)) return;
    grid_->global_writes->write(*grid_, block_index_, block_linear_, running_->linear, race_shadow_.epoch(),
                                grid_phase_, address, size, bits, value_kind, site);
}

// ---- Diagnostics.
bool BlockRunner::current_thread_index(uint3 *thread_index) const
{
    if (!tls_kernel_runner || !running_) return false;
    *thread_index = running_->index;
    return true;
}

bool BlockRunner::stack_overflowed(const void *fault_address, const void *stack_pointer) const
{
    return current_fiber_ && current_fiber_->overflowed(fault_address, stack_pointer);
}

}  // namespace cudaemu
