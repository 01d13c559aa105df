// make emu-bench: what the emulator costs on this machine. Not a test: figures only.
#include <stdio.h>
#include <thread>

#include "bench.h"

int main()
{
    int device_count = 0;
    cudaGetDeviceCount(&device_count);
    printf("CUDA emulator benchmark (%u hardware threads; EMU_THREADS overrides)\n",
           std::thread::hardware_concurrency());

    printf("fiber context switch:                         %8.1f ns\n", fiber_switch_ns(20000000));

    const int rounds = 64;
    double one_block = time_barrier_heavy_ms(1, 1024, rounds);
    printf("one 1024-thread block, %d barriers:            %8.3f ms = %.1f us per barrier\n", rounds, one_block,
           1000.0 * one_block / rounds);
    printf("256 blocks x 1024 threads, %d barriers each:   %8.1f ms\n", rounds,
           time_barrier_heavy_ms(256, 1024, rounds));

    const int n = 1 << 20;
    printf("increment kernel, N = 2^20, 256 threads/block: %8.3f ms\n", time_increment_ms(n, 256));
    return 0;
}
