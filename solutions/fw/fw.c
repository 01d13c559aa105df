// Lab 3 reference solution: Floyd-Warshall on the GPU, one kernel launch per k (Hochberg's module,
// [Hochberg 2012]), then the versions that handouts/fw.md explores, one per entry of
// fw_versions[] at the end of this file (fw --list; fw --version NAME):
//
//   0 rows           fwStepK, graded: a block is 512 entries of one row, two neighbours a thread,
//                    (i,k) in __shared__, and the reads that do not need (i,k) issued before the
//                    barrier
//   1 cpu            sequential, three loops (Exploration 5; [Carrega & Ferreira n.d.] III.A)
//   2 pitch          rows on a matrix from cudaMallocPitch (Exploration 3)
//   3 columns        a block is 256 entries of one column (Exploration 4)
//   4 module         the module's fwStepK in its own order, as the starter asks for it: (k,j) and
//                    (i,j) read after the barrier, so a block waits for memory twice a step
//   5 wide           rows with four neighbouring entries a thread, read as one int4 each: four
//                    times the bytes in flight (handout, "Bandwidth")
//
// The versions of 001 III.B to III.E (one-thread, parallel, grid-sync, grid-sync-reg) are given
// to students in labs/fw/paper_versions.cu; fw --list shows them after these.
//
// Why any order of blocks is right (Exploration 1): step k only ever lowers (i,j) to
// d(i,k) + d(k,j), and it never changes row k or column k, because d(k,k) = 0 makes
// d(i,k) + d(k,k) = d(i,k). So every block reads the same (i,k) and (k,j) whenever it runs.
#include "fw.h"

#define THREADS_PER_BLOCK 256

// ---- 0 rows: the lab's kernel --------------------------------------------------------------
//
// The module's fwStepK (version module below) has a block wait for thread 0's read of (i,k),
// and only then ask for (k,j) and (i,j): two trips to memory one after the other, each some
// hundreds of cycles. Neither of those two reads needs (i,k), so here they go out before the
// barrier, and the block waits for all three at once. Reading (i,j) early is safe: only this
// thread writes it during step k. At n = 8192 on an H100 that takes a step from 0.77 of a
// device-to-device copy's rate to 1.03, 0.239 ms to 0.181 ms (handouts/fw.md, "Bandwidth").
//
// And each thread takes two neighbouring entries of the row, with one 8-byte read of row k and
// one of row i. A step waits on memory latency, not on bytes: with one 4-byte read of (i,j) a
// thread, an SM's 2048 threads keep 8 KB in flight, about 1.5 TB/s over 132 SMs at some 0.7 us
// of latency, whatever the card. That is about an H100's copy rate by the bench's count, but
// 0.73 of an H200's (4.1 TB/s), whose Nsight Compute report shows the same 1.5 TB/s read and the
// threads waiting at the barrier. Two entries a thread double the bytes in flight and halve the
// blocks and load instructions (handouts/fw.md, "Bandwidth"). The pair is read as one int2 when
// Na is even (every row then starts 8-byte aligned; Na is a multiple of ALIGNMENT) and both
// columns are inside; the last thread of an odd N reads its one column alone.
#define ENTRIES_PER_THREAD 2
#define ENTRIES_PER_BLOCK (ENTRIES_PER_THREAD * THREADS_PER_BLOCK)

// Step k for entries (i, j) and (i, j + 1): the block is ENTRIES_PER_BLOCK entries of row
// i = blockIdx.y.
__global__ void fwStepK(int k, int devArray[], int Na, int N)
{
    int col = (blockIdx.x * blockDim.x + threadIdx.x) * ENTRIES_PER_THREAD; /* this thread's first column */
    int row = blockIdx.y;
    int arrayIndex = Na * row + col;
    bool inside = col < N; /* columns N..Na-1 are padding: never read, never written */
    bool pair = col + 1 < N; /* the second column inside too */
    int tckr[2] = {FW_INF, FW_INF}; /* this column and the next, kth row */
    int current[2] = {0, 0};
    if (pair && Na % 2 == 0) {
        int2 through = *(const int2 *)&devArray[k * Na + col];
        int2 now = *(const int2 *)&devArray[arrayIndex];
        tckr[0] = through.x; tckr[1] = through.y;
        current[0] = now.x; current[1] = now.y;
    } else if (inside) {
        tckr[0] = devArray[k * Na + col];
        current[0] = devArray[arrayIndex];
        if (pair) {
            tckr[1] = devArray[k * Na + col + 1];
            current[1] = devArray[arrayIndex + 1];
        }
    }
    __shared__ int trkc; /* this row, kth column: read once, shared by the block */
    if (threadIdx.x == 0)
        trkc = devArray[Na * row + k];
    // Every thread of the block reaches the barrier; only then may threads leave. (The module
    // returns the padding threads before it, which works on today's GPUs but is outside what
    // CUDA promises for __syncthreads.)
    __syncthreads();
    if (!inside || trkc == FW_INF)
        return;
    for (int e = 0; e < ENTRIES_PER_THREAD; e++) {
        if (tckr[e] == FW_INF) /* no path from k to this column (and the padding past an odd N) */
            continue;
        int betterMaybe = trkc + tckr[e];
        if (betterMaybe < current[e])
            devArray[arrayIndex + e] = betterMaybe;
    }
}

static void launch_rows(int k, int *devArray, int Na, int N)
{
    dim3 blocksPerGrid((Na + ENTRIES_PER_BLOCK - 1) / ENTRIES_PER_BLOCK, N);
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

// ---- 2 pitch: cudaMallocPitch picks the row length (Exploration 3) -------------------------

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

// ---- 3 columns: a block is part of a column (Exploration 4) ---------------------------------

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

// ---- 4 module: the module's own order of reads ----------------------------------------------
//
// fwStepK as the module prints it and the starter asks for it (with the barrier reached by
// every thread): the block waits for thread 0's (i,k), then each thread reads (k,j), then (i,j).
// Threads skip those reads where (i,k) is FW_INF, which saves bytes in the early steps, but each
// step waits for memory twice, and that costs more: 0.77 of a copy's rate at n = 8192.

__global__ void fwStepKModule(int k, int devArray[], int Na, int N)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y;
    __shared__ int trkc;
    if (threadIdx.x == 0)
        trkc = devArray[Na * row + k];
    __syncthreads();
    if (col >= N || trkc == FW_INF)
        return;
    int tckr = devArray[k * Na + col];
    if (tckr == FW_INF)
        return;
    int betterMaybe = trkc + tckr;
    int arrayIndex = Na * row + col;
    if (betterMaybe < devArray[arrayIndex])
        devArray[arrayIndex] = betterMaybe;
}

static void launch_module(int k, int *devArray, int Na, int N)
{
    dim3 blocksPerGrid((Na + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, N);
    fwStepKModule<<<blocksPerGrid, THREADS_PER_BLOCK>>>(k, devArray, Na, N);
    CUDA_CHECK_LAUNCH();
}

static void fw_step_module(int k, int *devArray, int Na, int N)
{
    launch_module(k, devArray, Na, N);
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void fw_solve_module(int *devArray, int Na, int N)
{
    for (int k = 0; k < N; k++)
        launch_module(k, devArray, Na, N);
    CUDA_CHECK(cudaDeviceSynchronize());
}

// ---- 5 wide: four entries a thread ----------------------------------------------------------
//
// rows waits on latency, not bytes (the comment above fwStepK): one 4-byte read of (i,j) a
// thread keeps 8 KB in flight an SM, about 1.5 TB/s over 132 SMs, 0.73 of an H200's copy;
// rows' two entries a thread double that. Here each thread reads four neighbouring entries of
// row k and of row i with one 16-byte load each: twice rows' bytes in flight again, half its
// load instructions and blocks (handouts/fw.md, "Bandwidth"). Rows are Na ints apart, Na a
// multiple of ALIGNMENT, so each int4 is 16-byte aligned when Na % 4 == 0; for another
// ALIGNMENT the step falls back to fwStepK. Only improved entries are written, one int at a
// time (the padding past N is never written).
#define WIDE 4

__global__ void fwStepKWide(int k, int *devArray, int Na, int N)
{
    int col = (blockIdx.x * blockDim.x + threadIdx.x) * WIDE; /* this thread's first column */
    int row = blockIdx.y;
    bool inside = col < N;
    int4 tckr = make_int4(FW_INF, FW_INF, FW_INF, FW_INF), current = make_int4(0, 0, 0, 0);
    if (inside) {
        tckr = *(const int4 *)&devArray[k * Na + col];
        current = *(const int4 *)&devArray[Na * row + col];
    }
    __shared__ int trkc;
    if (threadIdx.x == 0)
        trkc = devArray[Na * row + k];
    __syncthreads();
    if (!inside || trkc == FW_INF)
        return;
    const int through[WIDE] = {tckr.x, tckr.y, tckr.z, tckr.w};
    const int now[WIDE] = {current.x, current.y, current.z, current.w};
    for (int e = 0; e < WIDE && col + e < N; e++)
        if (through[e] != FW_INF && trkc + through[e] < now[e])
            devArray[Na * row + col + e] = trkc + through[e];
}

static void launch_wide(int k, int *devArray, int Na, int N)
{
    if (Na % WIDE != 0) { /* rows not 16-byte aligned: one entry a thread */
        launch_rows(k, devArray, Na, N);
        return;
    }
    dim3 blocksPerGrid((Na / WIDE + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, N);
    fwStepKWide<<<blocksPerGrid, THREADS_PER_BLOCK>>>(k, devArray, Na, N);
    CUDA_CHECK_LAUNCH();
}

static void fw_step_wide(int k, int *devArray, int Na, int N)
{
    launch_wide(k, devArray, Na, N);
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void fw_solve_wide(int *devArray, int Na, int N)
{
    for (int k = 0; k < N; k++)
        launch_wide(k, devArray, Na, N);
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
    {"rows", "fwStepK: one launch per k, a block is 512 entries of a row, two a thread, (i,k) in __shared__, (k,j) and (i,j) read before the barrier",
     FW_ON_DEVICE, fw_solve_rows, fw_step_rows, NULL, NULL, NULL},
    {"cpu", "sequential CPU, three loops (Exploration 5; Table II's CPU Sequential)",
     FW_ON_HOST, fw_solve_cpu, fw_step_cpu, NULL, NULL, NULL},
    {"pitch", "rows on a matrix from cudaMallocPitch (Exploration 3)",
     FW_ON_DEVICE, fw_solve_rows, fw_step_rows, upload_pitched, download_pitched, release_pitched},
    {"columns", "one launch per k, a block is 256 entries of a column (Exploration 4)",
     FW_ON_DEVICE, fw_solve_columns, fw_step_columns, NULL, NULL, NULL},
    {"module", "the module's fwStepK as the starter asks: (k,j) and (i,j) read after the barrier, two waits for memory a step",
     FW_ON_DEVICE, fw_solve_module, fw_step_module, NULL, NULL, NULL},
    {"wide", "rows with four entries a thread, one int4 read each: four times the bytes in flight (handout, Bandwidth)",
     FW_ON_DEVICE, fw_solve_wide, fw_step_wide, NULL, NULL, NULL},
};
const int fw_version_count = sizeof(fw_versions) / sizeof(fw_versions[0]);
