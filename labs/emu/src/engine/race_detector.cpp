#include "engine/race_detector.h"


#include "engine/grid_run.h"
#include "reports/race_report.h"

namespace cudaemu {
namespace {
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
    if (entries_.size() < arena_bytes) entries_.resize(arena_bytes);
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
    if (offset >= entries_.size()) return;
    Entry &entry = entries_[offset];
    if (entry.epoch != epoch_) entry = Entry{epoch_, Touch{}, Touch{}, Touch{}};
    auto party = [&](const Touch &touch, Access touch_kind) {
        return RaceParty{thread_of(grid, touch.thread), block, touch_kind, touch.site, 0, 0, ValueKind::Other};
    };
    const RaceParty now{thread_of(grid, thread), block, kind, site, 0, 0, ValueKind::Other};
    // A store of the value already there is a read to every other thread: it conflicts with
    // their stores, not with their reads.
    bool reads = kind != Access::Write, writes = kind == Access::Write || kind == Access::Update;
    if (unordered(entry.writer, thread)) report_shared_race(grid, now, party(entry.writer, entry.writer.kind));
    if (writes) {
        if (unordered(entry.reader, thread)) report_shared_race(grid, now, party(entry.reader, entry.reader.kind));
        if (unordered(entry.second_reader, thread))
            report_shared_race(grid, now, party(entry.second_reader, entry.second_reader.kind));
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
                           std::uint32_t epoch, const void *address, std::size_t size, unsigned long long bits,
                           ValueKind value_kind, const AccessSite *site)
{
    std::uintptr_t key = reinterpret_cast<std::uintptr_t>(address);
    Shard &shard = shards_[(key >> 3) % kShards];
    std::lock_guard<std::mutex> lock(shard.mutex);
    auto found = shard.stores.find(key);
    const Store store{block_linear, thread, epoch, bits, site, value_kind};
    if (found == shard.stores.end()) {
        shard.stores.emplace(key, store);
        return;
    }
    Store &before = found->second;
    bool ordered = before.block == block_linear && (before.thread == thread || before.epoch != epoch);
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
}  // namespace cudaemu
