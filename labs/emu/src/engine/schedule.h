// The order in which the emulator runs a block's threads. By default: thread 0 first, each
// thread until it reaches a barrier or returns, then the next; after a barrier, again in
// thread order. EMU_SCHEDULE=random[:seed] instead picks, at every switch, a random thread
// among those that can run (and runs blocks in a random order), so that a missing
// __syncthreads() shows up as a wrong answer. The same seed gives the same order.
#pragma once

#include <cstdint>

namespace cudaemu {

struct SchedulePolicy {
    bool random = false;
    std::uint64_t seed = 0;
};

// EMU_SCHEDULE as it is now (read at every launch, so a test may change it between launches).
SchedulePolicy schedule_from_environment();

// splitmix64: small, fast, and good enough to shuffle threads.
class Random {
public:
    explicit Random(std::uint64_t seed = 0) : state_(seed) {}
    std::uint64_t next()
    {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // A value in [0, bound).
    std::uint64_t below(std::uint64_t bound) { return next() % bound; }

private:
    std::uint64_t state_;
};

}  // namespace cudaemu
