// Lab 3, given code: the versions of Carrega and Ferreira, *Optimizations in GPGPU using
// Floyd-Warshall* ([Carrega & Ferreira n.d.], section III), for you to run and measure beside
// your own (handouts/fw.md, "Versions of Carrega and Ferreira"; python3 labs/fw/scripts/table2.py
// reproduces the paper's Table II). This file is part of the harness: it is built with every fw
// program, never graded, and you do not edit it. `fw --list` shows these after the versions of
// your fw.c; `fw --version parallel` runs one. (The paper's III.A, sequential CPU, is the `cpu`
// version in your fw.c.)
//
//   one-thread     one GPU thread runs the three loops (III.B, Sequential GPU)
//   parallel       one launch per k, grid and work per thread from the occupancy API (III.C)
//   grid-sync      one cooperative kernel, grid.sync() between steps (III.D, done safely)
//   grid-sync-reg  grid-sync with D(i,k) kept in a register (III.E)
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>

#include "exit_codes.h"
#include "fw.h"

namespace cg = cooperative_groups;

// ---- one-thread: the three loops in one GPU thread (001 III.B) ------------------------------

__global__ void fwOneThread(int *dist, int Na, int N)
{
    for (int k = 0; k < N; k++)
        for (int i = 0; i < N; i++) {
            int dik = dist[i * Na + k];
            if (dik == FW_INF)
                continue;
            for (int j = 0; j < N; j++) {
                int dkj = dist[k * Na + j];
                if (dkj != FW_INF && dik + dkj < dist[i * Na + j])
                    dist[i * Na + j] = dik + dkj;
            }
        }
}

static void fw_solve_one_thread(int *dist, int Na, int N)
{
    fwOneThread<<<1, 1>>>(dist, Na, N);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
}

// ---- parallel: work per thread sized by the occupancy API (001 III.C) ---------------------
//
// The grid is as large as can be resident at once, and each thread takes `work` consecutive
// entries of the N x N matrix (row-major, padding skipped). Consecutive entries per thread
// means a warp's 32 threads read addresses `work` ints apart: not coalesced.

// One thread's part of step k: `work` entries in row order from entry `first`, none past the
// last. kDikInRegister (III.E): D(i,k) read once per row of the run instead of once per entry,
// since step k never changes column k.
template <bool kDikInRegister>
__device__ void relax_run(int k, int *dist, int Na, int N, long long first, int work)
{
    long long cells = (long long)N * N;
    if (first >= cells)
        return;
    int i = (int)(first / N), j = (int)(first % N);
    int dik = kDikInRegister ? dist[i * Na + k] : 0;
    for (int counter = 0; counter < work; counter++) {
        if (!kDikInRegister)
            dik = dist[i * Na + k];
        int dkj = dist[k * Na + j];
        if (dik != FW_INF && dkj != FW_INF && dik + dkj < dist[i * Na + j])
            dist[i * Na + j] = dik + dkj;
        if (++j == N) {
            j = 0;
            if (++i == N)
                return;
            if (kDikInRegister)
                dik = dist[i * Na + k];
        }
    }
}

__global__ void fwStepKWork(int k, int *dist, int Na, int N, int work)
{
    long long thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    relax_run<false>(k, dist, Na, N, thread * work, work);
}

typedef struct {
    int blocks, threads, work;
} Geometry;

// 001's formula: workPerThread = N^2 / (blocks * threadsPerBlock), rounded up.
static int work_per_thread(int N, int blocks, int threads)
{
    long long cells = (long long)N * N, all = (long long)blocks * threads;
    return (int)((cells + all - 1) / all);
}

static Geometry occupancy_geometry(int N)
{
    Geometry g;
    CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&g.blocks, &g.threads, fwStepKWork, 0, 0));
    g.work = work_per_thread(N, g.blocks, g.threads);
    return g;
}

static void fw_step_parallel(int k, int *dist, int Na, int N)
{
    Geometry g = occupancy_geometry(N);
    fwStepKWork<<<g.blocks, g.threads>>>(k, dist, Na, N, g.work);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void fw_solve_parallel(int *dist, int Na, int N)
{
    Geometry g = occupancy_geometry(N);
    for (int k = 0; k < N; k++) {
        fwStepKWork<<<g.blocks, g.threads>>>(k, dist, Na, N, g.work);
        CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}

// ---- grid-sync and grid-sync-reg: one kernel for all N steps (001 III.D, III.E) ---------
//
// The paper's barrier is hand-made: each block sets its flag in an array and spins until all
// are set. That waits forever as soon as the grid has more blocks than the GPU can hold at
// once: the resident blocks spin, and the rest never get a multiprocessor to run on (the
// flags also need volatile reads and a __threadfence, and resetting a flag for the next step
// races with slower blocks still reading it). cooperative_groups' grid.sync() is that barrier
// done right, and cudaLaunchCooperativeKernel refuses a grid that cannot be resident at once.

// Every step of the thread's run, with grid.sync() between them.
template <bool kDikInRegister>
__device__ void relax_all_steps(int *dist, int Na, int N, int work)
{
    cg::grid_group grid = cg::this_grid();
    long long first = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * work;
    for (int k = 0; k < N; k++) {
        relax_run<kDikInRegister>(k, dist, Na, N, first, work);
        grid.sync();  // step k is done everywhere before any thread starts step k+1
    }
}

// Kernels that are not templates: the emulator learns a cooperative launch's parameters from them.
__global__ void fwGridSync(int *dist, int Na, int N, int work)
{
    relax_all_steps<false>(dist, Na, N, work);
}

// As fwGridSync, with D(i,k) read once per row of the run instead of once per entry.
__global__ void fwGridSyncRegister(int *dist, int Na, int N, int work)
{
    relax_all_steps<true>(dist, Na, N, work);
}

// Launches one of the two with every block resident: blocks per multiprocessor (occupancy API)
// times the number of multiprocessors.
static void launch_cooperative(void (*kernel)(int *, int, int, int), int *dist, int Na, int N)
{
    int device = 0, cooperative = 0, multiprocessors = 0, min_grid = 0, threads = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    if (!cooperative) {
        fprintf(stderr, "CUDA error: this GPU cannot launch cooperative kernels (cudaDevAttrCooperativeLaunch "
                        "is 0), so grid.sync() is not available; run another version\n");
        exit(LAB_EXIT_CUDA);
    }
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &threads, kernel, 0, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
    int blocks = per_sm * multiprocessors;
    int work = work_per_thread(N, blocks, threads);
    void *args[] = {&dist, &Na, &N, &work};
    CUDA_CHECK(cudaLaunchCooperativeKernel((void *)kernel, blocks, threads, args, 0, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void fw_solve_grid_sync(int *dist, int Na, int N)
{
    launch_cooperative(fwGridSync, dist, Na, N);
}

static void fw_solve_grid_sync_register(int *dist, int Na, int N)
{
    launch_cooperative(fwGridSyncRegister, dist, Na, N);
}

// ---- the given versions, in the order fw --list shows them -----------------------------------

const FwVersion fw_paper_versions[] = {
    /* name, summary, place, solve, step, upload, download, release */
    {"one-thread", "one GPU thread runs the three loops (001 III.B, Sequential GPU)",
     FW_ON_DEVICE, fw_solve_one_thread, NULL, NULL, NULL, NULL},
    {"parallel", "one launch per k, grid and work per thread from the occupancy API (001 III.C, GPU Parallel)",
     FW_ON_DEVICE, fw_solve_parallel, fw_step_parallel, NULL, NULL, NULL},
    {"grid-sync", "one cooperative kernel, grid.sync() between steps (001 III.D, Atomic GPU)",
     FW_ON_DEVICE, fw_solve_grid_sync, NULL, NULL, NULL, NULL},
    {"grid-sync-reg", "grid-sync with D(i,k) in a register (001 III.E, Memory Atomic GPU)",
     FW_ON_DEVICE, fw_solve_grid_sync_register, NULL, NULL, NULL, NULL},
};
const int fw_paper_version_count = sizeof(fw_paper_versions) / sizeof(fw_paper_versions[0]);
