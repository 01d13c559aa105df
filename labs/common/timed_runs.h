// Times a piece of GPU work the way the harnesses report it: one warm-up run (module loading,
// caches), then timed runs, each on the GPU's clock (CUDA events) and the host's (waiting
// included), reduced to their medians; several pieces in interleaved rounds, for a --bench
// table that compares them; and the exit status of such a table.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "cuda_check.h"
#include "exit_codes.h"
#include "gpu_timer.h"
#include "host_timer.h"
#include "median.h"

struct Timing {
    double ms = 0;       // median GPU time of one run, from CUDA events
    double host_ms = 0;  // median host time of the same span, waiting included
    int reps = 0;
};

// `prepare` runs before the warm-up and before each timed run, outside the timed span (a lab
// whose run updates its output in place restores the starting output there).
// reps <= 0: as many as fit in about 0.2 s of GPU time (judged by the warm-up), between 3 and 50.
// max_ms > 0: no more of the `reps` than fit in about max_ms (judged alike), and at least 3.
template <class Run, class Prepare>
static Timing time_runs(Run run, int reps, Prepare prepare, double max_ms = 0)
{
    GpuTimer timer;
    prepare();
    timer.start();
    run();
    timer.stop();
    double first = timer.ms();
    if (reps <= 0)
        reps = static_cast<int>(std::min(50.0, std::max(3.0, std::ceil(200.0 / std::max(first, 1e-3)))));
    if (max_ms > 0)
        reps = static_cast<int>(std::min<double>(reps, std::max(3.0, std::ceil(max_ms / std::max(first, 1e-3)))));
    std::vector<double> times, host_times;
    for (int rep = 0; rep < reps; ++rep) {
        prepare();
        CUDA_CHECK(cudaDeviceSynchronize());  // so that the host clock starts with the run
        HostTimer host;
        timer.start();
        run();
        timer.stop();
        times.push_back(timer.ms());  // waits for the stop event
        CUDA_CHECK(cudaDeviceSynchronize());
        host_times.push_back(host.ms());
    }
    return Timing{median(times), median(host_times), reps};
}

template <class Run>
static Timing time_runs(Run run, int reps)
{
    return time_runs(run, reps, [] {});
}

// Several runs timed in turn, round after round, each round timing every run once (time_runs:
// a warm-up, then `reps` timed runs) in an order rotated by one from the round before. A card's
// clock moves under sustained load (its power limit pulls the clock down within tens of
// milliseconds, heat over seconds) and rises again when idle: a figure taken right after the
// host's own work, or always after the same neighbour, favours one run over another.
// Interleaved, the drift meets every run alike. A first round, not kept, brings the card from
// idle to its loaded clocks. A run slower than max_turn_ms / reps gets fewer launches a turn, so
// that a turn lasts about max_turn_ms. Returns ms[i][r], run i's median GPU time in kept round r.
static inline std::vector<std::vector<double>> time_interleaved(const std::vector<std::function<void()>> &runs,
                                                               int rounds, int reps, double max_turn_ms)
{
    std::vector<std::vector<double>> ms(runs.size());
    for (int round = -1; round < rounds; ++round)
        for (size_t k = 0; k < runs.size(); ++k) {
            size_t i = (k + static_cast<size_t>(round + 1)) % runs.size();
            double t = time_runs(runs[i], reps, [] {}, max_turn_ms).ms;
            if (round >= 0)
                ms[i].push_back(t);
        }
    return ms;
}

// The exit status of a --bench table whose rows are each checked: WRONG, with a pointer to the
// rows, if any row failed. `what` names what the rows check ("a kernel's result").
static inline int bench_status(bool all_right, const char *what)
{
    if (!all_right)
        std::printf("WRONG: %s failed the check (see the rows marked WRONG)\n", what);
    return all_right ? LAB_EXIT_OK : LAB_EXIT_WRONG;
}
