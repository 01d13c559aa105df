// The warp-request regrouping of profiler.h, and the store of finished launches.
#include "engine/profiler.h"

#include <algorithm>

#include "api/memory_owners.h"
#include "engine/device_limits.h"

namespace cudaemu {
static_assert(kProfileRunRow == kMaxThreadsPerBlock, "a slot's row of open runs holds one run for each thread of a block");

void AccessCounts::add(const AccessCounts &other)
{
    requests += other.requests;
    accesses += other.accesses;
    bytes += other.bytes;
    sectors += other.sectors;
    data_bytes += other.data_bytes;
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
    if (thread_capacity_ < threads) {
        // Made anew with the threads' slot bits below: a run is in use only where its bit says so.
        open_.reset(new ProfileRun[kProfileRunRow * kProfileRunSlots]);
        open_slots_.reset(new std::uint32_t[threads]());
        closed_.reset(new Runs[threads]);
        thread_capacity_ = threads;
    }
    closed_count_ = 0;
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

// The bytes a request's lanes ask for, each counted once: the union of their [address, address +
// size) ranges.
CUDAEMU_NO_ASAN std::uint64_t WarpRecorder::distinct_bytes(const Lane *lanes, std::size_t count)
{
    std::pair<std::uintptr_t, std::uintptr_t> ranges[32];
    std::size_t n = std::min<std::size_t>(count, 32);
    for (std::size_t i = 0; i < n; ++i)
        ranges[i] = {lanes[i].entry->address, lanes[i].entry->address + lanes[i].entry->size};
    std::sort(ranges, ranges + n);
    std::uint64_t bytes = 0;
    std::uintptr_t covered = 0;  // the end of the union so far
    for (std::size_t i = 0; i < n; ++i) {
        std::uintptr_t start = std::max(ranges[i].first, covered);
        if (ranges[i].second > start) bytes += ranges[i].second - start;
        covered = std::max(covered, ranges[i].second);
    }
    return bytes;
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
        for (std::size_t i = 0; i < count; ++i) counts.bytes += lanes[i].entry->size;
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
        counts.data_bytes += pattern == Pattern::Uniform ? first.size : (std::uint64_t)first.size * count;
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
        }
        counts.requests += 1;
        counts.accesses += count;
        counts.bytes += bytes;
        counts.sectors += distinct(scratch_.data(), scratch_.size());
        counts.data_bytes += distinct_bytes(lanes, count);
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

// ---- Regrouping a warp's runs into requests.
// Who wrote device memory (api/memory_owners.h), a run at a time: one range where the run is
// a row of adjacent elements.
// Ranges that follow one another (a warp's lanes storing side by side) go to owners_mark as one.
CUDAEMU_NO_ASAN void WarpRecorder::mark_range(std::uintptr_t address, std::uintptr_t bytes)
{
    if (address == marked_end_) {
        marked_end_ += bytes;
        return;
    }
    flush_marks();
    marked_start_ = address;
    marked_end_ = address + bytes;
}

void WarpRecorder::flush_marks()
{
    if (marked_end_ != marked_start_) owners_mark(marked_start_, marked_end_ - marked_start_, launch_->writer);
    marked_start_ = marked_end_ = 0;
}

CUDAEMU_NO_ASAN void WarpRecorder::mark_owners(const ProfileRun &run)
{
    if (run_op(run) == Op::Load || run.space != (unsigned char)Space::Global) return;
    const std::uintptr_t size = run.size;
    const std::uintptr_t first = run.first();
    if (run.stride == 0) {
        mark_range(first, size);
    } else if (run.stride == (std::intptr_t)size || run.stride == -(std::intptr_t)size) {
        mark_range(run.stride > 0 ? first : first - size * (run.count - 1), size * run.count);
    } else {
        for (std::uint32_t i = 0; i < run.count; ++i) mark_range(first + run.stride * i, size);
    }
}

CUDAEMU_NO_ASAN void WarpRecorder::flush_warp(unsigned int warp)
{
    unsigned int first_thread = warp * 32;
    if (first_thread >= threads_) return;
    unsigned int lanes = std::min(32u, threads_ - first_thread);
    if (regroup_open_runs(first_thread, lanes)) {
        flush_chains();
        flush_marks();
        return;
    }
    regroup_all_runs(first_thread, lanes);
    flush_chains();
    flush_marks();
    for (unsigned int lane = 0; lane < lanes; ++lane) {
        closed_count_ -= std::min(closed_count_, closed_[first_thread + lane].size());
        closed_[first_thread + lane].clear();
        for (std::uint32_t slots = open_slots_[first_thread + lane]; slots; slots &= slots - 1)
            empty_run(open_run(first_thread + lane, (unsigned int)__builtin_ctz(slots)));
    }
}

// The common case: no lane closed a run, and every lane's open runs are of the same sites in
// the same slots; the lanes of each slot are then its runs to regroup.
CUDAEMU_NO_ASAN bool WarpRecorder::regroup_open_runs(unsigned int first_thread, unsigned int lanes)
{
    const std::uint32_t slots = open_slots_[first_thread];
    for (unsigned int lane = 0; lane < lanes; ++lane)
        if (closed_[first_thread + lane].size() != 0 || open_slots_[first_thread + lane] != slots) return false;
    // Every slot's row is checked whole before any request is counted, and read for what its
    // regrouping needs, with nothing written: a warp of one access a lane (the increment lab)
    // has no more to do than this pass and count_side_by_side.
    struct Row {
        ProfileRun *runs;     // the row's lane 0
        unsigned int present; // lanes that made an access
        bool same_length;     // every such lane's run as long
        bool side_by_side;    // and every lane's run lane 0's, moved on by its number of elements
    };
    Row rows[kProfileRunSlots];
    unsigned int row_count = 0;
    for (std::uint32_t left = slots; left; left &= left - 1) {
        ProfileRun *row = &open_run(first_thread, (unsigned int)__builtin_ctz(left));
        const std::uintptr_t key = row->key;
        const unsigned char space = row->space;
        const std::uintptr_t first = row->first();
        unsigned int present = 0;
        std::uint32_t fewest = ~0u, most = 0;
        bool side_by_side = true;
        for (unsigned int lane = 0; lane < lanes; ++lane) {
            const ProfileRun &run = row[lane];
            if (run.key != key || run.space != space) return false;
            if (!run.count) continue;
            ++present;
            fewest = std::min(fewest, run.count);
            most = std::max(most, run.count);
            // (A run of one access has no stride yet: what it holds is left from an earlier run.)
            side_by_side = side_by_side && run.size == row->size && (run.count == 1 || run.stride == row->stride) &&
                           run.first() == first + (std::uintptr_t)lane * row->size;
        }
        rows[row_count++] = Row{row, present, fewest == most, side_by_side && present == lanes && fewest == most};
    }
    for (unsigned int r = 0; r < row_count; ++r) {
        ProfileRun *row = rows[r].runs;
        if (!rows[r].present) continue;
        // Counted here where it can be, whatever the run's length; else regrouped below.
        const bool counted = rows[r].side_by_side && count_side_by_side(*row, lanes);
        if (counted && row->count == 1) {
            // One access a lane, side by side: one range of stores, as mark_owners would mark lane by lane.
            if (run_op(*row) != Op::Load && row->space == (unsigned char)Space::Global)
                mark_range(row->first(), (std::uintptr_t)lanes * row->size);
            for (unsigned int lane = 0; lane < lanes; ++lane) empty_run(row[lane]);
            continue;
        }
        const ProfileRun *runs[32];
        Cursor cursors[32];
        std::size_t count = 0;
        for (unsigned int lane = 0; lane < lanes; ++lane) {
            if (!row[lane].count) continue;
            runs[lane] = &row[lane];
            cursors[count++] = Cursor{lane, &runs[lane], &runs[lane] + 1, 0};
        }
        if (run_op(*row) != Op::Load)
            for (std::size_t i = 0; i < count; ++i) mark_owners(*runs[cursors[i].lane]);
        if (!counted) {
            if (rows[r].same_length)  // one stretch: every lane's run is as long
                regroup_stretch(cursors, count, runs[cursors[0].lane]->count);
            else
                regroup_key(cursors, count);
        }
        for (std::size_t i = 0; i < count; ++i) empty_run(row[cursors[i].lane]);
    }
    return true;
}

// The requests of a warp whose lanes 0 .. lanes-1 each ran `lane0`'s run moved on by the lane's
// number of elements (the increment lab's data[i], a row of a tile): request j is one stretch
// of lanes * size bytes from lane 0's j-th address, counted as count_request counts a
// contiguous request, with no entries built. False where count_request's other rules apply (a
// 4-byte shared load may merge into a 16-byte one; atomics; a shared access out of alignment):
// the caller regroups those as any other.
CUDAEMU_NO_ASAN bool WarpRecorder::count_side_by_side(const ProfileRun &lane0, unsigned int lanes)
{
    const Op op = run_op(lane0);
    const Space space = (Space)lane0.space;
    const std::uintptr_t size = lane0.size;
    if (op == Op::Atomic) return false;
    if (space == Space::Shared && (size > 8 || (op == Op::Load && size == 4))) return false;
    const std::uintptr_t first = lane0.first();
    const std::uint32_t requests = lane0.count;
    if (space == Space::Shared) {
        // Aligned words in a row: one wavefront per phase (32 lanes of 4 bytes, 16 of 8) that has lanes.
        for (std::uint32_t j = 0; j < requests; ++j)
            if (((first + (std::uintptr_t)(lane0.stride * (std::intptr_t)j)) & (size - 1)) != 0) return false;
    }
    SiteProfile &site = site_of(run_site(lane0));
    AccessCounts &counts = space == Space::Shared ? (op == Op::Load ? site.shared_load : site.shared_store)
                                                  : (op == Op::Load ? site.global_load : site.global_store);
    counts.requests += requests;
    counts.accesses += (std::uint64_t)requests * lanes;
    counts.bytes += (std::uint64_t)requests * lanes * size;
    if (space == Space::Shared) {
        const unsigned int phase_lanes = size <= 4 ? 32 : 16;
        counts.wavefronts += (std::uint64_t)requests * ((lanes + phase_lanes - 1) / phase_lanes);
        return true;
    }
    counts.data_bytes += (std::uint64_t)requests * lanes * size;
    for (std::uint32_t j = 0; j < requests; ++j) {
        const std::uintptr_t start = first + (std::uintptr_t)(lane0.stride * (std::intptr_t)j);
        counts.sectors += ((start + lanes * size - 1) >> 5) - (start >> 5) + 1;
    }
    return true;
}

// Any other: the runs by site, kind and space, then lane, each lane's in the order it made them,
// bucketed in two passes (a warp's lanes mostly make the same few keys), no sort.
CUDAEMU_NO_ASAN void WarpRecorder::regroup_all_runs(unsigned int first_thread, unsigned int lanes)
{
    keys_.clear();
    key_of_run_.clear();
    std::size_t last = 0;
    auto bucket = [&](const ProfileRun &run) {
        mark_owners(run);
        if (last >= keys_.size() || keys_[last].key != run.key || keys_[last].space != run.space) {
            last = 0;
            while (last < keys_.size() && (keys_[last].key != run.key || keys_[last].space != run.space)) ++last;
            if (last == keys_.size()) keys_.push_back(KeyRuns{run.key, run.space, 0});
        }
        ++keys_[last].runs;
        key_of_run_.push_back((std::uint32_t)last);
    };
    // Each lane's closed runs, then its open ones (each the last of its key).
    for (unsigned int lane = 0; lane < lanes; ++lane) {
        const Runs &runs = closed_[first_thread + lane];
        for (std::size_t i = 0; i < runs.size(); ++i) bucket(runs[i]);
        for (std::uint32_t slots = open_slots_[first_thread + lane]; slots; slots &= slots - 1) {
            const ProfileRun &run = open_run(first_thread + lane, (unsigned int)__builtin_ctz(slots));
            if (run.count) bucket(run);
        }
    }
    if (key_of_run_.empty()) return;
    std::size_t start = 0;
    for (KeyRuns &k : keys_) {
        std::size_t runs = k.runs;
        k.runs = start;  // now where its runs begin in sorted_
        start += runs;
    }
    sorted_.resize(start);
    lane_of_.resize(start);
    std::size_t n = 0;
    auto place = [&](const ProfileRun &run, unsigned int lane) {
        std::size_t at = keys_[key_of_run_[n++]].runs++;
        sorted_[at] = &run;
        lane_of_[at] = lane;
    };
    for (unsigned int lane = 0; lane < lanes; ++lane) {
        const Runs &runs = closed_[first_thread + lane];
        for (std::size_t i = 0; i < runs.size(); ++i) place(runs[i], lane);
        for (std::uint32_t slots = open_slots_[first_thread + lane]; slots; slots &= slots - 1) {
            const ProfileRun &run = open_run(first_thread + lane, (unsigned int)__builtin_ctz(slots));
            if (run.count) place(run, lane);
        }
    }
    Cursor cursors[32];
    std::size_t begin = 0;
    for (const KeyRuns &k : keys_) {
        std::size_t end = k.runs, lanes_of_key = 0;
        for (std::size_t i = begin; i < end;) {
            std::size_t lane_end = i;
            while (lane_end < end && lane_of_[lane_end] == lane_of_[i]) ++lane_end;
            cursors[lanes_of_key++] = Cursor{lane_of_[i], &sorted_[i], &sorted_[0] + lane_end, 0};
            i = lane_end;
        }
        regroup_key(cursors, lanes_of_key);
        begin = end;
    }
}

// One site's runs of every lane of the warp: the k-th access of each lane is one request.
// Cut where any lane's run ends, the stretches between have the same lanes, each at its own
// address plus its stride a request.
CUDAEMU_NO_ASAN void WarpRecorder::regroup_key(Cursor *cursors, std::size_t lanes)
{
    Cursor active[32];
    for (;;) {
        std::size_t count = 0;
        std::uint64_t length = ~std::uint64_t(0);
        for (std::size_t i = 0; i < lanes; ++i)
            if (cursors[i].run != cursors[i].end) {
                active[count++] = cursors[i];
                length = std::min<std::uint64_t>(length, (*cursors[i].run)->count - cursors[i].offset);
            }
        if (count == 0) return;
        regroup_stretch(active, count, length);
        for (std::size_t i = 0; i < lanes; ++i)
            if (cursors[i].run != cursors[i].end && (cursors[i].offset += (std::uint32_t)length) == (*cursors[i].run)->count) {
                ++cursors[i].run;
                cursors[i].offset = 0;
            }
    }
}

namespace {
// How many requests of one stretch, with one stride for all lanes, until the lanes' addresses
// are where they were modulo what the counts can tell: a sector (32 bytes) for global memory;
// for shared memory a 16-byte load's alignment where the stride is whole words (the bank of
// each word turns with them, the conflicts do not change), else the 32 banks' 128 bytes.
std::uint64_t request_period(Space space, std::intptr_t stride)
{
    std::uintptr_t modulus = space == Space::Global ? 32 : stride % 4 == 0 ? 16 : 128;
    std::uintptr_t residue = (std::uintptr_t)stride & (modulus - 1);
    return residue ? modulus / (residue & (~residue + 1)) : 1;
}

void add_repeats(AccessCounts &total, const AccessCounts &before, const AccessCounts &after, std::uint64_t times)
{
    total.requests += (after.requests - before.requests) * times;
    total.accesses += (after.accesses - before.accesses) * times;
    total.bytes += (after.bytes - before.bytes) * times;
    total.sectors += (after.sectors - before.sectors) * times;
    total.data_bytes += (after.data_bytes - before.data_bytes) * times;
    total.wavefronts += (after.wavefronts - before.wavefronts) * times;
    total.conflicts += (after.conflicts - before.conflicts) * times;
}
}  // namespace

// The requests of one stretch: each counted, except that where every lane has the same stride
// and the stretch is long, one period is counted and the rest are the same (request_period);
// a load chain (profiler.h) still open across the period must be the same, moved along.
CUDAEMU_NO_ASAN void WarpRecorder::regroup_stretch(const Cursor *active, std::size_t count, std::uint64_t length)
{
    const ProfileRun &lead = **active[0].run;
    const AccessSite *site = run_site(lead);
    Entry entries[32];
    Lane group[32];
    std::uintptr_t base[32];
    std::intptr_t stride[32];
    bool one_stride = true;
    for (std::size_t i = 0; i < count; ++i) {
        const ProfileRun &run = **active[i].run;
        stride[i] = run.stride;
        base[i] = run.first() + (std::uintptr_t)(stride[i] * (std::intptr_t)active[i].offset);
        entries[i] = Entry{site, base[i], run.size, (Space)run.space, run_op(run)};
        group[i] = Lane{active[i].lane, &entries[i]};
        one_stride = one_stride && stride[i] == stride[0];
    }
    auto count_one = [&](std::uint64_t j) {
        for (std::size_t i = 0; i < count; ++i) entries[i].address = base[i] + (std::uintptr_t)(stride[i] * (std::intptr_t)j);
        request(group, count);
    };
    std::uint64_t j = 0;
    const std::uint64_t period = one_stride ? request_period((Space)lead.space, stride[0]) : 0;
    // A chain begun before the stretch is counted by its kMergedLoads-th request.
    const std::uint64_t settled = chain_of(site) ? kMergedLoads : 0;
    if (one_stride && length >= settled + 2 * period) {
        for (; j < settled; ++j) count_one(j);
        SiteProfile before = site_of(site);
        const LoadChain *chain = chain_of(site);
        bool had_chain = chain != nullptr;
        LoadChain chain_before;
        if (had_chain) chain_before = *chain;
        for (; j < settled + period; ++j) count_one(j);
        std::intptr_t shift = stride[0] * (std::intptr_t)period;
        LoadChain *now = chain_of(site);
        if (had_chain == (now != nullptr) && (!now || chain_moved(chain_before, *now, shift))) {
            std::uint64_t periods = (length - j) / period;
            SiteProfile after = site_of(site);
            SiteProfile &total = site_of(site);
            add_repeats(total.global_load, before.global_load, after.global_load, periods);
            add_repeats(total.global_store, before.global_store, after.global_store, periods);
            add_repeats(total.shared_load, before.shared_load, after.shared_load, periods);
            add_repeats(total.shared_store, before.shared_store, after.shared_store, periods);
            add_repeats(total.global_atomic, before.global_atomic, after.global_atomic, periods);
            add_repeats(total.shared_atomic, before.shared_atomic, after.shared_atomic, periods);
            if (now)
                for (std::size_t i = 0; i < now->count; ++i)
                    now->entries[i].address += (std::uintptr_t)(shift * (std::intptr_t)periods);
            j += periods * period;
        }
    }
    for (; j < length; ++j) count_one(j);
}

// The open load chain of a site (one at most: request() ends one before it begins another).
WarpRecorder::LoadChain *WarpRecorder::chain_of(const AccessSite *site)
{
    for (LoadChain &chain : chains_)
        if (chain.site == site) return &chain;
    return nullptr;
}

// Whether `now` is `before` with every lane's address `shift` bytes on.
bool WarpRecorder::chain_moved(const LoadChain &before, const LoadChain &now, std::intptr_t shift)
{
    if (before.length != now.length || before.count != now.count) return false;
    for (std::size_t i = 0; i < now.count; ++i)
        if (before.lanes[i] != now.lanes[i] || before.entries[i].size != now.entries[i].size ||
            now.entries[i].address != before.entries[i].address + (std::uintptr_t)shift)
            return false;
    return true;
}

CUDAEMU_NO_ASAN void WarpRecorder::flush_all()
{
    for (unsigned int warp = 0; warp * 32 < threads_; ++warp) flush_warp(warp);
    closed_count_ = 0;
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
