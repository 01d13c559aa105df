// Lab 4, program 3: blocked Floyd-Warshall on every visible GPU (hw3-3 of
// [HW3 APSP n.d.]), one host thread (OpenMP) for each GPU.
//
// Every GPU holds the whole padded matrix but owns a band of block rows, and is the only one to
// keep those rows up to date. Each round r:
//   1. the owner of block row r (the pivot row, final after round r - 1) sends it to every other
//      GPU: a peer copy where peer access exists, through a pinned host buffer otherwise;
//   2. every GPU runs phase 1 and phase 2 itself (repeating the same small work is cheaper than
//      sending its results), phase 2's pivot column only for its own block rows;
//   3. every GPU runs phase 3 on its own block rows.
// At the end each GPU copies its own rows back to the host. The kernels are gpu.c's, with a
// range of block rows. handouts/apsp.md draws the exchange.
// Build and check with:  make check LAB=apsp   (add EMU=1 on a machine without a GPU)
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apsp.h"

#undef BLOCK      // DEFINES=-DBLOCK=... is for gpu.c (Exploration 3); this program keeps 64
#define BLOCK 64  // the blocking factor: a block is 64 x 64 entries, 16 KB of shared memory
#define HALF 32   // phases 1 and 2: 32 x 32 threads, each owning four entries of a block
#define MAX_GPUS 16

// min(a + b, d). On Hopper (sm_90) this is one DPX instruction; elsewhere CUDA emulates it.
static __device__ __forceinline__ int relax(int a, int b, int d)
{
    return __viaddmin_s32(a, b, d);
}

// Padding: entries of the vertices past n stay APSP_INF (no edges), so they change nothing.
__global__ void fill_kernel(int *data, size_t count, int value)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        data[i] = value;
}

// TODO 1: phase 1, as in your gpu.c.
__global__ void phase1_kernel(int *dist, int n_padded, int round)
{
}

// TODO 2: phase 2, as in your gpu.c, but of the pivot column (blockIdx.y == 1) only the blocks
// b of this GPU's own block rows, first_block_row <= b < first_block_row + block_rows: the
// others are stale on this GPU, and phase 3 needs only its own. The pivot row: all of it.
__global__ void phase2_kernel(int *dist, int n_padded, int round, int first_block_row, int block_rows)
{
}

// TODO 3: phase 3, as in your gpu.c, on a grid of (blocks, block_rows): block row
// first_block_row + blockIdx.y, block column blockIdx.x.
__global__ void phase3_kernel(int *dist, int n_padded, int round, int first_block_row)
{
}

// What every host thread needs to know about every GPU.
typedef struct {
    int gpus, n, n_padded, blocks;
    int first_block_row[MAX_GPUS + 1];  // GPU g owns block rows first_block_row[g] .. [g + 1] - 1
    int *dist_dev[MAX_GPUS];            // each GPU's copy of the padded matrix
    int peer[MAX_GPUS][MAX_GPUS];       // peer[g][h]: GPU g copies straight into GPU h's memory
    int *staging[2];                    // pinned host buffers of one block row, when some pair
                                        // has no peer access; two, so that round r + 1 can fill
                                        // one while GPUs may still read round r's
} Gpus;

static int owner_of(const Gpus *s, int block_row)
{
    int g = 0;
    while (block_row >= s->first_block_row[g + 1])
        ++g;
    return g;
}

static inline size_t block_row_offset(const Gpus *s, int block_row) { return (size_t)block_row * BLOCK * s->n_padded; }
static inline size_t block_row_bytes(const Gpus *s) { return (size_t)BLOCK * s->n_padded * sizeof(int); }

// The owner `me` sends block row `round` to every other GPU. Called only by the owner, whose
// phase 3 of round - 1 (queued before these copies on its stream) made that row final.
static void send_pivot_row(Gpus *s, int me, int round)
{
    // TODO 4: for every other GPU g: where s->peer[me][g], copy the block row straight into
    // g's matrix with cudaMemcpyPeerAsync(dst, g, src, me, bytes, 0); otherwise (once) copy it
    // to the host buffer s->staging[round % 2] with cudaMemcpyAsync. The row starts at
    // block_row_offset(s, round) in every GPU's matrix and is block_row_bytes(s) long. Then
    // cudaStreamSynchronize(0): the copies must be done before the barrier that lets the
    // other GPUs start the round.
    LAB_TODO("send the pivot row to the other GPUs in send_pivot_row (multigpu.c)");
}

// GPU `me` (not the owner) takes block row `round` from the host buffer, unless the owner
// already wrote it straight into this GPU's memory.
static void receive_pivot_row(Gpus *s, int me, int round, int owner)
{
    // TODO 5: unless s->peer[owner][me] (then the owner already wrote it here), copy the block
    // row from s->staging[round % 2] into this GPU's matrix, and wait for the copy to finish
    // (the owner of round + 2 refills that buffer once every thread has passed the next barrier).
    LAB_TODO("take the pivot row from the host buffer in receive_pivot_row (multigpu.c)");
}

// One round on GPU `me`: the three phases, on its own block rows.
static void run_round(const Gpus *s, int me, int round)
{
    // TODO 6: as in your gpu.c, on s->dist_dev[me], with this GPU's block rows: they start at
    // s->first_block_row[me] and end before s->first_block_row[me + 1]. Phase 2 still on a grid
    // of (s->blocks, 2); phase 3 on (s->blocks, rows).
    LAB_TODO("launch the three phases on this GPU's block rows in run_round (multigpu.c)");
}

// Copies GPU me's own rows between the host matrix (n ints a row) and its padded matrix.
static void copy_own_rows(const Gpus *s, int me, int *dist, enum cudaMemcpyKind kind)
{
    int first_row = s->first_block_row[me] * BLOCK;
    int end_row = s->first_block_row[me + 1] * BLOCK;
    if (end_row > s->n)
        end_row = s->n;
    if (end_row <= first_row)
        return;
    size_t row_bytes = (size_t)s->n * sizeof(int), padded_row_bytes = (size_t)s->n_padded * sizeof(int);
    int *host = dist + (size_t)first_row * s->n;
    int *device = s->dist_dev[me] + (size_t)first_row * s->n_padded;
    if (kind == cudaMemcpyHostToDevice)
        CUDA_CHECK(cudaMemcpy2D(device, padded_row_bytes, host, row_bytes, row_bytes, end_row - first_row, kind));
    else
        CUDA_CHECK(cudaMemcpy2D(host, row_bytes, device, padded_row_bytes, row_bytes, end_row - first_row, kind));
}

// Which GPUs, which rows each owns, and which pairs have peer access. APSP_EXCHANGE=host in the
// environment sends every pivot row through the host, to compare the two ways.
static void plan(Gpus *s, int n)
{
    memset(s, 0, sizeof *s);
    CUDA_CHECK(cudaGetDeviceCount(&s->gpus));
    s->n = n;
    s->n_padded = (n + BLOCK - 1) / BLOCK * BLOCK;
    s->blocks = s->n_padded / BLOCK;
    if (s->gpus > MAX_GPUS)
        s->gpus = MAX_GPUS;
    if (s->gpus > s->blocks)
        s->gpus = s->blocks;  // every GPU owns at least one block row
    for (int g = 0; g <= s->gpus; ++g)
        s->first_block_row[g] = (int)((long long)s->blocks * g / s->gpus);
    const char *exchange = getenv("APSP_EXCHANGE");
    int force_host = exchange != NULL && strcmp(exchange, "host") == 0;
    int via_host = 0;
    for (int g = 0; g < s->gpus; ++g)
        for (int h = 0; h < s->gpus; ++h) {
            int can = 0;
            if (g != h && !force_host)
                CUDA_CHECK(cudaDeviceCanAccessPeer(&can, g, h));
            s->peer[g][h] = can;
            via_host |= g != h && !can;
        }
    for (int b = 0; b < 2 && via_host; ++b)
        CUDA_CHECK(cudaMallocHost((void **)&s->staging[b], block_row_bytes(s)));
}

void apsp_solve(int *dist, int n, ApspTimes *times)
{
    Gpus s;
    plan(&s, n);
    double exchange_ms[MAX_GPUS] = {0};
    HostTimer step;  // the steps are timed between barriers, by one thread

    #pragma omp parallel num_threads(s.gpus)
    {
        int me = omp_get_thread_num();
        if (omp_get_num_threads() != s.gpus) {
            fprintf(stderr, "apsp-multigpu: got %d OpenMP threads for %d GPUs (is OMP_THREAD_LIMIT set?)\n",
                    omp_get_num_threads(), s.gpus);
            exit(LAB_EXIT_USAGE);
        }
        CUDA_CHECK(cudaSetDevice(me));
        for (int h = 0; h < s.gpus; ++h)
            if (s.peer[me][h]) {
                // An earlier solve in this process (a benchmark's warm-up) may have enabled it.
                cudaError_t err = cudaDeviceEnablePeerAccess(h, 0);
                if (err == cudaErrorPeerAccessAlreadyEnabled)
                    cudaGetLastError();  // clear it: not an error here
                else
                    CUDA_CHECK(err);
            }
        CUDA_CHECK(cudaMalloc((void **)&s.dist_dev[me], (size_t)s.n_padded * s.n_padded * sizeof(int)));
        GpuTimer exchange;
        #pragma omp barrier
        #pragma omp single
        step.restart();

        // Only a GPU's own rows go up: the others arrive, when needed, as pivot rows.
        fill_kernel<<<1024, 256>>>(s.dist_dev[me], (size_t)s.n_padded * s.n_padded, APSP_INF);
        CUDA_CHECK_LAUNCH();
        copy_own_rows(&s, me, dist, cudaMemcpyHostToDevice);
        CUDA_CHECK(cudaDeviceSynchronize());
        #pragma omp barrier
        #pragma omp single
        {
            times->copy_ms = step.ms();
            step.restart();
        }

        for (int round = 0; round < s.blocks; ++round) {
            int owner = owner_of(&s, round);
            if (s.gpus > 1 && me == owner) {
                exchange.start();
                send_pivot_row(&s, me, round);
                exchange.stop();
                exchange_ms[me] += exchange.ms();
            }
            #pragma omp barrier
            if (s.gpus > 1 && me != owner) {
                exchange.start();
                receive_pivot_row(&s, me, round, owner);
                exchange.stop();
                exchange_ms[me] += exchange.ms();
            }
            run_round(&s, me, round);
        }
        CUDA_CHECK(cudaDeviceSynchronize());
        #pragma omp barrier
        #pragma omp single
        {
            times->compute_ms = step.ms();
            step.restart();
        }

        copy_own_rows(&s, me, dist, cudaMemcpyDeviceToHost);
        #pragma omp barrier
        #pragma omp single
        times->copy_ms += step.ms();
        CUDA_CHECK(cudaFree(s.dist_dev[me]));
    }
    for (int g = 0; g < s.gpus; ++g)
        times->exchange_ms += exchange_ms[g];
    for (int b = 0; b < 2; ++b)
        if (s.staging[b])
            CUDA_CHECK(cudaFreeHost(s.staging[b]));
}
