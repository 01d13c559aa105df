// The shared memory of the block a CPU thread is running: dynamic shared memory at the
// arena's start (so its address never changes, which file-scope `extern __shared__` relies
// on), then static __shared__ variables, placed at their first use in each block.
#pragma once

#include <cstddef>
#include <vector>

namespace cudaemu {

class SharedArena {
public:
    SharedArena();
    ~SharedArena();
    SharedArena(const SharedArena &) = delete;
    SharedArena &operator=(const SharedArena &) = delete;

    // Starts a block: forgets the previous block's variables. With `scribble` (the random
    // schedule), the block's shared memory starts out as 0xff bytes (-1, NaN) instead of the
    // previous block's leftovers, so a run depends on nothing but its seed, and a read of
    // memory no thread wrote shows up.
    void begin_block(std::size_t dynamic_bytes, const char *kernel_name, bool scribble);
    char *dynamic_base() const { return base_; }
    void *variable(int id, std::size_t size, std::size_t natural_align, std::size_t align);
    // Bytes of static __shared__ variables the current block has placed so far.
    std::size_t static_bytes() const { return static_bytes_; }
    std::size_t capacity() const { return capacity_; }
    std::size_t offset_of(const void *address) const { return static_cast<const char *>(address) - base_; }
    bool contains(const void *address) const
    {
        const char *a = static_cast<const char *>(address);
        return a >= base_ && a < base_ + capacity_;
    }

private:
    struct Slot {
        unsigned generation;
        void *address;
    };
    char *base_ = nullptr;
    std::size_t capacity_ = 0;
    std::size_t dynamic_bytes_ = 0;
    std::size_t top_ = 0;
    std::size_t high_water_ = 0;
    std::size_t static_bytes_ = 0;
    unsigned generation_ = 0;
    const char *kernel_name_ = "";
    bool scribble_ = false;
    std::vector<Slot> slots_;
};

}  // namespace cudaemu
