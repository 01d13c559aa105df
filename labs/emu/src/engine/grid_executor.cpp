#include "engine/grid_executor.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <numeric>
#include <system_error>
#include <thread>
#include <vector>

#include "engine/block_runner.h"
#include "reports/diagnostics.h"
#include "settings.h"

namespace cudaemu {
namespace {

// Which block the n-th claim runs: n itself, or under the random schedule a permutation of
// the blocks (n * stride + offset modulo the count, with stride coprime to the count).
struct BlockOrder {
    std::uint64_t count = 1, stride = 1, offset = 0;
    BlockOrder(std::uint64_t blocks, const SchedulePolicy &schedule, std::uint64_t launch_number) : count(blocks)
    {
        if (!schedule.random || blocks < 2) return;
        Random random(schedule.seed ^ (launch_number * 0x9e3779b97f4a7c15ull));
        offset = random.below(blocks);
        do stride = 1 + random.below(blocks - 1);
        while (std::gcd(stride, blocks) != 1);
    }
    std::uint64_t operator()(std::uint64_t n) const
    {
        return (std::uint64_t)(((unsigned __int128)n * stride + offset) % count);
    }
};

struct Job {
    GridRun *grid;
    BlockOrder order;
    std::atomic<std::uint64_t> next{0};
    int workers_inside = 0;  // pool threads running this job's blocks (guarded by the pool's mutex)
};

// Runs blocks of the job until none is left to claim, or (with a `deadline`) until that time
// has passed; returns true when none is left.
bool run_blocks(Job &job, const std::chrono::steady_clock::time_point *deadline = nullptr)
{
    BlockRunner &runner = BlockRunner::for_this_thread();
    const dim3 grid = job.grid->grid;
    const std::uint64_t total = job.order.count;
    for (;;) {
        if (deadline && std::chrono::steady_clock::now() >= *deadline) return job.next.load() >= total;
        std::uint64_t claim = job.next.fetch_add(1, std::memory_order_relaxed);
        if (claim >= total) return true;
        std::uint64_t linear = job.order(claim);
        uint3 index{(unsigned int)(linear % grid.x), (unsigned int)((linear / grid.x) % grid.y),
                    (unsigned int)(linear / ((std::uint64_t)grid.x * grid.y))};
        runner.run_block(*job.grid, index, linear);
    }
}

// Waking the pool costs tens of microseconds, more than a small grid takes: the launching
// thread first runs blocks alone for this long, and calls for help only if blocks remain.
constexpr std::chrono::microseconds kAloneBeforeHelp{50};

// The pool: threads that sleep until a launch has blocks left to claim.
class Pool {
public:
    explicit Pool(unsigned int threads)
    {
        for (unsigned int i = 0; i < threads; ++i) std::thread([this] { serve(); }).detach();
    }
    void run(Job &job)
    {
        const auto deadline = std::chrono::steady_clock::now() + kAloneBeforeHelp;
        if (run_blocks(job, &deadline)) return;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            jobs_.push_back(&job);
        }
        work_.notify_all();
        run_blocks(job);
        std::unique_lock<std::mutex> lock(mutex_);
        remove(job);
        idle_.wait(lock, [&] { return job.workers_inside == 0; });
    }

private:
    void serve()
    {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            work_.wait(lock, [&] { return !jobs_.empty(); });
            Job &job = *jobs_.front();
            ++job.workers_inside;
            lock.unlock();
            run_blocks(job);
            lock.lock();
            remove(job);  // no blocks left to claim
            if (--job.workers_inside == 0) idle_.notify_all();
        }
    }
    void remove(Job &job) { jobs_.erase(std::remove(jobs_.begin(), jobs_.end(), &job), jobs_.end()); }

    std::mutex mutex_;
    std::condition_variable work_, idle_;
    std::deque<Job *> jobs_;
};

Pool &pool()
{
    // Never destroyed: its threads sleep until the process ends.
    static Pool *instance = new Pool(cpu_threads() - 1);
    return *instance;
}

// The CPU threads of cooperative launches. Their blocks wait for each other at
// this_grid().sync(), so each block needs a thread of its own for the whole launch (the pool
// above runs blocks one after another). The threads, and the fibers and stacks of their
// BlockRunners, are kept for the next cooperative launch: started anew for each, they cost
// more than the kernels of a program that launches often (reductionMultiBlockCG spent its time
// in the kernel's page faults and unmaps of fresh stacks). One launch at a time uses them.
class CooperativeCrew {
public:
    using Block = std::function<void(std::uint64_t)>;
    // Runs block 0 on the calling thread and blocks 1 .. blocks - 1 on the crew's threads.
    void run(const GridRun &grid, std::uint64_t blocks, const Block &run_block)
    {
        std::lock_guard<std::mutex> one_launch_at_a_time(launch_mutex_);
        std::unique_lock<std::mutex> lock(mutex_);
        while (threads_ + 1 < blocks) start_thread(grid, blocks);
        block_ = &run_block;
        blocks_ = blocks;
        remaining_ = blocks - 1;
        ++generation_;
        work_.notify_all();
        lock.unlock();
        run_block(0);
        lock.lock();
        done_.wait(lock, [&] { return remaining_ == 0; });
        block_ = nullptr;
    }

private:
    void start_thread(const GridRun &grid, std::uint64_t blocks)
    {
        std::size_t slot = threads_;
        try {
            std::thread(&CooperativeCrew::serve, this, slot, generation_).detach();  // sleeps until the process ends
            ++threads_;
        } catch (const std::system_error &error) {
            fatal("cooperative launch of %s: the emulator runs each of its %llu blocks on a CPU thread of its own "
                  "and could not start thread %llu (%s); a limit on processes or threads is too low for this "
                  "grid (the grader's: see lab.toml [limits] processes), or use fewer, larger blocks",
                  grid.kernel_name, (unsigned long long)blocks, (unsigned long long)slot + 1, error.what());
        }
    }
    // Thread `slot` runs block slot + 1 of each launch that has that many blocks.
    void serve(std::size_t slot, std::uint64_t seen)
    {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            work_.wait(lock, [&] { return generation_ != seen; });
            seen = generation_;
            if (slot + 1 >= blocks_) continue;  // this launch has fewer blocks
            const Block &run_block = *block_;
            lock.unlock();
            run_block(slot + 1);
            lock.lock();
            if (--remaining_ == 0) done_.notify_all();
        }
    }

    std::mutex launch_mutex_, mutex_;
    std::condition_variable work_, done_;
    std::size_t threads_ = 0;  // started, never joined
    const Block *block_ = nullptr;
    std::uint64_t blocks_ = 0, remaining_ = 0, generation_ = 0;
};

CooperativeCrew &crew()
{
    static CooperativeCrew *instance = new CooperativeCrew();  // never destroyed, as the pool
    return *instance;
}

}  // namespace

void execute_grid(GridRun &grid)
{
    Job job{&grid, BlockOrder(grid.block_count(), grid.schedule, grid.launch_number)};
    if (grid.block_count() == 1 || cpu_threads() == 1)
        run_blocks(job);
    else
        pool().run(job);
}

void execute_cooperative_grid(GridRun &grid)
{
    std::uint64_t blocks = grid.block_count();
    GridBarrier barrier((unsigned int)blocks);
    grid.grid_barrier = &barrier;
    auto run_one = [&grid](std::uint64_t linear) {
        uint3 index{(unsigned int)(linear % grid.grid.x), (unsigned int)((linear / grid.grid.x) % grid.grid.y),
                    (unsigned int)(linear / ((std::uint64_t)grid.grid.x * grid.grid.y))};
        BlockRunner::for_this_thread().run_block(grid, index, linear);
    };
    crew().run(grid, blocks, run_one);
    grid.grid_barrier = nullptr;
}

}  // namespace cudaemu
