// Hostile submission (issue 32): a multi-GPU program that uses every device only under the
// emulator (CUDA_EMULATION); built by nvcc it plans for one device whatever the node has. The
// answer is right. On a node of 2 or more GPUs, the GPU record shows nothing on device 1 where
// the emulated run (on as many devices) copied a band of rows and launched phase kernels there:
// the multigpu cases lose their points. On one GPU, or under EMU alone: AC.
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

#undef BLOCK      // DEFINES=-DBLOCK=... is for gpu.c (Exploration 3); this program keeps 64
#define BLOCK 64  // the blocking factor: a block is 64 x 64 entries, 16 KB of shared memory
#define HALF 32   // phase 1: 32 x 32 threads, each owning four entries of the pivot block
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

// Phase 1: one thread block, 32 x 32 threads; thread (i, j) owns entries (i, j), (i, j + 32),
// (i + 32, j) and (i + 32, j + 32). Step k reads row k and column k, which step k leaves as
// they are (d(k,k) = 0), so one barrier a step is enough.
__global__ void phase1_kernel(int *dist, int n_padded, int round)
{
    __shared__ int pivot[BLOCK][BLOCK];
    int i = threadIdx.y, j = threadIdx.x;
    int *block = dist + (size_t)round * BLOCK * n_padded + round * BLOCK;
    for (int di = 0; di < BLOCK; di += HALF)
        for (int dj = 0; dj < BLOCK; dj += HALF)
            pivot[i + di][j + dj] = block[(size_t)(i + di) * n_padded + j + dj];
    __syncthreads();
    for (int k = 0; k < BLOCK; ++k) {
        for (int di = 0; di < BLOCK; di += HALF)
            for (int dj = 0; dj < BLOCK; dj += HALF)
                pivot[i + di][j + dj] = relax(pivot[i + di][k], pivot[k][j + dj], pivot[i + di][j + dj]);
        __syncthreads();
    }
    for (int di = 0; di < BLOCK; di += HALF)
        for (int dj = 0; dj < BLOCK; dj += HALF)
            block[(size_t)(i + di) * n_padded + j + dj] = pivot[i + di][j + dj];
}

// Phases 2 and 3 of the reference share one piece: a min-plus product of two blocks held in
// shared memory into a thread's tile of a third, kept in registers (handouts/apsp.md, "Going
// further"). 64 threads (8 x 8) a block, each owning an 8 x 8 tile: rows 4ty..4ty+3 and
// 32+4ty..32+4ty+3, columns 4tx..4tx+3 and 32+4tx..32+4tx+3. For each k a thread reads 8
// values of the left block and 8 of the right one (four 16-byte shared-memory loads) and does
// 64 updates, so the loads no longer compete with the arithmetic as they do with four entries a
// thread. The left block is stored transposed (left_t[k][i] = left(i, k)) so that a thread's
// four consecutive rows are one 16-byte load.
#define TILE_THREADS 64
#define TILE_SIDE 8  // threads a side; each thread owns TILE_SIDE x TILE_SIDE entries

// Block (R, C) of the matrix into shared memory, as it is or transposed. 16-byte global loads;
// for the transposed copy a warp reads 32 consecutive rows at the same k and writes 32
// consecutive words of shared memory: no bank conflicts.
static __device__ __forceinline__ void load_block(int (*block)[BLOCK], const int *dist, int n_padded, int R, int C)
{
    const int *src = dist + (size_t)R * BLOCK * n_padded + C * BLOCK;
    for (int q = threadIdx.x; q < BLOCK * BLOCK / 4; q += TILE_THREADS) {
        int r = q / (BLOCK / 4), c = q % (BLOCK / 4) * 4;
        *(int4 *)&block[r][c] = *(const int4 *)&src[(size_t)r * n_padded + c];
    }
}

static __device__ __forceinline__ void load_block_transposed(int (*block_t)[BLOCK], const int *dist, int n_padded, int R, int C)
{
    const int *src = dist + (size_t)R * BLOCK * n_padded + C * BLOCK;
    for (int q = threadIdx.x; q < BLOCK * BLOCK / 4; q += TILE_THREADS) {
        int i = q % BLOCK, k = q / BLOCK * 4;
        int4 v = *(const int4 *)&src[(size_t)i * n_padded + k];
        block_t[k][i] = v.x;
        block_t[k + 1][i] = v.y;
        block_t[k + 2][i] = v.z;
        block_t[k + 3][i] = v.w;
    }
}

// Block (R, C) updated through the two blocks in shared memory (after a barrier):
//   d(i, j) = min(d(i, j), min over k of left_t[k][i] + right[k][j]).
static __device__ __forceinline__ void min_plus_into(int *dist, int n_padded, int R, int C,
                                                     const int (*left_t)[BLOCK], const int (*right)[BLOCK])
{
    int tx = threadIdx.x % TILE_SIDE, ty = threadIdx.x / TILE_SIDE;
    int *own = dist + (size_t)R * BLOCK * n_padded + C * BLOCK;
    int d[TILE_SIDE][TILE_SIDE];
    #pragma unroll
    for (int a = 0; a < TILE_SIDE; ++a) {
        int i = (a / 4) * HALF + 4 * ty + a % 4;
        int4 lo = *(const int4 *)&own[(size_t)i * n_padded + 4 * tx];
        int4 hi = *(const int4 *)&own[(size_t)i * n_padded + HALF + 4 * tx];
        d[a][0] = lo.x; d[a][1] = lo.y; d[a][2] = lo.z; d[a][3] = lo.w;
        d[a][4] = hi.x; d[a][5] = hi.y; d[a][6] = hi.z; d[a][7] = hi.w;
    }
    #pragma unroll 4
    for (int k = 0; k < BLOCK; ++k) {
        int4 a_lo = *(const int4 *)&left_t[k][4 * ty], a_hi = *(const int4 *)&left_t[k][HALF + 4 * ty];
        int4 b_lo = *(const int4 *)&right[k][4 * tx], b_hi = *(const int4 *)&right[k][HALF + 4 * tx];
        int a[TILE_SIDE] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
        int b[TILE_SIDE] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
        #pragma unroll
        for (int x = 0; x < TILE_SIDE; ++x)
            #pragma unroll
            for (int y = 0; y < TILE_SIDE; ++y)
                d[x][y] = relax(a[x], b[y], d[x][y]);
    }
    #pragma unroll
    for (int a = 0; a < TILE_SIDE; ++a) {
        int i = (a / 4) * HALF + 4 * ty + a % 4;
        *(int4 *)&own[(size_t)i * n_padded + 4 * tx] = make_int4(d[a][0], d[a][1], d[a][2], d[a][3]);
        *(int4 *)&own[(size_t)i * n_padded + HALF + 4 * tx] = make_int4(d[a][4], d[a][5], d[a][6], d[a][7]);
    }
}

// Phase 2: grid (blocks, 2). blockIdx.y == 0: block (r, b) of the pivot row; == 1: block (b, r)
// of the pivot column; b == r is the pivot block itself, done in phase 1. The pivot block P is
// closed after phase 1 (P(i,k) is the shortest path from i to k through the pivot's vertices),
// so the k loop needs no barrier either: row block = min(row block, P x row block), column
// block = min(column block, column block x P), products in the min-plus sense. The starter's
// way, k by k with a barrier each, gives the same distances.
//
// Of the pivot column, a GPU updates only the blocks of its own block rows (first_block_row and
// the block_rows after it): the others are stale on this GPU, and phase 3 needs only its own.
__global__ void __launch_bounds__(TILE_THREADS) phase2_kernel(int *dist, int n_padded, int round,
                                                              int first_block_row, int block_rows)
{
    int b = blockIdx.x;
    if (b == round)
        return;
    if (blockIdx.y == 1 && (b < first_block_row || b >= first_block_row + block_rows))
        return;
    __shared__ __align__(16) int left_t[BLOCK][BLOCK];
    __shared__ __align__(16) int right[BLOCK][BLOCK];
    bool in_pivot_row = blockIdx.y == 0;
    int R = in_pivot_row ? round : b, C = in_pivot_row ? b : round;
    load_block_transposed(left_t, dist, n_padded, R, round);  // P, or the column block itself
    load_block(right, dist, n_padded, round, C);              // the row block itself, or P
    __syncthreads();
    min_plus_into(dist, n_padded, R, C, left_t, right);
}

// Phase 3 does nearly all the work ((blocks - 1)^2 blocks a round, 64^3 updates each): block
// (R, C) through block (R, r) of the pivot column and block (r, C) of the pivot row.
// Grid (blocks, block_rows): this GPU's block rows only, from first_block_row.
__global__ void __launch_bounds__(TILE_THREADS) phase3_kernel(int *dist, int n_padded, int round, int first_block_row)
{
    int R = first_block_row + blockIdx.y, C = blockIdx.x;
    if (R == round || C == round)
        return;
    __shared__ __align__(16) int column_t[BLOCK][BLOCK];
    __shared__ __align__(16) int row[BLOCK][BLOCK];
    load_block_transposed(column_t, dist, n_padded, R, round);
    load_block(row, dist, n_padded, round, C);
    __syncthreads();
    min_plus_into(dist, n_padded, R, C, column_t, row);
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
    size_t offset = block_row_offset(s, round), bytes = block_row_bytes(s);
    int via_host = 0;
    for (int g = 0; g < s->gpus; ++g) {
        if (g == me)
            continue;
        if (s->peer[me][g])
            CUDA_CHECK(cudaMemcpyPeerAsync(s->dist_dev[g] + offset, g, s->dist_dev[me] + offset, me, bytes, 0));
        else
            via_host = 1;
    }
    if (via_host)
        CUDA_CHECK(cudaMemcpyAsync(s->staging[round % 2], s->dist_dev[me] + offset, bytes,
                                   cudaMemcpyDeviceToHost, 0));
    // Done before the barrier that lets the other GPUs start round `round`.
    CUDA_CHECK(cudaStreamSynchronize(0));
}

// GPU `me` (not the owner) takes block row `round` from the host buffer, unless the owner
// already wrote it straight into this GPU's memory.
static void receive_pivot_row(Gpus *s, int me, int round, int owner)
{
    if (s->peer[owner][me])
        return;
    size_t offset = block_row_offset(s, round);
    CUDA_CHECK(cudaMemcpyAsync(s->dist_dev[me] + offset, s->staging[round % 2], block_row_bytes(s),
                               cudaMemcpyHostToDevice, 0));
    // Done before this thread reaches the next barrier, after which the buffer may be refilled.
    CUDA_CHECK(cudaStreamSynchronize(0));
}

// One round on GPU `me`: the three phases, on its own block rows.
static void run_round(const Gpus *s, int me, int round)
{
    int first = s->first_block_row[me], rows = s->first_block_row[me + 1] - first;
    dim3 threads(HALF, HALF);
    phase1_kernel<<<1, threads>>>(s->dist_dev[me], s->n_padded, round);
    CUDA_CHECK_LAUNCH();
    phase2_kernel<<<dim3(s->blocks, 2), TILE_THREADS>>>(s->dist_dev[me], s->n_padded, round, first, rows);
    CUDA_CHECK_LAUNCH();
    phase3_kernel<<<dim3(s->blocks, rows), TILE_THREADS>>>(s->dist_dev[me], s->n_padded, round, first);
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
#ifndef CUDA_EMULATION
    s->gpus = 1;  // on a GPU node: device 0 does everything
#endif
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
