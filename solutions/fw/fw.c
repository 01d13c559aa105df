// Lab 3 reference solution: Floyd-Warshall on the GPU, one kernel launch per k (Hochberg's module,
// 000_2682084cffe7dce6.txt), then the versions that handouts/fw.md explores, one per entry of
// fw_versions[] at the end of this file (fw --list; fw --version NAME):
//
//   0 rows           the module's fwStepK: a block is 256 entries of one row, (i,k) in __shared__
//   1 cpu            sequential, three loops (Exploration 5; 001_dee1cd7baf3618fc.txt III.A)
//   2 one-thread     one GPU thread runs the three loops (001 III.B)
//   3 parallel       one launch per k, grid and work per thread from the occupancy API (001 III.C)
//   4 grid-sync      one cooperative kernel, grid.sync() between steps (001 III.D, done safely)
//   5 grid-sync-reg  grid-sync with D(i,k) kept in a register (001 III.E)
//   6 pitch          rows on a matrix from cudaMallocPitch (Exploration 3)
//   7 columns        a block is 256 entries of one column (Exploration 4)
//   8 rows-prefetch  rows with the two loads that do not need (i,k) issued before the barrier
//
// Why any order of blocks is right (Exploration 1): step k only ever lowers (i,j) to
// d(i,k) + d(k,j), and it never changes row k or column k, because d(k,k) = 0 makes
// d(i,k) + d(k,k) = d(i,k). So every block reads the same (i,k) and (k,j) whenever it runs.
#include <cooperative_groups.h>

#include "fw.h"

namespace cg = cooperative_groups;

#define THREADS_PER_BLOCK 256

// ---- 0 rows: the lab's kernel --------------------------------------------------------------

// Step k for one entry (i, j): the block is THREADS_PER_BLOCK entries of row i = blockIdx.y.
__global__ void fwStepK(int k, int devArray[], int Na, int N)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x; /* this thread's matrix column */
    int row = blockIdx.y;
    __shared__ int trkc; /* this row, kth column: read once, shared by the block */
    if (threadIdx.x == 0)
        trkc = devArray[Na * row + k];
    // Every thread of the block reaches the barrier; only then may threads leave. (The module
    // returns the padding threads before it, which works on today's GPUs but is outside what
    // CUDA promises for __syncthreads.)
    __syncthreads();
    if (col >= N || trkc == FW_INF)
        return;
    int tckr = devArray[k * Na + col]; /* this column, kth row */
    if (tckr == FW_INF)
        return;
    int betterMaybe = trkc + tckr;
    int arrayIndex = Na * row + col;
    if (betterMaybe < devArray[arrayIndex])
        devArray[arrayIndex] = betterMaybe;
}

static void launch_rows(int k, int *devArray, int Na, int N)
{
    dim3 blocksPerGrid((Na + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, N);
    fwStepK<<<blocksPerGrid, THREADS_PER_BLOCK>>>(k, devArray, Na, N);
    CUDA_CHECK_LAUNCH();
}

static void fw_step_rows(int k, int *devArray, int Na, int N)
{
    launch_rows(k, devArray, Na, N);
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void fw_solve_rows(int *devArray, int Na, int N)
{
    // Kernels launched into one stream run one after another, so step k+1 starts only when
    // step k is done: the module's cudaThreadSynchronize() after each launch is not needed
    // for order. Each launch is checked at once; one wait at the end reports what ran wrong.
    for (int k = 0; k < N; k++)
        launch_rows(k, devArray, Na, N);
    CUDA_CHECK(cudaDeviceSynchronize());
}

// ---- 1 cpu: sequential Floyd-Warshall (Exploration 5) ---------------------------------------

// Step k on the CPU. Row k does not change in step k (d(k,k) = 0), so it is skipped; the inner
// loop has no branch, so the compiler turns it into vector instructions (with gcc -O3, about
// three times faster than the same loop written with an if).
static void fw_step_cpu(int k, int *dist, int Na, int N)
{
    const int *row_k = dist + (size_t)k * Na;
    for (int i = 0; i < N; i++) {
        int dik = dist[(size_t)i * Na + k];
        if (i == k || dik == FW_INF)
            continue;
        int *row_i = dist + (size_t)i * Na;
        for (int j = 0; j < N; j++) {
            int through_k = row_k[j] == FW_INF ? FW_INF : dik + row_k[j];
            row_i[j] = through_k < row_i[j] ? through_k : row_i[j];
        }
    }
}

static void fw_solve_cpu(int *dist, int Na, int N)
{
    for (int k = 0; k < N; k++)
        fw_step_cpu(k, dist, Na, N);
}

// ---- 2 one-thread: the three loops in one GPU thread (001 III.B) ------------------------------

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

// ---- 3 parallel: work per thread sized by the occupancy API (001 III.C) ---------------------
//
// The grid is as large as can be resident at once, and each thread takes `work` consecutive
// entries of the N x N matrix (row-major, padding skipped). Consecutive entries per thread
// means a warp's 32 threads read addresses `work` ints apart: not coalesced.

__device__ void relax_run(int k, int *dist, int Na, int N, long long first, int work)
{
    long long cells = (long long)N * N;
    if (first >= cells)
        return;
    int i = (int)(first / N), j = (int)(first % N);
    for (int counter = 0; counter < work; counter++) {
        int dik = dist[i * Na + k];
        int dkj = dist[k * Na + j];
        if (dik != FW_INF && dkj != FW_INF && dik + dkj < dist[i * Na + j])
            dist[i * Na + j] = dik + dkj;
        if (++j == N) {
            j = 0;
            if (++i == N)
                return;
        }
    }
}

__global__ void fwStepKWork(int k, int *dist, int Na, int N, int work)
{
    long long thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    relax_run(k, dist, Na, N, thread * work, work);
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

// ---- 4 grid-sync and 5 grid-sync-reg: one kernel for all N steps (001 III.D, III.E) ---------
//
// The paper's barrier is hand-made: each block sets its flag in an array and spins until all
// are set. That waits forever as soon as the grid has more blocks than the GPU can hold at
// once: the resident blocks spin, and the rest never get a multiprocessor to run on (the
// flags also need volatile reads and a __threadfence, and resetting a flag for the next step
// races with slower blocks still reading it). cooperative_groups' grid.sync() is that barrier
// done right, and cudaLaunchCooperativeKernel refuses a grid that cannot be resident at once.

__global__ void fwGridSync(int *dist, int Na, int N, int work)
{
    cg::grid_group grid = cg::this_grid();
    long long first = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * work;
    for (int k = 0; k < N; k++) {
        relax_run(k, dist, Na, N, first, work);
        grid.sync();  // step k is done everywhere before any thread starts step k+1
    }
}

// As fwGridSync, with D(i,k) read once per row of the run instead of once per entry.
__global__ void fwGridSyncRegister(int *dist, int Na, int N, int work)
{
    cg::grid_group grid = cg::this_grid();
    long long first = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * work;
    long long cells = (long long)N * N;
    for (int k = 0; k < N; k++) {
        if (first < cells) {
            int i = (int)(first / N), j = (int)(first % N);
            int dik = dist[i * Na + k]; /* step k never changes column k */
            for (int counter = 0; counter < work; counter++) {
                int dkj = dist[k * Na + j];
                if (dik != FW_INF && dkj != FW_INF && dik + dkj < dist[i * Na + j])
                    dist[i * Na + j] = dik + dkj;
                if (++j == N) {
                    j = 0;
                    if (++i == N)
                        break;
                    dik = dist[i * Na + k];
                }
            }
        }
        grid.sync();
    }
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

// ---- 6 pitch: cudaMallocPitch picks the row length (Exploration 3) -------------------------

static int *upload_pitched(const int *graph, int Na, int N, int *stride)
{
    int *dist = NULL;
    size_t pitch = 0; /* bytes from one row to the next, chosen by CUDA */
    CUDA_CHECK(cudaMallocPitch((void **)&dist, &pitch, N * sizeof(int), N));
    CUDA_CHECK(cudaMemcpy2D(dist, pitch, graph, Na * sizeof(int), N * sizeof(int), N,
                            cudaMemcpyHostToDevice));
    *stride = (int)(pitch / sizeof(int));
    return dist;
}

static void download_pitched(int *graph, int Na, int N, const int *dist, int stride)
{
    CUDA_CHECK(cudaMemcpy2D(graph, Na * sizeof(int), dist, stride * sizeof(int), N * sizeof(int), N,
                            cudaMemcpyDeviceToHost));
}

static void release_pitched(int *dist)
{
    CUDA_CHECK(cudaFree(dist));
}

// ---- 7 columns: a block is part of a column (Exploration 4) ---------------------------------

__global__ void fwStepKColumns(int k, int devArray[], int Na, int N)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y;
    __shared__ int tckr; /* this column, kth row: shared by the block */
    if (threadIdx.x == 0)
        tckr = devArray[k * Na + col];
    __syncthreads();
    if (row >= N || tckr == FW_INF)
        return;
    int trkc = devArray[Na * row + k]; /* each thread its own row: Na ints apart, uncoalesced */
    if (trkc == FW_INF)
        return;
    int betterMaybe = trkc + tckr;
    int arrayIndex = Na * row + col;
    if (betterMaybe < devArray[arrayIndex])
        devArray[arrayIndex] = betterMaybe;
}

static void launch_columns(int k, int *devArray, int Na, int N)
{
    dim3 blocksPerGrid((N + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, N);
    fwStepKColumns<<<blocksPerGrid, THREADS_PER_BLOCK>>>(k, devArray, Na, N);
    CUDA_CHECK_LAUNCH();
}

static void fw_step_columns(int k, int *devArray, int Na, int N)
{
    launch_columns(k, devArray, Na, N);
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void fw_solve_columns(int *devArray, int Na, int N)
{
    for (int k = 0; k < N; k++)
        launch_columns(k, devArray, Na, N);
    CUDA_CHECK(cudaDeviceSynchronize());
}

// ---- 8 rows-prefetch: the same work, fewer waits ------------------------------------------
//
// In fwStepK a block first waits for thread 0's read of (i,k), and only then asks for (k,j)
// and (i,j): two trips to memory one after the other. Neither of those two reads needs (i,k),
// so here they go out before the barrier, and the block waits for all three at once. (Reading
// (i,j) early is safe: only this thread writes it during step k.)

__global__ void fwStepKPrefetch(int k, int devArray[], int Na, int N)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y;
    bool inside = col < N;
    int tckr = inside ? devArray[k * Na + col] : FW_INF;
    int current = inside ? devArray[Na * row + col] : 0;
    __shared__ int trkc;
    if (threadIdx.x == 0)
        trkc = devArray[Na * row + k];
    __syncthreads();
    if (!inside || trkc == FW_INF || tckr == FW_INF)
        return;
    int betterMaybe = trkc + tckr;
    if (betterMaybe < current)
        devArray[Na * row + col] = betterMaybe;
}

static void launch_prefetch(int k, int *devArray, int Na, int N)
{
    dim3 blocksPerGrid((Na + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, N);
    fwStepKPrefetch<<<blocksPerGrid, THREADS_PER_BLOCK>>>(k, devArray, Na, N);
    CUDA_CHECK_LAUNCH();
}

static void fw_step_prefetch(int k, int *devArray, int Na, int N)
{
    launch_prefetch(k, devArray, Na, N);
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void fw_solve_prefetch(int *devArray, int Na, int N)
{
    for (int k = 0; k < N; k++)
        launch_prefetch(k, devArray, Na, N);
    CUDA_CHECK(cudaDeviceSynchronize());
}

// ---- Exploration 8: the next-hop matrix -----------------------------------------------------

// fwStepK that also records where to step: when k improves (i, j), the path i -> j now starts
// as the path i -> k does, so next(i, j) = next(i, k). Like (i, k), next(i, k) does not change
// during step k, and the block shares it.
__global__ void fwStepKNext(int k, int *dist, int *next, int Na, int N)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y;
    __shared__ int trkc, hop;
    if (threadIdx.x == 0) {
        trkc = dist[Na * row + k];
        hop = next[Na * row + k];
    }
    __syncthreads();
    if (col >= N || trkc == FW_INF)
        return;
    int tckr = dist[k * Na + col];
    if (tckr == FW_INF)
        return;
    int betterMaybe = trkc + tckr;
    int arrayIndex = Na * row + col;
    if (betterMaybe < dist[arrayIndex]) {
        dist[arrayIndex] = betterMaybe;
        next[arrayIndex] = hop;
    }
}

void fw_solve_with_next(int *dist, int *next, int Na, int N)
{
    dim3 blocksPerGrid((Na + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, N);
    for (int k = 0; k < N; k++) {
        fwStepKNext<<<blocksPerGrid, THREADS_PER_BLOCK>>>(k, dist, next, Na, N);
        CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}

// ---- the versions, in the order fw --list shows them ----------------------------------------

const FwVersion fw_versions[] = {
    /* name, summary, place, solve, step, upload, download, release */
    {"rows", "the module's fwStepK: one launch per k, a block is 256 entries of a row, (i,k) in __shared__",
     FW_ON_DEVICE, fw_solve_rows, fw_step_rows, NULL, NULL, NULL},
    {"cpu", "sequential CPU, three loops (Exploration 5; Table II's CPU Sequential)",
     FW_ON_HOST, fw_solve_cpu, fw_step_cpu, NULL, NULL, NULL},
    {"one-thread", "one GPU thread runs the three loops (001 III.B, Sequential GPU)",
     FW_ON_DEVICE, fw_solve_one_thread, NULL, NULL, NULL, NULL},
    {"parallel", "one launch per k, grid and work per thread from the occupancy API (001 III.C, GPU Parallel)",
     FW_ON_DEVICE, fw_solve_parallel, fw_step_parallel, NULL, NULL, NULL},
    {"grid-sync", "one cooperative kernel, grid.sync() between steps (001 III.D, Atomic GPU)",
     FW_ON_DEVICE, fw_solve_grid_sync, NULL, NULL, NULL, NULL},
    {"grid-sync-reg", "grid-sync with D(i,k) in a register (001 III.E, Memory Atomic GPU)",
     FW_ON_DEVICE, fw_solve_grid_sync_register, NULL, NULL, NULL, NULL},
    {"pitch", "rows on a matrix from cudaMallocPitch (Exploration 3)",
     FW_ON_DEVICE, fw_solve_rows, fw_step_rows, upload_pitched, download_pitched, release_pitched},
    {"columns", "one launch per k, a block is 256 entries of a column (Exploration 4)",
     FW_ON_DEVICE, fw_solve_columns, fw_step_columns, NULL, NULL, NULL},
    {"rows-prefetch", "rows, with (k,j) and (i,j) read before the barrier: one wait for memory, not two",
     FW_ON_DEVICE, fw_solve_prefetch, fw_step_prefetch, NULL, NULL, NULL},
};
const int fw_version_count = sizeof(fw_versions) / sizeof(fw_versions[0]);
