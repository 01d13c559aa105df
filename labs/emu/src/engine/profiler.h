// The kernel profile (EMU_PROFILE=1 for a table on stderr at exit, EMU_PROFILE=<path> for JSON):
// what Nsight Compute's memory metrics count, measured on the emulator's accesses.
//
// A warp's *request* is one source-level access executed by the lanes of a warp together. The
// emulator runs a warp's lanes one after another (fibers), so it regroups them: the k-th
// execution of an access site (as a load, a store or an atomic) by each lane of a warp is one
// request (lanes that skip a site, in an `if`, are not in its request). A warp's accesses are
// regrouped when its last lane returns, and at every __syncthreads() (all lanes are there), so k
// counts within one stretch between barriers.
//
// A thread keeps *runs*, not each access: a site's accesses one stride apart (a loop's
// `a[row * n + k]`, 4 bytes; `b[k * n + col]`, 4n), one open run a site in a small table of
// slots. The access hook continues a run inline where the address is the one it predicts
// (cuda_emu/memory_access.h: no call, so the kernel's loop keeps its registers); any other
// access reaches record(), which closes the run and starts one. Regrouping walks the lanes' runs
// of a site side by side, cut where any lane's run ends; where every lane has the same stride,
// the requests repeat as soon as the addresses are where they were modulo what the counts can
// tell (a 32-byte sector; in shared memory, where the stride is whole words, a 16-byte boundary:
// each word's bank turns with them), so one period is counted and the rest added
// (regroup_stretch); where each lane's run is lane 0's moved on by the lane's elements (data[i]),
// every request is one stretch of bytes, counted with no entries built (count_side_by_side). A
// regrouped run stays, emptied, at its first address: a thread's next stretch (or the next
// block's thread) mostly reads its shared tile from there again, or accesses the site elsewhere,
// where the hook starts the run over inline (memory_access.h: profile_run_restarts).
//
// For each request: global memory, the distinct 32-byte sectors the lanes touch (ncu's
// l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}) and the distinct bytes they ask for (ncu's
// smsp__sass_data_bytes_mem_global_op_{ld,st}: one address many lanes read counts once, and a
// float4's four members read one by one count as the one 16-byte load nvcc makes of them);
// shared memory, the wavefronts it takes with 32 banks of 4 bytes: per bank, the distinct
// 4-byte words asked for (one word read by many lanes is a broadcast); 8-byte accesses run as
// two half-warps and 16-byte ones as four quarter-warps, as the hardware splits them, except
// that the two quarters of a half-warp that each read one 16-byte address take one wavefront
// together (measured with ncu on an H200, labs/emu/scripts/ncu_compare.py: the tiled product's
// LDS.128 of Ablock[ty][k..k+3], one address for each 16 lanes, takes 2 wavefronts; apsp's
// left_t[k][4ty..] 2, its right[k][4tx..] 4). Bank conflicts = wavefronts - the phases a request needs (ncu's
// l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}).
//
// What the compiler makes of the source, modelled for its common case: four 4-byte shared loads
// of one site by the same lanes, each lane reading the word after the one it read before, from a
// 16-byte boundary (`tile[tx][k]`, k = 0..3 of an unrolled loop), are one 16-byte load, as nvcc
// merges them into one LDS.128. A load the compiler keeps in a register, or stores it splits
// across the copies of an unrolled loop, are counted as the source has them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuda_emu/memory_access.h"
#include "cuda_runtime.h"

// The profiler's own bookkeeping is the emulator's, not the student's: AddressSanitizer (in the
// ASan build of the runtime) has nothing to find there, and would double its cost.
#define CUDAEMU_NO_ASAN __attribute__((no_sanitize("address")))

namespace cudaemu {

enum class Space : unsigned char { Global, Shared };
enum class Op : unsigned char { Load, Store, Atomic };

// One access kind at one site, summed over warps.
struct AccessCounts {
    std::uint64_t requests = 0;    // warp-level requests
    std::uint64_t accesses = 0;    // lane-level accesses
    std::uint64_t bytes = 0;
    std::uint64_t sectors = 0;     // global: 32-byte sectors touched, per request summed
    std::uint64_t data_bytes = 0;  // global: the distinct bytes the lanes ask for, per request summed
    std::uint64_t wavefronts = 0;  // shared: wavefronts
    std::uint64_t conflicts = 0;   // shared: wavefronts beyond the ones the request needs
    void add(const AccessCounts &other);
};

struct SiteProfile {
    const AccessSite *site = nullptr;
    AccessCounts global_load, global_store, shared_load, shared_store, global_atomic, shared_atomic;
    void add(const SiteProfile &other);
};

// One launch, as its blocks fill it in (each merges its own counts at its end).
struct LaunchProfile {
    std::string kernel;
    std::string file;
    int line = 0;
    bool harness = false;             // launched from the harness's own code (CUDAEMU_HARNESS)
    int device = 0;
    dim3 grid{1, 1, 1}, block{1, 1, 1};
    std::uint64_t threads = 0;        // CUDA threads run
    std::uint64_t barriers = 0;       // __syncthreads() passed, summed over blocks
    std::uint64_t wmma = 0;           // wmma::mma_sync calls, one per warp
    std::uint16_t writer = 0;         // this kernel, as a writer of device memory (memory_owners.h)
    std::mutex mutex;                 // blocks merge under it
    std::vector<SiteProfile> sites;   // in the order first seen
    std::unordered_map<const AccessSite *, std::size_t> site_index;
    // Sites without a source line: atomics (the header's functions know no line).
    SiteProfile unsited;
};

// A launch begins and ends (api/launch.cpp): the profile keeps the launch once it has run.
LaunchProfile *profile_begin_launch(const char *kernel, const char *file, int line, bool harness, int device, dim3 grid,
                                    dim3 block);
void profile_end_launch(LaunchProfile *launch);

// What one CPU thread's runner records while it runs a block of a profiled launch.
class WarpRecorder {
public:
    void begin_block(LaunchProfile *launch, unsigned int threads);
    // A thread's open runs (cuda_emu/memory_access.h's fast path continues them inline): slot by
    // slot, each slot's runs of all threads side by side, so that a warp's lanes write and the
    // regrouping reads a few adjacent cache lines (kProfileRunRow apart).
    ProfileRun *open_runs(unsigned int thread) { return open_.get() + thread; }
    ProfileRun &open_run(unsigned int thread, unsigned int slot) { return open_[slot * kProfileRunRow + thread]; }
    // An access the fast path did not take: it continues its site's run, or starts one.
    CUDAEMU_NO_ASAN void record(unsigned int thread, const AccessSite *site, std::uintptr_t address,
                                std::uint32_t size, Space space, Op op)
    {
        std::uintptr_t key = profile_run_key(site, (unsigned)op);
        unsigned slot = profile_run_slot(site, (unsigned)op);
        ProfileRun &run = open_run(thread, slot);
        if (run.key == key && run.size == size && run.space == (unsigned char)space) {
            if (run.next == address) {
                run.next += run.stride;
                ++run.count;
                return;
            }
            if (run.count == 1) {  // the second access gives the stride
                run.stride = (std::intptr_t)(address - (run.next - run.stride));
                run.next = address + run.stride;
                run.count = 2;
                return;
            }
        }
        if (run.count) {
            closed_[thread].push(run);
            ++closed_count_;
        }
        // Until a second access, the run is of one address (stride 0).
        run = ProfileRun{key, address, 0, 1, (std::uint16_t)size, (unsigned char)space};
        open_slots_[thread] |= 1u << slot;
        if (__builtin_expect(closed_count_ > kFlushRuns, 0)) flush_all();
    }
    void flush_warp(unsigned int warp);
    void flush_all();
    void barrier_passed() { ++barriers_; }
    void warp_matrix_op() { ++wmma_; }
    void end_block();

private:
    // One lane's access of a request, as count_request reads it.
    struct Entry {
        const AccessSite *site;
        std::uintptr_t address;
        std::uint32_t size;
        Space space;
        Op op;
    };
    // A thread's closed runs in order: a plain growing array (no std::vector, whose out-of-line
    // code the ASan build would instrument).
    class Runs {
    public:
        Runs() = default;
        Runs(const Runs &) = delete;
        Runs &operator=(const Runs &) = delete;
        ~Runs() { std::free(data_); }
        CUDAEMU_NO_ASAN void push(const ProfileRun &run)
        {
            if (__builtin_expect(size_ == capacity_, 0)) grow();
            data_[size_++] = run;
        }
        std::size_t size() const { return size_; }
        const ProfileRun &operator[](std::size_t i) const { return data_[i]; }
        void clear() { size_ = 0; }

    private:
        void grow()
        {
            capacity_ = capacity_ ? capacity_ * 2 : 16;
            data_ = static_cast<ProfileRun *>(std::realloc(data_, capacity_ * sizeof(ProfileRun)));
            if (!data_) std::abort();
        }
        ProfileRun *data_ = nullptr;
        std::size_t size_ = 0, capacity_ = 0;
    };
    struct Lane {
        unsigned int lane;
        const Entry *entry;
    };
    static std::uint64_t distinct_bytes(const Lane *lanes, std::size_t count);
    // Where one lane is in its runs of the key being regrouped.
    struct Cursor {
        unsigned int lane;
        const ProfileRun *const *run;  // into the warp's sorted runs
        const ProfileRun *const *end;
        std::uint32_t offset;          // accesses of *run already regrouped
    };
    static constexpr std::size_t kFlushRuns = std::size_t(1) << 20;  // bounds the runs' memory

    // Four 4-byte shared loads that may become one 16-byte load, as the first three wait.
    struct LoadChain {
        const AccessSite *site;
        unsigned int length;  // loads so far, 1 to 3
        std::size_t count;    // lanes
        unsigned int lanes[32];
        Entry entries[32];    // each lane's first load, copied
    };
    static constexpr unsigned int kMergedLoads = 4;

    static const AccessSite *run_site(const ProfileRun &run)
    {
        return reinterpret_cast<const AccessSite *>(run.key & ~std::uintptr_t(7));
    }
    static Op run_op(const ProfileRun &run) { return Op((run.key >> 1) & 3); }
    // A regrouped run stays, emptied, where it began: the next stretch of a thread (after a
    // barrier, or the next block's thread on this CPU thread) mostly reads its shared memory from
    // there again, and the fast path takes it from the first access.
    static void empty_run(ProfileRun &run)
    {
        run.next = run.first();
        run.count = 0;
    }
    bool regroup_open_runs(unsigned int first_thread, unsigned int lanes);
    void regroup_all_runs(unsigned int first_thread, unsigned int lanes);
    bool count_side_by_side(const ProfileRun &lane0, unsigned int lanes);
    void regroup_key(Cursor *cursors, std::size_t lanes);
    void regroup_stretch(const Cursor *active, std::size_t count, std::uint64_t length);
    void mark_owners(const ProfileRun &run);
    void mark_range(std::uintptr_t address, std::uintptr_t bytes);
    void flush_marks();
    LoadChain *chain_of(const AccessSite *site);
    static bool chain_moved(const LoadChain &before, const LoadChain &now, std::intptr_t shift);
    void request(const Lane *lanes, std::size_t count);
    void count_request(const Lane *lanes, std::size_t count);
    bool extends(const LoadChain &chain, const Lane *lanes, std::size_t count) const;
    void count_chain(LoadChain &chain, std::uint32_t size, unsigned int loads);
    void flush_chains();
    SiteProfile &site_of(const AccessSite *site);

    LaunchProfile *launch_ = nullptr;
    unsigned int threads_ = 0;
    std::unique_ptr<ProfileRun[]> open_;          // kProfileRunSlots rows of kProfileRunRow
    std::unique_ptr<std::uint32_t[]> open_slots_;  // a thread's slots in use, one bit each
    std::unique_ptr<Runs[]> closed_;
    std::size_t thread_capacity_ = 0;
    std::size_t closed_count_ = 0;
    std::uintptr_t marked_start_ = 0, marked_end_ = 0;  // a range of stores not yet marked
    std::uint64_t barriers_ = 0;
    std::uint64_t wmma_ = 0;
    std::vector<SiteProfile> sites_;
    std::unordered_map<const AccessSite *, std::size_t> site_index_;
    const AccessSite *last_site_ = nullptr;  // the site of the last request, and its index
    std::size_t last_index_ = 0;
    SiteProfile unsited_;
    std::vector<std::uintptr_t> scratch_;
    // The runs of the warp being flushed, by key (site, kind, space), then lane.
    struct KeyRuns {
        std::uintptr_t key;
        unsigned char space;
        std::size_t runs;  // how many; then where they end in sorted_
    };
    std::vector<KeyRuns> keys_;
    std::vector<std::uint32_t> key_of_run_;
    std::vector<const ProfileRun *> sorted_;
    std::vector<unsigned int> lane_of_;
    std::vector<LoadChain> chains_;  // of the warp being flushed
};

}  // namespace cudaemu
