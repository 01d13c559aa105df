// The one-line report of a data race, on stderr, and the end of the program with
// LAB_EXIT_RACE (labs/common/exit_codes.h), which the grader turns into its verdict. Only the
// first race is reported: a racy kernel usually races in every block, and one line says it.
#pragma once

#include "cuda_emu/memory_access.h"
#include "cuda_runtime.h"

namespace cudaemu {
struct GridRun;

struct RaceParty {
    uint3 thread;
    uint3 block;
    Access kind;
    const AccessSite *site;
    unsigned long long value_bits;  // global stores only
    std::size_t size;
    ValueKind value_kind;
};

// `now` is the access that found the race, `before` the earlier one it conflicts with.
[[noreturn]] void report_shared_race(const GridRun &grid, const RaceParty &now, const RaceParty &before);
[[noreturn]] void report_global_race(const GridRun &grid, const void *address, const RaceParty &now,
                                     const RaceParty &before);
}  // namespace cudaemu
