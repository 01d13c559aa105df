// The warp-request regrouping of profiler.h, and the store of finished launches.
#include "engine/profiler.h"

#include <algorithm>

#include "api/memory_owners.h"

namespace cudaemu {

void AccessCounts::add(const AccessCounts &other)
{
    requests += other.requests;
    accesses += other.accesses;
    bytes += other.bytes;
    sectors += other.sectors;
    wavefronts += other.wavefronts;
    conflicts += other.conflicts;
}

void SiteProfile::add(const SiteProfile &other)
{
    global_load.add(other.global_load);
    global_store.add(other.global_store);
    shared_load.add(other.shared_load);
    shared_store.add(other.shared_store);
    global_atomic.add(other.global_atomic);
    shared_atomic.add(other.shared_atomic);
}

void WarpRecorder::begin_block(LaunchProfile *launch, unsigned int threads)
{
    launch_ = launch;
    threads_ = threads;
    if (log_count_ < threads) {
        logs_.reset(new Log[threads]);
        log_count_ = threads;
    }
    logged_ = 0;
    barriers_ = 0;
    wmma_ = 0;
}

CUDAEMU_NO_ASAN SiteProfile &WarpRecorder::site_of(const AccessSite *site)
{
    if (!site) return unsited_;
    if (site == last_site_ && last_index_ < sites_.size()) return sites_[last_index_];
    auto found = site_index_.find(site);
    last_site_ = site;
    if (found != site_index_.end()) {
        last_index_ = found->second;
        return sites_[found->second];
    }
    last_index_ = sites_.size();
    site_index_.emplace(site, sites_.size());
    sites_.emplace_back();
    sites_.back().site = site;
    return sites_.back();
}

namespace {
// Distinct values among the first `count` of `values` (sorted in place).
CUDAEMU_NO_ASAN std::size_t distinct(std::uintptr_t *values, std::size_t count)
{
    std::sort(values, values + count);
    return (std::size_t)(std::unique(values, values + count) - values);
}

// What the lanes `first_lane` .. `first_lane + lanes - 1` of a shared-memory request ask for, each
// `size` bytes: the wavefronts they take (a bank serves one distinct 4-byte word per wavefront,
// a word many lanes read is a broadcast), 0 when none of them is in the request; and whether
// they all ask for one address.
struct PhaseCost {
    unsigned int wavefronts = 0;
    bool one_address = true;
};
CUDAEMU_NO_ASAN PhaseCost phase_cost(const std::uintptr_t *addresses, const unsigned int *lanes, std::size_t count,
                                     std::uint32_t size, unsigned int first_lane, unsigned int phase_lanes)
{
    PhaseCost cost;
    std::uintptr_t words[32][32];
    unsigned char used[32] = {};
    const std::uintptr_t *seen_address = nullptr;
    for (std::size_t i = 0; i < count; ++i) {
        if (lanes[i] < first_lane || lanes[i] >= first_lane + phase_lanes) continue;
        if (seen_address && *seen_address != addresses[i]) cost.one_address = false;
        seen_address = &addresses[i];
        std::uintptr_t first = addresses[i] >> 2, last = (addresses[i] + (size ? size : 1) - 1) >> 2;
        for (std::uintptr_t word = first; word <= last && word < first + 32; ++word) {
            unsigned int bank = (unsigned int)(word & 31);
            bool seen = false;
            for (unsigned int k = 0; k < used[bank]; ++k) seen = seen || words[bank][k] == word;
            if (!seen && used[bank] < 32) {
                words[bank][used[bank]++] = word;
                cost.wavefronts = std::max<unsigned int>(cost.wavefronts, used[bank]);
            }
        }
    }
    return cost;
}

// Wavefronts of one shared-memory request (profiler.h): 4-byte accesses in one phase of 32
// lanes, 8-byte ones in two half-warps, 16-byte ones in four quarter-warps, except that the two
// quarters of a half-warp that each ask for one 16-byte address are served together.
// *phases: the wavefronts the request needs with no bank conflict.
CUDAEMU_NO_ASAN std::uint64_t shared_wavefronts(const std::uintptr_t *addresses, const unsigned int *lanes, std::size_t count,
                                std::uint32_t size, std::uint64_t *phases)
{
    std::uint64_t total = 0;
    *phases = 0;
    const unsigned int phase_lanes = size <= 4 ? 32 : size <= 8 ? 16 : 8;
    for (unsigned int first = 0; first < 32; first += phase_lanes) {
        PhaseCost cost = phase_cost(addresses, lanes, count, size, first, phase_lanes);
        if (size > 8 && first % 16 == 0) {
            PhaseCost next = phase_cost(addresses, lanes, count, size, first + 8, 8);
            if (cost.wavefronts && next.wavefronts && cost.one_address && next.one_address) {
                total += phase_cost(addresses, lanes, count, size, first, 16).wavefronts;
                *phases += 1;
                first += 8;  // both quarters done
                continue;
            }
        }
        if (cost.wavefronts) {
            total += cost.wavefronts;
            *phases += 1;
        }
    }
    return total;
}
}  // namespace

// How the lanes' addresses lie: the common patterns are counted without sorting.
enum class Pattern { Scattered, Contiguous, Uniform };

// One request: the lanes of a warp at one execution of one site; a 4-byte shared load may wait
// for the three that make it a 16-byte one (profiler.h).
CUDAEMU_NO_ASAN void WarpRecorder::request(const Lane *lanes, std::size_t count)
{
    const Entry &first = *lanes[0].entry;
    if (first.space != Space::Shared || first.op != Op::Load || first.size != 4 || count > 32) {
        count_request(lanes, count);
        return;
    }
    for (std::size_t c = 0; c < chains_.size(); ++c) {
        LoadChain &chain = chains_[c];
        if (chain.site != first.site) continue;
        if (extends(chain, lanes, count)) {
            if (++chain.length == kMergedLoads) {
                count_chain(chain, 16, 1);
                chains_.erase(chains_.begin() + (std::ptrdiff_t)c);
            }
            return;
        }
        count_chain(chain, 4, chain.length);
        chains_.erase(chains_.begin() + (std::ptrdiff_t)c);
        break;
    }
    for (std::size_t i = 0; i < count; ++i)
        if (lanes[i].entry->address % 16 != 0) {
            count_request(lanes, count);
            return;
        }
    chains_.emplace_back();
    LoadChain &chain = chains_.back();
    chain.site = first.site;
    chain.length = 1;
    chain.count = count;
    for (std::size_t i = 0; i < count; ++i) {
        chain.entries[i] = *lanes[i].entry;
        chain.lanes[i] = lanes[i].lane;
    }
}

// Whether a load continues the chain: the same lanes, each at the word after its last one.
CUDAEMU_NO_ASAN bool WarpRecorder::extends(const LoadChain &chain, const Lane *lanes, std::size_t count) const
{
    if (count != chain.count) return false;
    for (std::size_t i = 0; i < count; ++i)
        if (lanes[i].lane != chain.lanes[i] ||
            lanes[i].entry->address != chain.entries[i].address + 4 * (std::uintptr_t)chain.length)
            return false;
    return true;
}

// A chain counted as one load of `size` bytes a lane (merged), or as its `loads` 4-byte ones.
CUDAEMU_NO_ASAN void WarpRecorder::count_chain(LoadChain &chain, std::uint32_t size, unsigned int loads)
{
    Lane group[32];
    for (std::size_t i = 0; i < chain.count; ++i) group[i] = Lane{chain.lanes[i], &chain.entries[i]};
    for (unsigned int load = 0; load < loads; ++load) {
        for (std::size_t i = 0; i < chain.count; ++i) {
            chain.entries[i].size = size;
            if (load > 0) chain.entries[i].address += 4;
        }
        count_request(group, chain.count);
    }
}

CUDAEMU_NO_ASAN void WarpRecorder::flush_chains()
{
    for (LoadChain &chain : chains_) count_chain(chain, 4, chain.length);
    chains_.clear();
}

CUDAEMU_NO_ASAN void WarpRecorder::count_request(const Lane *lanes, std::size_t count)
{
    const Entry &first = *lanes[0].entry;
    SiteProfile &site = site_of(first.site);
    Pattern pattern;
    bool uniform = true, contiguous = true, gapless = true;
    for (std::size_t i = 1; i < count && (uniform || contiguous); ++i) {
        const Entry &e = *lanes[i].entry;
        uniform = uniform && e.address == first.address && e.size == first.size;
        contiguous = contiguous && e.size == first.size && lanes[i].lane > lanes[i - 1].lane &&
                     e.address == first.address + (std::uintptr_t)(lanes[i].lane - lanes[0].lane) * first.size;
        gapless = gapless && lanes[i].lane == lanes[i - 1].lane + 1;
    }
    pattern = uniform ? Pattern::Uniform : contiguous ? Pattern::Contiguous : Pattern::Scattered;
    if (first.op == Op::Atomic) {
        AccessCounts &counts = first.space == Space::Global ? site.global_atomic : site.shared_atomic;
        counts.requests += 1;
        counts.accesses += count;
        for (std::size_t i = 0; i < count; ++i) {
            counts.bytes += lanes[i].entry->size;
            if (first.space == Space::Global)
                owners_mark(lanes[i].entry->address, lanes[i].entry->size, launch_->writer);
        }
        return;
    }
    if (first.space == Space::Global && (pattern == Pattern::Uniform || (pattern == Pattern::Contiguous && gapless))) {
        // Every lane's bytes lie in one stretch, with no gap (lanes in a row) or all the same.
        AccessCounts &counts = first.op == Op::Load ? site.global_load : site.global_store;
        const Entry &last = *lanes[count - 1].entry;
        std::uintptr_t end = (pattern == Pattern::Uniform ? first.address : last.address) + first.size - 1;
        counts.requests += 1;
        counts.accesses += count;
        counts.bytes += (std::uint64_t)first.size * count;
        counts.sectors += (end >> 5) - (first.address >> 5) + 1;
        if (first.op == Op::Store)
            for (std::size_t i = 0; i < count; ++i) owners_mark(lanes[i].entry->address, first.size, launch_->writer);
        return;
    }
    if (first.space == Space::Global) {
        AccessCounts &counts = first.op == Op::Load ? site.global_load : site.global_store;
        scratch_.clear();
        std::uint64_t bytes = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const Entry &e = *lanes[i].entry;
            bytes += e.size;
            // Lanes side by side mostly share the previous lane's sector: kept once, the sort is short.
            for (std::uintptr_t sector = e.address >> 5; sector <= (e.address + e.size - 1) >> 5; ++sector)
                if (scratch_.empty() || scratch_.back() != sector) scratch_.push_back(sector);
            if (first.op == Op::Store) owners_mark(e.address, e.size, launch_->writer);
        }
        counts.requests += 1;
        counts.accesses += count;
        counts.bytes += bytes;
        counts.sectors += distinct(scratch_.data(), scratch_.size());
        return;
    }
    AccessCounts &counts = first.op == Op::Load ? site.shared_load : site.shared_store;
    if (pattern != Pattern::Scattered && first.size <= 8 && (first.address & (first.size - 1)) == 0) {
        // Consecutive aligned words, or one word for all: one wavefront per phase that has lanes.
        unsigned int phase_lanes = first.size <= 4 ? 32 : 16;
        std::uint64_t phases = 0;
        unsigned int previous = 32;
        for (std::size_t i = 0; i < count; ++i) {
            unsigned int phase = lanes[i].lane / phase_lanes;
            if (phase != previous) ++phases;
            previous = phase;
        }
        counts.requests += 1;
        counts.accesses += count;
        counts.bytes += (std::uint64_t)first.size * count;
        counts.wavefronts += phases;
        return;
    }
    std::uintptr_t addresses[32];
    unsigned int lane_numbers[32];
    std::uint64_t bytes = 0, phases = 0;
    std::size_t n = std::min<std::size_t>(count, 32);
    for (std::size_t i = 0; i < n; ++i) {
        addresses[i] = lanes[i].entry->address;
        lane_numbers[i] = lanes[i].lane;
        bytes += lanes[i].entry->size;
    }
    std::uint64_t wavefronts = shared_wavefronts(addresses, lane_numbers, n, first.size, &phases);
    counts.requests += 1;
    counts.accesses += count;
    counts.bytes += bytes;
    counts.wavefronts += wavefronts;
    counts.conflicts += wavefronts - phases;
}

CUDAEMU_NO_ASAN void WarpRecorder::flush_warp(unsigned int warp)
{
    unsigned int first_thread = warp * 32;
    if (first_thread >= threads_) return;
    unsigned int lanes = std::min(32u, threads_ - first_thread);
    // The common case: every lane that logged anything logged the same sites in the same order.
    const Log *reference = nullptr;
    bool aligned = true;
    for (unsigned int lane = 0; lane < lanes && aligned; ++lane) {
        const Log &log = logs_[first_thread + lane];
        if (log.empty()) continue;
        if (!reference) {
            reference = &log;
            continue;
        }
        if (log.size() != reference->size()) {
            aligned = false;
            break;
        }
        for (std::size_t i = 0; i < log.size(); ++i)
            if (log[i].site != (*reference)[i].site || log[i].op != (*reference)[i].op ||
                log[i].space != (*reference)[i].space) {
                aligned = false;
                break;
            }
    }
    if (!reference) return;
    if (!aligned) {
        flush_divergent(first_thread, lanes);
    } else {
        Lane group[32];
        for (std::size_t i = 0; i < reference->size(); ++i) {
            std::size_t count = 0;
            for (unsigned int lane = 0; lane < lanes; ++lane) {
                const Log &log = logs_[first_thread + lane];
                if (!log.empty()) group[count++] = Lane{lane, &log[i]};
            }
            request(group, count);
        }
    }
    flush_chains();
    for (unsigned int lane = 0; lane < lanes; ++lane) {
        logged_ -= std::min(logged_, logs_[first_thread + lane].size());
        logs_[first_thread + lane].clear();
    }
}

// Lanes that went different ways: the k-th execution of a site by each lane is one request.
CUDAEMU_NO_ASAN void WarpRecorder::flush_divergent(unsigned int first_thread, unsigned int lanes)
{
    keyed_.clear();
    std::vector<std::pair<std::pair<const AccessSite *, int>, std::uint32_t>> seen;
    for (unsigned int lane = 0; lane < lanes; ++lane) {
        seen.clear();
        for (const Entry &e : logs_[first_thread + lane]) {
            // The space is part of the key: one site may reach global and shared memory.
            std::pair<const AccessSite *, int> key{e.site, (int)e.op * 2 + (int)e.space};
            std::uint32_t occurrence = 0;
            bool found = false;
            for (auto &entry : seen)
                if (entry.first == key) {
                    occurrence = entry.second++;
                    found = true;
                    break;
                }
            if (!found) seen.push_back({key, 1});
            keyed_.push_back(Keyed{e.site, Op((int)e.op * 2 + (int)e.space), occurrence, lane, &e});
        }
    }
    std::sort(keyed_.begin(), keyed_.end(), [](const Keyed &a, const Keyed &b) {
        if (a.site != b.site) return a.site < b.site;
        if (a.op != b.op) return a.op < b.op;
        if (a.occurrence != b.occurrence) return a.occurrence < b.occurrence;
        return a.lane < b.lane;
    });
    Lane group[32];
    std::size_t count = 0;
    for (std::size_t i = 0; i < keyed_.size(); ++i) {
        group[count++] = Lane{keyed_[i].lane, keyed_[i].entry};
        bool last = i + 1 == keyed_.size() || keyed_[i + 1].site != keyed_[i].site || keyed_[i + 1].op != keyed_[i].op ||
                    keyed_[i + 1].occurrence != keyed_[i].occurrence || count == 32;
        if (last) {
            request(group, count);
            count = 0;
        }
    }
}

CUDAEMU_NO_ASAN void WarpRecorder::flush_all()
{
    for (unsigned int warp = 0; warp * 32 < threads_; ++warp) flush_warp(warp);
    logged_ = 0;
}

void WarpRecorder::end_block()
{
    flush_all();
    std::lock_guard<std::mutex> lock(launch_->mutex);
    for (const SiteProfile &site : sites_) {
        auto found = launch_->site_index.find(site.site);
        if (found == launch_->site_index.end()) {
            launch_->site_index.emplace(site.site, launch_->sites.size());
            launch_->sites.push_back(site);
        } else {
            launch_->sites[found->second].add(site);
        }
    }
    launch_->unsited.add(unsited_);
    launch_->threads += threads_;
    launch_->barriers += barriers_;
    launch_->wmma += wmma_;
    sites_.clear();
    site_index_.clear();
    last_site_ = nullptr;
    unsited_ = SiteProfile{};
    launch_ = nullptr;
}

}  // namespace cudaemu
