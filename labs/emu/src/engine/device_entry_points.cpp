// What the device functions in the headers call (cuda_emu/block_sync.h, shared_memory.h,
// cooperative_groups.h): the running block's runner does the work. Outside a kernel the
// barriers and warp functions act for a lone thread, as the host has no block to wait for.
#include <atomic>

#include "engine/block_runner.h"
#include "reports/diagnostics.h"

namespace cudaemu {

void sync_threads()
{
    if (BlockRunner *runner = BlockRunner::running_kernel()) runner->sync_threads();
}

BlockVote sync_threads_vote(int predicate)
{
    if (BlockRunner *runner = BlockRunner::running_kernel()) return runner->sync_threads_vote(predicate);
    return BlockVote{predicate ? 1 : 0, 1};
}

WarpExchange warp_exchange(unsigned int mask, unsigned long long value, int predicate)
{
    if (BlockRunner *runner = BlockRunner::running_kernel()) return runner->warp_exchange(mask, value, predicate);
    thread_local unsigned long long lone_values[32];
    lone_values[0] = value;
    return WarpExchange{lone_values, predicate ? 1u : 0u, 1u, 0u};
}

void note_warp_matrix_op()
{
    if (BlockRunner *runner = BlockRunner::running_kernel()) runner->note_warp_matrix_op();
}

bool let_other_threads_run()
{
    BlockRunner *runner = BlockRunner::running_kernel();
    return runner && runner->yield_running_thread();
}

unsigned int live_threads_of_block()
{
    BlockRunner *runner = BlockRunner::running_kernel();
    return runner ? runner->live_threads() : 1u;
}

void order_block_accesses()
{
    if (BlockRunner *runner = BlockRunner::running_kernel()) runner->order_block_accesses();
}

unsigned int live_lanes()
{
    BlockRunner *runner = BlockRunner::running_kernel();
    return runner ? runner->live_lanes() : 1u;
}

unsigned int converge_lanes(const char *file, int line)
{
    BlockRunner *runner = BlockRunner::running_kernel();
    return runner ? runner->converge(file, line) : 1u;
}

void cg_misuse(const char *what)
{
    BlockRunner *runner = BlockRunner::running_kernel();
    if (runner && runner->grid())
        fatal("cooperative groups in kernel %s%s: %s", runner->grid()->kernel_name,
              runner->grid()->launch_site().c_str(), what);
    fatal("cooperative groups: %s", what);
}

void sync_thread_range(unsigned int first, unsigned int count)
{
    if (BlockRunner *runner = BlockRunner::running_kernel()) runner->sync_range(first, count);
}

void sync_grid()
{
    if (BlockRunner *runner = BlockRunner::running_kernel()) runner->sync_grid();
}

bool in_cooperative_launch()
{
    BlockRunner *runner = BlockRunner::running_kernel();
    return runner && runner->grid()->grid_barrier;
}

bool access_hooks_on = false;
bool atomic_hooks_on = false;

void keep_warp_in_step()
{
    lane_shared_traffic = 0;
    if (BlockRunner *runner = BlockRunner::running_kernel()) runner->keep_warp_in_step();
}

void observe_shared_access(const void *address, std::size_t size, Access kind, const AccessSite *site)
{
    if (BlockRunner *runner = BlockRunner::running_kernel()) runner->observe_shared_access(address, size, kind, site);
}

void observe_global_access(const void *address, std::size_t size, Access kind, const AccessSite *site)
{
    if (BlockRunner *runner = BlockRunner::running_kernel()) runner->observe_global_access(address, size, kind, site);
}

void observe_atomic(const void *address, std::size_t size)
{
    if (BlockRunner *runner = BlockRunner::running_kernel()) runner->observe_atomic(address, size);
}

void observe_global_write(const void *address, std::size_t size, unsigned long long value_bits, ValueKind value_kind,
                          const AccessSite *site)
{
    if (BlockRunner *runner = BlockRunner::running_kernel())
        runner->observe_global_write(address, size, value_bits, value_kind, site);
}

// In a kernel, the running runner (a plain thread-local, read at every __shared__ declaration a
// thread passes: matrixMul's tiles are declared inside its loop); else the thread's own.
static BlockRunner &current_runner()
{
    BlockRunner *running = BlockRunner::running_kernel();
    return running ? *running : BlockRunner::for_this_thread();
}

void *dynamic_shared_memory() { return current_runner().arena().dynamic_base(); }

int new_shared_variable_id()
{
    static std::atomic<int> next_id{0};
    return next_id.fetch_add(1, std::memory_order_relaxed);
}

void *shared_variable(int id, std::size_t size, std::size_t natural_align, std::size_t align)
{
    return current_runner().arena().variable(id, size, natural_align, align);
}

}  // namespace cudaemu
