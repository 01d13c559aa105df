#include "api/memory_owners.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>

#include "api/memory_registry.h"
#include "api/profile_timeline.h"
#include "settings.h"

namespace cudaemu {
namespace {
struct Owners {
    std::uintptr_t start = 0;
    std::size_t size = 0;
    int device = 0;
    std::vector<std::uint16_t> words;  // per 4-byte word: the writer id
};

struct CopyBack {
    std::uintptr_t host = 0;
    std::size_t bytes = 0;
    int device = 0;
    std::string file;
    int line = 0;
    std::vector<std::pair<std::uint16_t, std::uint64_t>> writers;
    std::uint64_t hash = 0;
};

// Never destroyed: the profile is written at exit, after static destructors may have run.
struct State {
    std::mutex mutex;
    std::map<std::uintptr_t, Owners> owners;  // by allocation start
    std::vector<Writer> writers{Writer{}};    // id 0: never written
    std::vector<CopyBack> copies_back;
    std::vector<OutputRecord> outputs;
    std::vector<DeviceTraffic> traffic;
};
State &state()
{
    static State *s = new State();
    return *s;
}
std::atomic<std::uint64_t> generation{1};

struct Cache {
    std::uintptr_t start = 0, end = 0;
    std::uint16_t *words = nullptr;
    std::uint64_t generation = 0;
};
thread_local Cache cache;

struct CallSite {
    const char *file = "";
    int line = 0;
    bool harness = false;
};
thread_local CallSite next_call;  // the next API call's, noted by cuda_runtime.h's macros

std::uint64_t hash_bytes(const void *data, std::size_t bytes)
{
    const unsigned char *p = static_cast<const unsigned char *>(data);
    std::uint64_t h = 0x9e3779b97f4a7c15ull ^ bytes;
    std::size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        std::uint64_t word;
        std::memcpy(&word, p + i, 8);
        h = (h ^ word) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

bool device_memory(const void *address, Allocation *allocation)
{
    return find_allocation(address, allocation) &&
           (allocation->kind == MemoryKind::Device || allocation->kind == MemoryKind::Managed);
}

// The owner array of the device allocation holding `address`, made if need be (lock held).
Owners *owners_for(const void *address)
{
    Allocation allocation;
    if (!device_memory(address, &allocation)) return nullptr;
    auto start = (std::uintptr_t)allocation.start;
    auto found = state().owners.find(start);
    if (found == state().owners.end() || found->second.size != allocation.size) {
        Owners fresh;
        fresh.start = start;
        fresh.size = allocation.size;
        fresh.device = allocation.device;
        fresh.words.assign((allocation.size + 3) / 4, 0);
        found = state().owners.insert_or_assign(start, std::move(fresh)).first;
    }
    return &found->second;
}

void mark_words(Owners &owners, std::uintptr_t address, std::size_t bytes, std::uint16_t writer)
{
    if (bytes == 0) return;
    std::size_t first = (address - owners.start) / 4, last = (address + bytes - 1 - owners.start) / 4;
    last = std::min(last, owners.words.size() - 1);
    std::fill(owners.words.begin() + (std::ptrdiff_t)first, owners.words.begin() + (std::ptrdiff_t)last + 1, writer);
}

DeviceTraffic &traffic_of(int device)
{
    if (device < 0) device = 0;
    if (state().traffic.size() <= (std::size_t)device) state().traffic.resize((std::size_t)device + 1);
    return state().traffic[(std::size_t)device];
}

CallSite take_call_site()
{
    CallSite site = next_call;
    next_call = CallSite{};
    return site;
}
}  // namespace

void note_call_site(const char *file, int line, bool harness)
{
    next_call = CallSite{file ? file : "", line, harness};
}

std::uint16_t intern_writer(WriterKind kind, const std::string &name, const char *file, int line, int device,
                            bool harness)
{
    std::lock_guard<std::mutex> lock(state().mutex);
    std::vector<Writer> &all = state().writers;
    for (std::size_t id = 1; id < all.size(); ++id)
        if (all[id].kind == kind && all[id].name == name && all[id].file == file && all[id].line == line &&
            all[id].device == device && all[id].harness == harness)
            return (std::uint16_t)id;
    if (all.size() >= 0xffff) return 0xffff;  // a program with 65535 writers: the last one stands for the rest
    all.push_back(Writer{kind, name, file, line, device, harness});
    return (std::uint16_t)(all.size() - 1);
}

std::vector<Writer> writers()
{
    std::lock_guard<std::mutex> lock(state().mutex);
    return state().writers;
}

void owners_mark(std::uintptr_t address, std::size_t bytes, std::uint16_t writer)
{
    std::uint64_t now = generation.load(std::memory_order_relaxed);
    if (cache.generation != now || address < cache.start || address >= cache.end) {
        std::lock_guard<std::mutex> lock(state().mutex);
        Owners *owners = owners_for((const void *)address);
        if (!owners) return;  // host memory a kernel wrote (mapped, managed) or a stack
        cache = Cache{owners->start, owners->start + owners->size, owners->words.data(), now};
    }
    std::size_t first = (address - cache.start) / 4;
    std::size_t last = std::min((address + (bytes ? bytes : 1) - 1 - cache.start) / 4, (cache.end - cache.start - 1) / 4);
    for (std::size_t word = first; word <= last; ++word) cache.words[word] = writer;
}

namespace {
void copy_at(const char *call, CallSite site, void *dst, const void *src, std::size_t bytes)
{
    if (bytes == 0) return;
    Allocation to, from;
    bool to_device = device_memory(dst, &to), from_device = device_memory(src, &from);
    if (!to_device && !from_device) return;
    std::uint16_t host_writer =
        to_device && !from_device ? intern_writer(WriterKind::HostCopy, call, site.file, site.line, to.device, site.harness) : 0;
    std::lock_guard<std::mutex> lock(state().mutex);
    generation.fetch_add(1);
    if (to_device && from_device) {
        Owners *target = owners_for(dst);
        Owners *source = owners_for(src);
        auto d = (std::uintptr_t)dst, s = (std::uintptr_t)src;
        for (std::size_t offset = 0; offset < bytes; offset += 4)
            target->words[(d + offset - target->start) / 4] = source->words[(s + offset - source->start) / 4];
        if (to.device != from.device) {
            traffic_of(from.device).to_other_devices += bytes;
            traffic_of(to.device).from_other_devices += bytes;
        }
    } else if (to_device) {
        mark_words(*owners_for(dst), (std::uintptr_t)dst, bytes, host_writer);
        traffic_of(to.device).from_host += bytes;
    } else {
        Owners *source = owners_for(src);
        CopyBack back;
        back.host = (std::uintptr_t)dst;
        back.bytes = bytes;
        back.device = from.device;
        back.file = site.file;
        back.line = site.line;
        std::size_t first = ((std::uintptr_t)src - source->start) / 4;
        std::size_t last = std::min(((std::uintptr_t)src + bytes - 1 - source->start) / 4, source->words.size() - 1);
        std::map<std::uint16_t, std::uint64_t> counts;
        for (std::size_t word = first; word <= last; ++word) counts[source->words[word]] += 4;
        back.writers.assign(counts.begin(), counts.end());
        back.hash = hash_bytes(dst, bytes);
        if (state().copies_back.size() > 1000000) state().copies_back.erase(state().copies_back.begin());
        state().copies_back.push_back(std::move(back));
        traffic_of(from.device).to_host += bytes;
    }
}
}  // namespace

void profile_copy(const char *call, void *dst, const void *src, std::size_t bytes)
{
    auto site = take_call_site();
    if (!profile_on()) return;
    timeline_copy(dst, src, bytes);
    copy_at(call, site, dst, src, bytes);
}

void profile_copy_2d(const char *call, void *dst, std::size_t dpitch, const void *src, std::size_t spitch,
                     std::size_t width, std::size_t height)
{
    auto site = take_call_site();
    if (!profile_on()) return;
    if (height) timeline_copy(dst, src, width * height);
    for (std::size_t row = 0; row < height; ++row)
        copy_at(call, site, static_cast<char *>(dst) + row * dpitch, static_cast<const char *>(src) + row * spitch,
                width);
}

void profile_fill(const char *call, void *dst, std::size_t bytes)
{
    auto site = take_call_site();
    if (!profile_on() || bytes == 0) return;
    timeline_fill(dst, bytes);
    Allocation to;
    if (!device_memory(dst, &to)) return;
    std::uint16_t writer = intern_writer(WriterKind::Memset, call, site.file, site.line, to.device, site.harness);
    std::lock_guard<std::mutex> lock(state().mutex);
    generation.fetch_add(1);
    mark_words(*owners_for(dst), (std::uintptr_t)dst, bytes, writer);
}

void profile_freed(const void *start)
{
    if (!profile_on()) return;
    std::lock_guard<std::mutex> lock(state().mutex);
    generation.fetch_add(1);
    state().owners.erase((std::uintptr_t)start);
}

std::vector<OutputRecord> output_records()
{
    std::lock_guard<std::mutex> lock(state().mutex);
    return state().outputs;
}

std::vector<DeviceTraffic> device_traffic()
{
    std::lock_guard<std::mutex> lock(state().mutex);
    return state().traffic;
}

}  // namespace cudaemu

using namespace cudaemu;

namespace {
using Range = std::pair<std::uintptr_t, std::uintptr_t>;

// The bytes of [lo, hi) that no range in `covered` (disjoint, any order) holds; [lo, hi) joins
// `covered` when there are some.
std::uint64_t fresh_bytes(std::vector<Range> &covered, std::uintptr_t lo, std::uintptr_t hi)
{
    std::vector<Range> pieces{{lo, hi}};
    for (auto &c : covered) {
        std::vector<Range> next;
        for (auto &p : pieces) {
            if (c.second <= p.first || c.first >= p.second) {
                next.push_back(p);
                continue;
            }
            if (p.first < c.first) next.push_back({p.first, c.first});
            if (c.second < p.second) next.push_back({c.second, p.second});
        }
        pieces.swap(next);
    }
    std::uint64_t fresh = 0;
    for (auto &p : pieces) fresh += p.second - p.first;
    if (fresh) covered.push_back({lo, hi});
    return fresh;
}

// The record's part for what `copy` brought: one a copy call (its site and device), however
// many rows it took.
OutputPart &part_for(OutputRecord &record, const CopyBack &copy, bool changed)
{
    for (OutputPart &part : record.parts)
        if (part.device == copy.device && part.line == copy.line && part.file == copy.file &&
            part.changed_on_host == changed)
            return part;
    OutputPart part;
    part.device = copy.device;
    part.file = copy.file;
    part.line = copy.line;
    part.changed_on_host = changed;
    record.parts.push_back(std::move(part));
    return record.parts.back();
}
}  // namespace

// The harness's result: `rows` rows of `width` bytes, `pitch` bytes apart (one row: a plain
// array), and where each part of it came from, newest copy from a device first. A part no copy
// from the device brought is "not copied from a device" (computed on the host). A copy within
// the result's extent (its rows' padding too: one copy of a padded matrix) is checked for
// changes made on the host after it.
extern "C" void cudaemu_profile_output_rows(const void *host, size_t pitch, size_t width, size_t rows,
                                            const char *what)
{
    if (!profile_on() || !host || width == 0 || rows == 0) return;
    std::lock_guard<std::mutex> lock(state().mutex);
    OutputRecord record;
    record.what = what ? what : "result";
    record.bytes = width * rows;
    auto first = (std::uintptr_t)host, last = first + pitch * rows;
    std::vector<std::vector<Range>> covered(rows);
    const std::vector<CopyBack> &copies = state().copies_back;
    for (auto it = copies.rbegin(); it != copies.rend(); ++it) {
        std::uintptr_t copy_end = it->host + it->bytes;
        if (it->host >= last || copy_end <= first) continue;
        std::uint64_t fresh = 0;
        for (std::size_t row = it->host > first ? (it->host - first) / pitch : 0;
             row < rows && first + row * pitch < copy_end; ++row) {
            std::uintptr_t lo = std::max(first + row * pitch, it->host);
            std::uintptr_t hi = std::min(first + row * pitch + width, copy_end);
            if (lo < hi) fresh += fresh_bytes(covered[row], lo, hi);
        }
        if (fresh == 0) continue;
        bool changed = it->host >= first && copy_end <= last && hash_bytes((const void *)it->host, it->bytes) != it->hash;
        OutputPart &part = part_for(record, *it, changed);
        part.bytes += fresh;
        for (auto &w : it->writers) {
            auto share = (std::uint64_t)((double)w.second * fresh / (double)it->bytes + 0.5);
            auto writer = std::find_if(part.writers.begin(), part.writers.end(),
                                       [&](const auto &entry) { return entry.first == w.first; });
            if (writer == part.writers.end())
                part.writers.push_back({w.first, share});
            else
                writer->second += share;
        }
    }
    std::vector<Writer> &all = state().writers;
    std::map<int, std::uint64_t> own;
    for (const CopyBack &copy : state().copies_back) {
        if (copy.host < last && copy.host + copy.bytes > first) continue;
        for (auto &w : copy.writers)
            if (w.first < all.size() && all[w.first].kind == WriterKind::Kernel) {
                record.staged_kernel_bytes += w.second;
                if (all[w.first].device == copy.device) own[copy.device] += w.second;
            }
    }
    record.staged_own_by_device.assign(own.begin(), own.end());
    std::uint64_t from_devices = 0;
    for (auto &p : record.parts) from_devices += p.bytes;
    if (from_devices < record.bytes) {
        OutputPart part;
        part.bytes = record.bytes - from_devices;
        record.parts.push_back(part);
    }
    state().outputs.push_back(std::move(record));
}

extern "C" void cudaemu_profile_output(const void *host, size_t bytes, const char *what)
{
    cudaemu_profile_output_rows(host, bytes, bytes, 1, what);
}
