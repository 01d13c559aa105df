#include "engine/shared_arena.h"

#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "engine/asan.h"
#include "reports/diagnostics.h"
#include "engine/device_limits.h"

namespace cudaemu {
namespace {
// Room for the largest dynamic allocation plus the largest static total, with redzones.
constexpr std::size_t kArenaBytes = 512 * 1024;
// Poisoned gap after each variable under AddressSanitizer (none otherwise, as on a GPU).
constexpr std::size_t kRedzone = CUDAEMU_ASAN ? 64 : 0;

std::size_t align_up(std::size_t value, std::size_t align) { return (value + align - 1) / align * align; }
}  // namespace

SharedArena::SharedArena()
{
    void *mapping = mmap(nullptr, kArenaBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                         -1, 0);
    if (mapping == MAP_FAILED)
        fatal("could not map %zu bytes for a block's shared memory (%s)", kArenaBytes, std::strerror(errno));
    base_ = static_cast<char *>(mapping);
    capacity_ = kArenaBytes;
    asan_poison(base_, capacity_);
}

SharedArena::~SharedArena()
{
    asan_unpoison(base_, capacity_);
    munmap(base_, capacity_);
}

void SharedArena::begin_block(std::size_t dynamic_bytes, const char *kernel_name, bool scribble)
{
    ++generation_;
    kernel_name_ = kernel_name;
    scribble_ = scribble;
    // The previous block's variables become poison again; this block's dynamic part is open.
    asan_poison(base_, high_water_);
    asan_unpoison(base_, dynamic_bytes);
    if (scribble) std::memset(base_, 0xff, dynamic_bytes);
    dynamic_bytes_ = dynamic_bytes;
    top_ = align_up(dynamic_bytes, 16) + kRedzone;
    high_water_ = top_ > high_water_ ? top_ : high_water_;
    static_bytes_ = 0;
}

void *SharedArena::variable(int id, std::size_t size, std::size_t natural_align, std::size_t align)
{
    if ((std::size_t)id >= slots_.size()) slots_.resize((std::size_t)id + 16, Slot{0, nullptr});
    Slot &slot = slots_[(std::size_t)id];
    if (slot.generation == generation_) return slot.address;

    static_bytes_ = align_up(static_bytes_, natural_align) + size;
    if (static_bytes_ > kSharedPerBlock)
        fatal("kernel %s declares %zu bytes of static __shared__ memory; a block may have at most %zu (nvcc "
              "rejects this at compile time: \"uses too much shared data\"). Make the arrays smaller, or use "
              "extern __shared__ (dynamic) memory with cudaFuncSetAttribute for more.",
              kernel_name_, static_bytes_, kSharedPerBlock);
    std::size_t offset = align_up(top_, align);
    if (offset + size + kRedzone > capacity_)
        fatal("kernel %s: static __shared__ variables (%zu bytes) and dynamic shared memory (%zu bytes) do not "
              "fit in a block's shared memory; use less",
              kernel_name_, static_bytes_, dynamic_bytes_);
    top_ = offset + size + kRedzone;
    high_water_ = top_ > high_water_ ? top_ : high_water_;
    asan_unpoison(base_ + offset, size);
    if (scribble_) std::memset(base_ + offset, 0xff, size);
    slot = Slot{generation_, base_ + offset};
    return slot.address;
}

}  // namespace cudaemu
