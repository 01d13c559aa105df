// The kernel profile (EMU_PROFILE=1 for a table on stderr at exit, EMU_PROFILE=<path> for JSON):
// what Nsight Compute's memory metrics count, measured on the emulator's accesses.
//
// A warp's *request* is one source-level access executed by the lanes of a warp together. The
// emulator runs a warp's lanes one after another (fibers), so it regroups them: each lane's
// accesses are logged in order, and the k-th execution of an access site by each lane of a warp
// is one request (lanes that skip a site, in an `if`, are not in its request). A warp's logs are
// regrouped when its last lane returns, and at every __syncthreads() (all lanes are there), so a
// log holds one stretch between barriers. When every lane logged the same sites in the same
// order (no divergence), position i of each lane's log is one request; otherwise requests are
// grouped by (site, k), k counted within the stretch.
//
// For each request: global memory, the distinct 32-byte sectors the lanes touch (ncu's
// l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}); shared memory, the wavefronts it takes with
// 32 banks of 4 bytes: per bank, the distinct 4-byte words asked for (one word read by many
// lanes is a broadcast); 8-byte accesses run as two half-warps and 16-byte ones as four
// quarter-warps, as the hardware splits them, except that the two quarters of a half-warp that
// each read one 16-byte address take one wavefront together (measured with ncu on an H200,
// labs/emu/scripts/ncu_compare.py: the tiled product's LDS.128 of Ablock[ty][k..k+3], one
// address for each 16 lanes, takes 2 wavefronts; apsp's left_t[k][4ty..] 2, its right[k][4tx..]
// 4). Bank conflicts = wavefronts - the phases a request needs (ncu's
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
LaunchProfile *profile_begin_launch(const char *kernel, const char *file, int line, int device, dim3 grid, dim3 block);
void profile_end_launch(LaunchProfile *launch);

// What one CPU thread's runner logs while it runs a block of a profiled launch.
class WarpRecorder {
public:
    void begin_block(LaunchProfile *launch, unsigned int threads);
    CUDAEMU_NO_ASAN void record(unsigned int thread, const AccessSite *site, std::uintptr_t address,
                                std::uint32_t size, Space space, Op op)
    {
        logs_[thread].push(Entry{site, address, size, space, op});
        if (__builtin_expect(++logged_ > kFlushEntries, 0)) flush_all();
    }
    void flush_warp(unsigned int warp);
    void flush_all();
    void barrier_passed() { ++barriers_; }
    void warp_matrix_op() { ++wmma_; }
    void end_block();

private:
    struct Entry {
        const AccessSite *site;
        std::uintptr_t address;
        std::uint32_t size;
        Space space;
        Op op;
    };
    // One thread's accesses in order: a plain growing array (no std::vector, whose out-of-line
    // code the ASan build would instrument on every access).
    class Log {
    public:
        Log() = default;
        Log(const Log &) = delete;
        Log &operator=(const Log &) = delete;
        ~Log() { std::free(data_); }
        CUDAEMU_NO_ASAN void push(const Entry &entry)
        {
            if (__builtin_expect(size_ == capacity_, 0)) grow();
            data_[size_++] = entry;
        }
        std::size_t size() const { return size_; }
        bool empty() const { return size_ == 0; }
        const Entry &operator[](std::size_t i) const { return data_[i]; }
        const Entry *begin() const { return data_; }
        const Entry *end() const { return data_ + size_; }
        void clear() { size_ = 0; }

    private:
        void grow()
        {
            capacity_ = capacity_ ? capacity_ * 2 : 64;
            data_ = static_cast<Entry *>(std::realloc(data_, capacity_ * sizeof(Entry)));
            if (!data_) std::abort();
        }
        Entry *data_ = nullptr;
        std::size_t size_ = 0, capacity_ = 0;
    };
    struct Lane {
        unsigned int lane;
        const Entry *entry;
    };
    static constexpr std::size_t kFlushEntries = std::size_t(1) << 20;  // bounds the logs' memory

    // Four 4-byte shared loads that may become one 16-byte load, as the first three wait.
    struct LoadChain {
        const AccessSite *site;
        unsigned int length;  // loads so far, 1 to 3
        std::size_t count;    // lanes
        unsigned int lanes[32];
        Entry entries[32];    // each lane's first load, copied (the chain outlives the logs)
    };
    static constexpr unsigned int kMergedLoads = 4;

    void request(const Lane *lanes, std::size_t count);
    void count_request(const Lane *lanes, std::size_t count);
    bool extends(const LoadChain &chain, const Lane *lanes, std::size_t count) const;
    void count_chain(LoadChain &chain, std::uint32_t size, unsigned int loads);
    void flush_chains();
    SiteProfile &site_of(const AccessSite *site);
    void flush_divergent(unsigned int first_thread, unsigned int lanes);

    LaunchProfile *launch_ = nullptr;
    unsigned int threads_ = 0;
    std::unique_ptr<Log[]> logs_;
    std::size_t log_count_ = 0;
    std::size_t logged_ = 0;
    std::uint64_t barriers_ = 0;
    std::uint64_t wmma_ = 0;
    std::vector<SiteProfile> sites_;
    std::unordered_map<const AccessSite *, std::size_t> site_index_;
    const AccessSite *last_site_ = nullptr;  // the site of the last request, and its index
    std::size_t last_index_ = 0;
    SiteProfile unsited_;
    std::vector<std::uintptr_t> scratch_;
    struct Keyed {
        const AccessSite *site;
        Op op;
        std::uint32_t occurrence;
        unsigned int lane;
        const Entry *entry;
    };
    std::vector<Keyed> keyed_;
    std::vector<LoadChain> chains_;  // of the warp being flushed
};

}  // namespace cudaemu
