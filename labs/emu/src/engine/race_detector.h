// The race detector (EMU_RACECHECK=1). Deterministic: it does not wait for a schedule to go
// wrong, it looks at who touched what between barriers.
//
// Shared memory: a shadow entry per byte of the block's shared arena records, for the current
// epoch (the stretch between two barriers of the block), the thread that last wrote the byte
// and up to two threads that read it (or stored the value already there), with their sites. An access by another thread
// in the same epoch that conflicts (a write with anything, a read with a write) is a race,
// unless both threads are in one warp and a warp-wide sync (__syncwarp, a shuffle, a vote)
// has completed between them. Atomics never reach it: the rewriter leaves `&x` alone.
// A store that leaves the value as it was counts as a read: no thread can tell the two apart.
// Only the first byte of each access is looked at, which is exact for accesses that do not
// partly overlap (arrays indexed as declared).
//
// Global memory: per launch, the last value stored at each address and by whom. Another
// thread storing a different value there is a race (two stores of the same value, like the
// BFS lab's depths, are not), unless both are in one block with a __syncthreads() between, or
// a this_grid().sync() came between them.
//
// The first race found is reported (reports/race_report.cpp) and ends the program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <atomic>
#include <mutex>
#include <vector>

#include "cuda_emu/memory_access.h"
#include "cuda_runtime.h"

namespace cudaemu {
struct GridRun;

// The shadow of one CPU thread's shared arena; its BlockRunner drives the epochs.
class SharedRaceShadow {
public:
    void begin_block(std::size_t arena_bytes, unsigned int warps);
    void barrier() { ++epoch_; }
    void warp_synced(unsigned int warp) { ++warp_epochs_[warp]; }
    std::uint32_t epoch() const { return epoch_; }
    // An access by thread `thread` (linear in its block) at `offset` into the arena.
    void access(const GridRun &grid, uint3 block, unsigned int thread, std::size_t offset, Access kind,
                const AccessSite *site);

private:
    static constexpr std::uint32_t kNobody = 0xffffffffu;
    struct Touch {
        std::uint32_t thread = kNobody;
        std::uint32_t warp_epoch = 0;
        const AccessSite *site = nullptr;
        Access kind = Access::Read;
    };
    struct Entry {
        std::uint32_t epoch = 0;
        Touch writer, reader, second_reader;
    };
    bool unordered(const Touch &earlier, unsigned int thread) const;

    std::vector<Entry> entries_;  // grown on demand up to arena_bytes_
    std::size_t arena_bytes_ = 0;
    std::vector<std::uint32_t> warp_epochs_;
    std::uint32_t epoch_ = 0;
};

// The stores of one launch, shared by the CPU threads that run its blocks. Logs are kept
// between launches (take one at a launch, give it back after), so their tables are made once.
class GlobalWriteLog {
public:
    static GlobalWriteLog *take(std::uint64_t launch_number);
    static void give_back(GlobalWriteLog *log);

    // `epoch` orders stores within a block (its barriers), `grid_phase` across blocks (the
    // this_grid().sync() calls the block has passed).
    void write(const GridRun &grid, uint3 block, std::uint64_t block_linear, unsigned int thread,
               std::uint32_t epoch, std::uint32_t grid_phase, const void *address, std::size_t size,
               unsigned long long bits, ValueKind value_kind, const AccessSite *site);

private:
    struct Store {
        std::uint64_t block;
        std::uint32_t thread;
        std::uint32_t epoch;
        std::uint32_t grid_phase;
        unsigned long long bits;
        const AccessSite *site;
        ValueKind value_kind;
    };
    struct Slot {
        std::uintptr_t address;
        std::uint64_t launch;  // a slot of an earlier launch is free
        Store store;
    };
    // An open-addressing table (linear probing) behind a spin lock. Slots are indexed by the
    // address itself, so a kernel's stores to consecutive elements touch consecutive slots:
    // a hashed index (or a node-based map) missed the cache on nearly every store.
    struct Shard {
        std::atomic_flag busy = ATOMIC_FLAG_INIT;
        std::vector<Slot> slots;
        std::size_t used = 0;
        Store *find_or_add(std::uintptr_t address, std::uint64_t launch, const Store &store, bool *added);
        void grow(std::uint64_t launch);
    };
    std::uint64_t launch_ = 0;
    static constexpr std::size_t kShards = 64;
    Shard shards_[kShards];
};
}  // namespace cudaemu
