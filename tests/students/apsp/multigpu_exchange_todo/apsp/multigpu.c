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
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apsp.h"

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

// Phase 1, as in my gpu.c.
__global__ void phase1_kernel(int *dist, int n_padded, int round)
{
    __shared__ int pivot[BLOCK][BLOCK];
    int i = threadIdx.y, j = threadIdx.x;
    int *block = dist + (size_t)round * BLOCK * n_padded + round * BLOCK;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            pivot[i + a * HALF][j + b * HALF] = block[(size_t)(i + a * HALF) * n_padded + j + b * HALF];
    __syncthreads();
    for (int k = 0; k < BLOCK; k++) {
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                int r = i + a * HALF, c = j + b * HALF;
                pivot[r][c] = relax(pivot[r][k], pivot[k][c], pivot[r][c]);
            }
        __syncthreads();
    }
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            block[(size_t)(i + a * HALF) * n_padded + j + b * HALF] = pivot[i + a * HALF][j + b * HALF];
}

// Phase 2, as in my gpu.c, the column only on my rows.
__global__ void phase2_kernel(int *dist, int n_padded, int round, int first_block_row, int block_rows)
{
    int b = blockIdx.x;
    if (b == round)
        return;
    // of the pivot column, only my own block rows: the others are stale here
    if (blockIdx.y == 1 && (b < first_block_row || b >= first_block_row + block_rows))
        return;
    __shared__ int pivot[BLOCK][BLOCK];
    __shared__ int own[BLOCK][BLOCK];
    int i = threadIdx.y, j = threadIdx.x;
    int R = blockIdx.y == 0 ? round : b;  // the pivot row's block (round, b), or the column's (b, round)
    int C = blockIdx.y == 0 ? b : round;
    int *pivot_block = dist + (size_t)round * BLOCK * n_padded + round * BLOCK;
    int *own_block = dist + (size_t)R * BLOCK * n_padded + C * BLOCK;
    for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++) {
            int r = i + a * HALF, col = j + c * HALF;
            pivot[r][col] = pivot_block[(size_t)r * n_padded + col];
            own[r][col] = own_block[(size_t)r * n_padded + col];
        }
    __syncthreads();
    for (int k = 0; k < BLOCK; k++) {
        for (int a = 0; a < 2; a++)
            for (int c = 0; c < 2; c++) {
                int r = i + a * HALF, col = j + c * HALF;
                if (blockIdx.y == 0)
                    own[r][col] = relax(pivot[r][k], own[k][col], own[r][col]);
                else
                    own[r][col] = relax(own[r][k], pivot[k][col], own[r][col]);
            }
        __syncthreads();
    }
    for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++)
            own_block[(size_t)(i + a * HALF) * n_padded + j + c * HALF] = own[i + a * HALF][j + c * HALF];
}

// Phase 3 on my block rows.
__global__ void phase3_kernel(int *dist, int n_padded, int round, int first_block_row)
{
    int R = first_block_row + blockIdx.y, C = blockIdx.x;
    if (R == round || C == round)
        return;
    __shared__ int column[BLOCK][BLOCK];
    __shared__ int row[BLOCK][BLOCK];
    int i = threadIdx.y, j = threadIdx.x;
    int *own_block = dist + (size_t)R * BLOCK * n_padded + C * BLOCK;
    int *column_block = dist + (size_t)R * BLOCK * n_padded + round * BLOCK;
    int *row_block = dist + (size_t)round * BLOCK * n_padded + C * BLOCK;
    int mine[2][2];
    for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++) {
            int r = i + a * HALF, col = j + c * HALF;
            column[r][col] = column_block[(size_t)r * n_padded + col];
            row[r][col] = row_block[(size_t)r * n_padded + col];
            mine[a][c] = own_block[(size_t)r * n_padded + col];
        }
    __syncthreads();
    for (int k = 0; k < BLOCK; k++)
        for (int a = 0; a < 2; a++)
            for (int c = 0; c < 2; c++)
                mine[a][c] = relax(column[i + a * HALF][k], row[k][j + c * HALF], mine[a][c]);
    for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++)
            own_block[(size_t)(i + a * HALF) * n_padded + j + c * HALF] = mine[a][c];
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
    // TODO 4 (later): the exchange. It runs right on one GPU without it, and the kernels come first.
}

// GPU `me` (not the owner) takes block row `round` from the host buffer, unless the owner
// already wrote it straight into this GPU's memory.
static void receive_pivot_row(Gpus *s, int me, int round, int owner)
{
    // TODO 5 (later), with TODO 4.
}

// One round on GPU `me`: the three phases, on its own block rows.
static void run_round(const Gpus *s, int me, int round)
{
    int first = s->first_block_row[me];
    int rows = s->first_block_row[me + 1] - first;
    int *dist = s->dist_dev[me];
    dim3 threads(HALF, HALF);
    phase1_kernel<<<1, threads>>>(dist, s->n_padded, round);
    CUDA_CHECK_LAUNCH();
    phase2_kernel<<<dim3(s->blocks, 2), threads>>>(dist, s->n_padded, round, first, rows);
    CUDA_CHECK_LAUNCH();
    phase3_kernel<<<dim3(s->blocks, rows), threads>>>(dist, s->n_padded, round, first);
    CUDA_CHECK_LAUNCH();
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
