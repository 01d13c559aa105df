#include "engine/race_detector.h"

#include <algorithm>


#include "engine/grid_run.h"
#include "reports/race_report.h"

namespace cudaemu {
namespace {
// Logs not in use; never freed, as the memory registry is not.
std::mutex &pool_mutex()
{
    static std::mutex mutex;
    return mutex;
}
std::vector<GlobalWriteLog *> &pool()
{
    static auto *logs = new std::vector<GlobalWriteLog *>;
    return *logs;
}

uint3 thread_of(const GridRun &grid, unsigned int linear)
{
    return uint3{linear % grid.block.x, (linear / grid.block.x) % grid.block.y, linear / (grid.block.x * grid.block.y)};
}
uint3 block_of(const GridRun &grid, std::uint64_t linear)
{
    return uint3{(unsigned int)(linear % grid.grid.x), (unsigned int)((linear / grid.grid.x) % grid.grid.y),
                 (unsigned int)(linear / ((std::uint64_t)grid.grid.x * grid.grid.y))};
}
}  // namespace

// ---- Shared memory.
void SharedRaceShadow::begin_block(std::size_t arena_bytes, unsigned int warps)
{
    arena_bytes_ = arena_bytes;
    warp_epochs_.assign(warps, 0);
    ++epoch_;  // every entry of the previous block is now stale
}

// Two accesses of one epoch conflict unless a warp-wide sync of their warp came between.
bool SharedRaceShadow::unordered(const Touch &earlier, unsigned int thread) const
{
    if (earlier.thread == kNobody || earlier.thread == thread) return false;
    unsigned int warp = thread / 32;
    return earlier.thread / 32 != warp || warp_epochs_[warp] == earlier.warp_epoch;
}

void SharedRaceShadow::access(const GridRun &grid, uint3 block, unsigned int thread, std::size_t offset,
                              Access kind, const AccessSite *site)
{
    if (__builtin_expect(offset >= entries_.size(), 0)) {
        // Grown to the bytes blocks use, not the whole arena: zeroing 56 bytes for each of its
        // 228 KiB cost a small program more than its kernels.
        if (offset >= arena_bytes_) return;
        entries_.resize(std::min(arena_bytes_, (offset + 4096) & ~(std::size_t)4095));
    }
    Entry &entry = entries_[offset];
    if (entry.epoch != epoch_) entry = Entry{epoch_, Touch{}, Touch{}, Touch{}};
    // A store of the value already there is a read to every other thread: it conflicts with
    // their stores, not with their reads.
    bool reads = kind != Access::Write, writes = kind == Access::Write || kind == Access::Update;
    const Touch *conflict = nullptr;
    if (unordered(entry.writer, thread))
        conflict = &entry.writer;
    else if (writes && unordered(entry.reader, thread))
        conflict = &entry.reader;
    else if (writes && unordered(entry.second_reader, thread))
        conflict = &entry.second_reader;
    if (__builtin_expect(conflict != nullptr, 0)) {
        // The parties are worked out only here: dividing out thread indexes on every access
        // cost more than the rest of the check.
        RaceParty now{thread_of(grid, thread), block, kind, site, 0, 0, ValueKind::Other};
        RaceParty before{thread_of(grid, conflict->thread), block, conflict->kind, conflict->site, 0, 0,
                         ValueKind::Other};
        report_shared_race(grid, now, before);
    }
    const Touch touch{thread, warp_epochs_[thread / 32], site, kind};
    if (writes) entry.writer = touch;
    if (reads) {
        // Two readers are enough: any later writer differs from at least one of them.
        if (entry.reader.thread == kNobody || entry.reader.thread == thread)
            entry.reader = touch;
        else if (entry.second_reader.thread == kNobody || entry.second_reader.thread == thread)
            entry.second_reader = touch;
    }
}

// ---- Global memory.
void GlobalWriteLog::write(const GridRun &grid, uint3 block, std::uint64_t block_linear, unsigned int thread,
                           std::uint32_t epoch, std::uint32_t grid_phase, const void *address, std::size_t size,
                           unsigned long long bits, ValueKind value_kind, const AccessSite *site)
{
    std::uintptr_t key = reinterpret_cast<std::uintptr_t>(address);
    Shard &shard = shards_[(key >> 16) % kShards];  // 64 KiB of consecutive addresses a shard
    while (shard.busy.test_and_set(std::memory_order_acquire)) {
    }
    struct Unlock {
        Shard &shard;
        ~Unlock() { shard.busy.clear(std::memory_order_release); }
    } unlock{shard};
    const Store store{block_linear, thread, epoch, grid_phase, bits, site, value_kind};
    bool added = false;
    Store &before = *shard.find_or_add(key, launch_, store, &added);
    if (added) return;
    bool ordered = before.grid_phase != grid_phase ||
                   (before.block == block_linear && (before.thread == thread || before.epoch != epoch));
    if (!ordered && before.bits != bits) {
        RaceParty now{thread_of(grid, thread), block, Access::Write, site, bits, size, value_kind};
        RaceParty earlier{thread_of(grid, before.thread), block_of(grid, before.block), Access::Write, before.site,
                          before.bits, size, before.value_kind};
        report_global_race(grid, address, now, earlier);
    }
    // The same value again keeps the first store's author, so a third, different value is
    // reported against the store it actually conflicts with.
    if (ordered) before = store;
}

GlobalWriteLog *GlobalWriteLog::take(std::uint64_t launch_number)
{
    GlobalWriteLog *log = nullptr;
    {
        std::lock_guard<std::mutex> lock(pool_mutex());
        if (!pool().empty()) {
            log = pool().back();
            pool().pop_back();
        }
    }
    if (!log) log = new GlobalWriteLog;
    log->launch_ = launch_number + 1;  // never 0, the launch of a slot never used
    for (Shard &shard : log->shards_) shard.used = 0;
    return log;
}

void GlobalWriteLog::give_back(GlobalWriteLog *log)
{
    std::lock_guard<std::mutex> lock(pool_mutex());
    pool().push_back(log);
}

// Within one launch slots are only ever claimed, so the first free slot on an address's
// probe sequence ends the search for it.
GlobalWriteLog::Store *GlobalWriteLog::Shard::find_or_add(std::uintptr_t address, std::uint64_t launch,
                                                         const Store &store, bool *added)
{
    if (2 * (used + 1) > slots.size()) grow(launch);
    std::size_t mask = slots.size() - 1;
    // A shard holds 64 KiB runs of addresses 4 MiB apart (write() deals them round-robin): the
    // run's number picks a 16 Ki-slot stretch of the table and the word within the run its slot,
    // so consecutive stores stay on consecutive slots and two runs never pile onto the same
    // slots (indexed by the address alone they did: a 4M-element kernel then took minutes).
    std::size_t start = (std::size_t)(((address >> 22) << 14) + ((address >> 2) & 0x3FFF));
    for (std::size_t i = start & mask;; i = (i + 1) & mask) {
        Slot &slot = slots[i];
        if (slot.launch != launch) {
            slot = Slot{address, launch, store};
            ++used;
            *added = true;
            return &slot.store;
        }
        if (slot.address == address) return &slot.store;
    }
}

void GlobalWriteLog::Shard::grow(std::uint64_t launch)
{
    std::vector<Slot> old(slots.empty() ? 256 : 2 * slots.size());
    old.swap(slots);
    used = 0;
    bool added = false;
    for (const Slot &slot : old)
        if (slot.launch == launch) find_or_add(slot.address, launch, slot.store, &added);
}
}  // namespace cudaemu
