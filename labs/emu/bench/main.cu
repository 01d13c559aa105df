// make emu-bench: what the emulator costs on this machine. Not a test: figures only.
// Wall time is what a program's CUDA events see; CPU time (all threads) is steadier on a
// machine that other work shares.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread>

#include "bench.h"

int main(int argc, char **argv)
{
    // --fibers: the fiber switch and the barrier-heavy kernels only (emu.mk runs the ucontext
    // build so, to show what the fallback costs).
    const bool fibers_only = argc > 1 && strcmp(argv[1], "--fibers") == 0;
    if (!fibers_only)
        printf("CUDA emulator benchmark: %u hardware threads (EMU_THREADS overrides)\n",
               std::thread::hardware_concurrency());
#if CUDAEMU_FIBER_UCONTEXT
    printf("fiber context switch (ucontext swapcontext: no Boost.Context): %.1f ns\n", fiber_switch_ns(2000000));
#else
    printf("fiber context switch (Boost.Context fcontext): %.1f ns\n", fiber_switch_ns(20000000));
#endif

    // Each kernel plain, then under the race detector (EMU_RACECHECK=1, read at each launch),
    // then with the profile (EMU_PROFILE, written to /dev/null at exit).
    // The plain times of the matrix products, to say what the profile costs over them (CPU time:
    // steadier than wall time where other work shares the machine).
    Timing plain_increment{0, 0}, plain_tiled{0, 0}, plain_naive{0, 0};
    for (int mode = 0; mode < (fibers_only ? 1 : 3); ++mode) {
        if (mode == 1) {
            setenv("EMU_RACECHECK", "1", 1);
            printf("--- the same under EMU_RACECHECK=1 (the race detector)\n");
        }
        if (mode == 2) {
            unsetenv("EMU_RACECHECK");
            setenv("EMU_PROFILE", "/dev/null", 1);
            printf("--- the same under EMU_PROFILE (the kernel profile)\n");
        }
        const int rounds = 64;
        Timing one = time_barrier_heavy_ms(1, 1024, rounds);
        printf("one 1024-thread block, %d barriers: %.2f ms wall, %.2f ms CPU: %.1f us wall (%.1f us CPU) per "
               "barrier\n",
               rounds, one.wall_ms, one.cpu_ms, 1000.0 * one.wall_ms / rounds, 1000.0 * one.cpu_ms / rounds);
        Timing many = time_barrier_heavy_ms(256, 1024, rounds);
        printf("256 blocks x 1024 threads, %d barriers each: %.1f ms wall, %.1f ms CPU\n", rounds, many.wall_ms,
               many.cpu_ms);
        if (fibers_only) break;
        Timing increment = time_increment_ms(1 << 20, 256);
        printf("increment kernel, N = 2^20, 256 threads a block: %.2f ms wall, %.2f ms CPU (%.1f ns CPU per "
               "thread)\n",
               increment.wall_ms, increment.cpu_ms, increment.cpu_ms * 1e6 / (1 << 20));
        Timing tiled = time_tiled_product_ms(256);
        printf("tiled matrix product, N = 256, 16 x 16 tiles in shared memory: %.1f ms wall, %.1f ms CPU\n",
               tiled.wall_ms, tiled.cpu_ms);
        Timing naive = time_naive_product_ms(256);
        printf("naive matrix product, N = 256, 16 x 16 threads a block: %.1f ms wall, %.1f ms CPU\n", naive.wall_ms,
               naive.cpu_ms);
        if (mode == 0) {
            plain_increment = increment;
            plain_tiled = tiled;
            plain_naive = naive;
        }
        if (mode == 2)
            printf("profile cost over the plain run, CPU time: increment %.1fx, tiled product %.1fx, naive product "
                   "%.1fx\n",
                   increment.cpu_ms / plain_increment.cpu_ms, tiled.cpu_ms / plain_tiled.cpu_ms,
                   naive.cpu_ms / plain_naive.cpu_ms);
    }
    unsetenv("EMU_PROFILE");
    return 0;
}
