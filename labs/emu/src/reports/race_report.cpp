#include "reports/race_report.h"
#include "reports/findings.h"

#include <unistd.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "engine/grid_run.h"
#include "exit_codes.h"

namespace cudaemu {
namespace {
std::string triple(const uint3 &v)
{
    return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

const char *verb(Access kind)
{
    switch (kind) {
    case Access::Read: return "reads";
    case Access::Write: return "writes";
    case Access::Update: return "reads and writes";
    case Access::Rewrite: return "writes (the value already there)";
    }
    return "touches";
}

std::string where(const AccessSite *site)
{
    return site ? std::string(site->file) + ":" + std::to_string(site->line) : std::string("an unknown line");
}

std::string value(const RaceParty &party)
{
    char text[64];
    unsigned long long bits = party.value_bits;
    if (party.size < 8) bits &= (1ull << (8 * party.size)) - 1;
    switch (party.value_kind) {
    case ValueKind::Signed: {
        long long v = (long long)(bits << (64 - 8 * party.size)) >> (64 - 8 * party.size);
        std::snprintf(text, sizeof text, "%lld", v);
        break;
    }
    case ValueKind::Unsigned: std::snprintf(text, sizeof text, "%llu", bits); break;
    case ValueKind::Floating:
        if (party.size == sizeof(float)) {
            float f;
            std::memcpy(&f, &bits, sizeof f);
            std::snprintf(text, sizeof text, "%g", f);
        } else {
            double d;
            std::memcpy(&d, &bits, sizeof d);
            std::snprintf(text, sizeof text, "%g", d);
        }
        break;
    case ValueKind::Other: std::snprintf(text, sizeof text, "0x%llx", bits); break;
    }
    return text;
}

// Prints once: when several CPU threads find races at once, the others wait for the exit.
[[noreturn]] void print_and_exit(const std::string &line)
{
    static std::atomic_flag reported = ATOMIC_FLAG_INIT;
    if (reported.test_and_set()) {
        for (;;) pause();
    }
    std::fflush(stdout);
    record_finding("race", line.c_str());
    std::fprintf(stderr, "cuda-emu: %s\n", line.c_str());
    std::fflush(stderr);
    _exit(LAB_EXIT_RACE);
}
}  // namespace

void report_shared_race(const GridRun &grid, const RaceParty &now, const RaceParty &before)
{
    const char *name = now.site ? now.site->name : "?";
    print_and_exit("data race on __shared__ " + std::string(name) + ": thread " + triple(now.thread) + " " +
                   verb(now.kind) + " it at " + where(now.site) + ", thread " + triple(before.thread) + " " +
                   verb(before.kind) + " it at " + where(before.site) + ", no __syncthreads() between (block " +
                   triple(now.block) + " of kernel " + grid.kernel_name + grid.launch_site() +
                   "): put a __syncthreads() between the two accesses, or make them atomic");
}

void report_global_race(const GridRun &grid, const void *address, const RaceParty &now, const RaceParty &before)
{
    char at[32];
    std::snprintf(at, sizeof at, "%p", address);
    const char *name = now.site ? now.site->name : "?";
    print_and_exit("data race on global memory " + std::string(name) + "[...] at " + at + ": thread " +
                   triple(now.thread) + " of block " + triple(now.block) + " writes " + value(now) + " at " +
                   where(now.site) + ", thread " + triple(before.thread) + " of block " + triple(before.block) +
                   " writes " + value(before) + " at " + where(before.site) + ", in one launch of kernel " +
                   grid.kernel_name + grid.launch_site() +
                   ": which value stays depends on the schedule; give each thread its own element, or use an atomic");
}
}  // namespace cudaemu
