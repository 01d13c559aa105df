// Lab 4, program 2: blocked Floyd-Warshall on one GPU (hw3-2 of [HW3 APSP n.d.]).
//
// The n x n matrix is padded to n_padded, a multiple of BLOCK, and cut into BLOCK x BLOCK
// blocks. Round r (one per block of the diagonal) has three phases:
//   phase 1: Floyd-Warshall inside the pivot block (r, r);
//   phase 2: the blocks of pivot row r and pivot column r, through the finished pivot block;
//   phase 3: every other block (i, j), through blocks (i, r) and (r, j), now final for round r.
// handouts/apsp.md draws the three phases and explains the reference's phases 2 and 3. The
// reference runs phase 3 once for ROUND_BLOCKS (4) pivots at a time, after the band of their
// rows and columns went through phases 1 and 2 pivot by pivot ("band_kernel" below). The
// variants that lost are measured steps of labs/apsp/scripts/phase3_sweep.cu and band_sweep.cu.
#include "apsp.h"

// The blocking factor: a block is BLOCK x BLOCK entries (64: 16 KB of shared memory). 64 unless
// the build says otherwise: make apsp SOL=1 DEFINES=-DBLOCK=32 (16, 32 or 64; handouts/apsp.md,
// Exploration 3).
#ifndef BLOCK
#define BLOCK 64
#endif
#if BLOCK != 16 && BLOCK != 32 && BLOCK != 64
#error "BLOCK (the blocking factor) must be 16, 32 or 64"
#endif
// Phase 1: PHASE1_THREADS x PHASE1_THREADS threads, each owning (BLOCK / PHASE1_THREADS)^2 entries
// of the pivot block (16 at 64).
#define PHASE1_THREADS (BLOCK < 16 ? BLOCK : 16)

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

// Phase 1: one thread block, 16 x 16 threads; thread (i, j) owns the 4 x 4 entries (i + 16a,
// j + 16b) and keeps them in registers. Step k reads only row k and column k of the shared copy,
// so after step k only the owners of row k + 1 and column k + 1 write theirs back (the copy's
// other entries go stale, unread). Phase 1 before kept the entries in shared memory only, 32 x 32
// threads re-reading and re-writing all four of theirs at every step: 20.5 us a launch at
// n = 16384 on an H100, 11.6 us now (labs/apsp/scripts/band_sweep.cu, steps 30, 31 and 36: 32 x 32
// threads with registers take as long). Step k leaves row k and column k as they are (d(k,k) =
// 0; a padding vertex's row and column are all APSP_INF), so those writes never change a value
// step k reads: one barrier a step is enough.
#define PHASE1_SIDE (BLOCK / PHASE1_THREADS)  // a thread owns PHASE1_SIDE x PHASE1_SIDE entries

__global__ void phase1_kernel(int *dist, int n_padded, int round)
{
    __shared__ int pivot[BLOCK][BLOCK];
    const int T = PHASE1_THREADS;  // the thread's entries are (i + a * T, j + b * T)
    int i = threadIdx.y, j = threadIdx.x;
    int *block = dist + (size_t)round * BLOCK * n_padded + round * BLOCK;
    int d[PHASE1_SIDE][PHASE1_SIDE];
    #pragma unroll
    for (int a = 0; a < PHASE1_SIDE; ++a)
        #pragma unroll
        for (int b = 0; b < PHASE1_SIDE; ++b)
            pivot[i + a * T][j + b * T] = d[a][b] = block[(size_t)(i + a * T) * n_padded + j + b * T];
    __syncthreads();
    for (int k = 0; k < BLOCK; ++k) {
        int column[PHASE1_SIDE], row[PHASE1_SIDE];  // d(i, k) and d(k, j) of the thread's rows and columns
        #pragma unroll
        for (int a = 0; a < PHASE1_SIDE; ++a) {
            column[a] = pivot[i + a * T][k];
            row[a] = pivot[k][j + a * T];
        }
        #pragma unroll
        for (int a = 0; a < PHASE1_SIDE; ++a)
            #pragma unroll
            for (int b = 0; b < PHASE1_SIDE; ++b) {
                d[a][b] = relax(column[a], row[b], d[a][b]);
                if (i + a * T == k + 1 || j + b * T == k + 1)  // step k + 1 reads row and column k + 1
                    pivot[i + a * T][j + b * T] = d[a][b];
            }
        __syncthreads();
    }
    #pragma unroll
    for (int a = 0; a < PHASE1_SIDE; ++a)
        #pragma unroll
        for (int b = 0; b < PHASE1_SIDE; ++b)
            block[(size_t)(i + a * T) * n_padded + j + b * T] = d[a][b];
}

// Phases 2 and 3 of the reference share one piece: a min-plus product of two blocks held in
// shared memory into a thread's tile of a third, kept in registers (handouts/apsp.md, "Going
// further"). 64 threads (8 x 8) a block, each owning an 8 x 8 tile: rows 4ty..4ty+3 and
// 32+4ty..32+4ty+3, columns 4tx..4tx+3 and 32+4tx..32+4tx+3. For each k a thread reads 8
// values of the left block and 8 of the right one (four 16-byte shared-memory loads) and does
// 64 updates, so the loads no longer compete with the arithmetic as they do with four entries a
// thread. The left block is stored transposed (left_t[k][i] = left(i, k)) so that a thread's
// four consecutive rows are one 16-byte load.
// (At other blocking factors, (BLOCK / 8)^2 threads, the tile's halves BLOCK / 2 apart.)
#define TILE_SIDE 8                    // each thread owns TILE_SIDE x TILE_SIDE entries
#define TILE_THREADS_SIDE (BLOCK / TILE_SIDE)
#define TILE_THREADS (TILE_THREADS_SIDE * TILE_THREADS_SIDE)
#define TILE_HALF (BLOCK / 2)          // the offset of a tile's second four rows and columns

// Block (R, C) of the matrix into shared memory, as it is or transposed, by `threads` threads
// (this one is number `thread`). 16-byte global loads; for the transposed copy a warp reads 32
// consecutive rows at the same k and writes 32 consecutive words of shared memory: no bank
// conflicts.
static __device__ __forceinline__ void load_block(int (*block)[BLOCK], const int *dist, int n_padded, int R, int C,
                                                  int thread, int threads)
{
    const int *src = dist + (size_t)R * BLOCK * n_padded + (size_t)C * BLOCK;
    for (int q = thread; q < BLOCK * BLOCK / 4; q += threads) {
        int r = q / (BLOCK / 4), c = q % (BLOCK / 4) * 4;
        *(int4 *)&block[r][c] = *(const int4 *)&src[(size_t)r * n_padded + c];
    }
}

static __device__ __forceinline__ void load_block_transposed(int (*block_t)[BLOCK], const int *dist, int n_padded,
                                                             int R, int C, int thread, int threads)
{
    const int *src = dist + (size_t)R * BLOCK * n_padded + (size_t)C * BLOCK;
    for (int q = thread; q < BLOCK * BLOCK / 4; q += threads) {
        int i = q % BLOCK, k = q / BLOCK * 4;
        int4 v = *(const int4 *)&src[(size_t)i * n_padded + k];
        block_t[k][i] = v.x;
        block_t[k + 1][i] = v.y;
        block_t[k + 2][i] = v.z;
        block_t[k + 3][i] = v.w;
    }
}

// A thread's tile of block (R, C): thread (tx, ty) of the block's TILE_THREADS owns rows
// 4ty..4ty+3 and TILE_HALF+4ty.., columns 4tx..4tx+3 and TILE_HALF+4tx..
typedef int Tile[TILE_SIDE][TILE_SIDE];

static __device__ __forceinline__ int *block_at(int *dist, int n_padded, int R, int C)
{
    return dist + (size_t)R * BLOCK * n_padded + (size_t)C * BLOCK;
}

static __device__ __forceinline__ void load_tile(Tile d, const int *own, int n_padded, int tx, int ty)
{
    #pragma unroll
    for (int a = 0; a < TILE_SIDE; ++a) {
        int i = (a / 4) * TILE_HALF + 4 * ty + a % 4;
        int4 lo = *(const int4 *)&own[(size_t)i * n_padded + 4 * tx];
        int4 hi = *(const int4 *)&own[(size_t)i * n_padded + TILE_HALF + 4 * tx];
        d[a][0] = lo.x; d[a][1] = lo.y; d[a][2] = lo.z; d[a][3] = lo.w;
        d[a][4] = hi.x; d[a][5] = hi.y; d[a][6] = hi.z; d[a][7] = hi.w;
    }
}

static __device__ __forceinline__ void store_tile(const Tile d, int *own, int n_padded, int tx, int ty)
{
    #pragma unroll
    for (int a = 0; a < TILE_SIDE; ++a) {
        int i = (a / 4) * TILE_HALF + 4 * ty + a % 4;
        *(int4 *)&own[(size_t)i * n_padded + 4 * tx] = make_int4(d[a][0], d[a][1], d[a][2], d[a][3]);
        *(int4 *)&own[(size_t)i * n_padded + TILE_HALF + 4 * tx] = make_int4(d[a][4], d[a][5], d[a][6], d[a][7]);
    }
}

// The tile through the two blocks in shared memory (after a barrier):
//   d(i, j) = min(d(i, j), min over k of left_t[k][i] + right[k][j]).
static __device__ __forceinline__ void min_plus_tile(Tile d, const int (*left_t)[BLOCK], const int (*right)[BLOCK],
                                                     int tx, int ty)
{
    #pragma unroll 4
    for (int k = 0; k < BLOCK; ++k) {
        int4 a_lo = *(const int4 *)&left_t[k][4 * ty], a_hi = *(const int4 *)&left_t[k][TILE_HALF + 4 * ty];
        int4 b_lo = *(const int4 *)&right[k][4 * tx], b_hi = *(const int4 *)&right[k][TILE_HALF + 4 * tx];
        int a[TILE_SIDE] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
        int b[TILE_SIDE] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
        #pragma unroll
        for (int x = 0; x < TILE_SIDE; ++x)
            #pragma unroll
            for (int y = 0; y < TILE_SIDE; ++y)
                d[x][y] = relax(a[x], b[y], d[x][y]);
    }
}

// Every kernel past phase 1 gives a thread block PHASE3_GROUPS (2) output blocks, TILE_THREADS
// threads (a group) each, that share one of their two pieces: 48 KB of shared memory leave room
// for four thread blocks, 16 warps, on a multiprocessor, as many as the 128 registers a thread
// allow (one output block a thread block: six of 32 KB, 12 warps). For phase 3 that gained 5%;
// for phase 2 and band_kernel, 0.55 ms of 313 (band_sweep.cu, step 38).
#define PHASE3_GROUPS 2
#define PHASE3_THREADS (PHASE3_GROUPS * TILE_THREADS)

// Phase 2 and the band's updates, through pivot p: block row q's blocks (q, b) and (q, b + 1),
// b = PHASE3_GROUPS * blockIdx.x ("the row part", sharing the left piece (q, p)), or block
// column q's (b, q) and (b + 1, q) ("the column part", sharing the right piece (p, q)); each
// group loads its own other piece. Block (R, C) = min(itself, left x right), one product. A
// group is idle on b == p (pivot p's own row and column are final and only read), past the
// last block, and, in the column part, on the blocks b in `row_parts`, which a row part does.
static __device__ __forceinline__ void pivot_products(int *dist, int n_padded, int p, int q, bool row_part,
                                                      int row_parts_first, int row_parts_count,
                                                      int (*shared_piece)[BLOCK], int (*own_piece)[BLOCK][BLOCK])
{
    int blocks = n_padded / BLOCK;
    int group = threadIdx.x / TILE_THREADS, thread = threadIdx.x % TILE_THREADS;
    int b = blockIdx.x * PHASE3_GROUPS + group;
    bool in_matrix = b < blocks;
    bool active = in_matrix && b != p && (row_part || b < row_parts_first || b >= row_parts_first + row_parts_count);
    if (row_part) {
        load_block_transposed(shared_piece, dist, n_padded, q, p, threadIdx.x, PHASE3_THREADS);
        if (in_matrix)
            load_block(own_piece[group], dist, n_padded, p, b, thread, TILE_THREADS);
    } else {
        load_block(shared_piece, dist, n_padded, p, q, threadIdx.x, PHASE3_THREADS);
        if (in_matrix)
            load_block_transposed(own_piece[group], dist, n_padded, b, p, thread, TILE_THREADS);
    }
    __syncthreads();
    if (!active)
        return;
    int R = row_part ? q : b, C = row_part ? b : q;
    const int (*left_t)[BLOCK] = row_part ? shared_piece : own_piece[group];
    const int (*right)[BLOCK] = row_part ? own_piece[group] : shared_piece;
    int tx = thread % TILE_THREADS_SIDE, ty = thread / TILE_THREADS_SIDE;
    int *own = block_at(dist, n_padded, R, C);
    Tile d;
    load_tile(d, own, n_padded, tx, ty);
    min_plus_tile(d, left_t, right, tx, ty);
    store_tile(d, own, n_padded, tx, ty);
}

// Phase 2: grid (blocks / 2 rounded up, 2). blockIdx.y == 0: blocks (p, b) of pivot p's row; == 1:
// blocks (b, p) of its column; b == p is the pivot block itself, done in phase 1. The pivot
// block P is closed after phase 1 (P(i,k) is the shortest path from i to k through the pivot's
// vertices), so the k loop needs no barrier either: row block = min(row block, P x row block),
// column block = min(column block, column block x P), products in the min-plus sense. The
// starter's way, k by k with a barrier each, gives the same distances.
__global__ void __launch_bounds__(PHASE3_THREADS) phase2_kernel(int *dist, int n_padded, int round)
{
    __shared__ __align__(16) int shared_piece[BLOCK][BLOCK];
    __shared__ __align__(16) int own_piece[PHASE3_GROUPS][BLOCK][BLOCK];
    pivot_products(dist, n_padded, round, round, blockIdx.y == 0, round, 1, shared_piece, own_piece);
}

// A round of the reference takes ROUND_BLOCKS pivot blocks at once, the band: block rows and
// columns first .. first + pivots - 1. Phase 3 then reads and writes every block once for
// pivots x BLOCK values of k instead of BLOCK, so the matrix crosses device memory a quarter as
// often (handouts/apsp.md, "Going further"). The band itself is finished first, pivot by pivot:
// phases 1 and 2 of pivot p, then this kernel takes the band's other blocks through pivot p
// (the blocked algorithm of BLOCK restricted to the band, which needs nothing outside it).
#ifndef ROUND_BLOCKS
#define ROUND_BLOCKS 4
#endif

// After pivot p's phases 1 and 2: grid (blocks / 2 rounded up, 2 * pivots). y / 2 picks the
// band's block row and column q, y % 2 its row part or its column part. The blocks in both (b
// in the band) are done by the row part only, so that each has one writer.
__global__ void __launch_bounds__(PHASE3_THREADS) band_kernel(int *dist, int n_padded, int p, int first, int pivots)
{
    int q = first + blockIdx.y / 2;
    if (q == p)
        return;  // pivot p's row and column: phase 2's
    __shared__ __align__(16) int shared_piece[BLOCK][BLOCK];
    __shared__ __align__(16) int own_piece[PHASE3_GROUPS][BLOCK][BLOCK];
    pivot_products(dist, n_padded, p, q, blockIdx.y % 2 == 0, first, pivots, shared_piece, own_piece);
}

// Phase 3 does nearly all the work: every block (R, C) outside the band, through blocks
// (R, P) of the band's columns and (P, C) of its rows, P = first .. first + pivots - 1, a
// thread's tile in registers all the while. A thread block does PHASE3_GROUPS blocks of one
// block row, (R, C) for C = blockIdx.x * PHASE3_GROUPS + group, TILE_THREADS threads each: they
// share the load of (R, P) (the sweep in labs/apsp/scripts/phase3_sweep.cu measured these
// choices).

__global__ void __launch_bounds__(PHASE3_THREADS) phase3_kernel(int *dist, int n_padded, int first, int pivots)
{
    int blocks = n_padded / BLOCK;
    int R = blockIdx.y;
    if (R >= first && R < first + pivots)
        return;
    __shared__ __align__(16) int column_t[BLOCK][BLOCK];
    __shared__ __align__(16) int row[PHASE3_GROUPS][BLOCK][BLOCK];
    int group = threadIdx.x / TILE_THREADS, thread = threadIdx.x % TILE_THREADS;
    int C = blockIdx.x * PHASE3_GROUPS + group;
    // A group past the last block, or on a band column, only helps load and meets the barriers.
    bool active = C < blocks && !(C >= first && C < first + pivots);
    int tx = thread % TILE_THREADS_SIDE, ty = thread / TILE_THREADS_SIDE;
    int *own = block_at(dist, n_padded, R, C);
    Tile d;
    for (int P = first; P < first + pivots; ++P) {
        if (P > first)
            __syncthreads();  // every group is done with the pieces of the pivot before
        load_block_transposed(column_t, dist, n_padded, R, P, threadIdx.x, PHASE3_THREADS);
        if (C < blocks)
            load_block(row[group], dist, n_padded, P, C, thread, TILE_THREADS);
        __syncthreads();
        if (!active)
            continue;
        if (P == first)
            load_tile(d, own, n_padded, tx, ty);
        min_plus_tile(d, column_t, row[group], tx, ty);
    }
    if (active)
        store_tile(d, own, n_padded, tx, ty);
}

// One round: the band's pivots through phases 1 and 2 and the band's update, then phase 3
// (each launch starts after the one before it ends).
static void run_round(int *dist_dev, int n_padded, int first, int pivots)
{
    int blocks = n_padded / BLOCK, pairs = (blocks + PHASE3_GROUPS - 1) / PHASE3_GROUPS;  // grid columns
    for (int p = first; p < first + pivots; ++p) {
        phase1_kernel<<<1, dim3(PHASE1_THREADS, PHASE1_THREADS)>>>(dist_dev, n_padded, p);
        CUDA_CHECK_LAUNCH();
        phase2_kernel<<<dim3(pairs, 2), PHASE3_THREADS>>>(dist_dev, n_padded, p);
        CUDA_CHECK_LAUNCH();
        if (pivots > 1) {
            band_kernel<<<dim3(pairs, 2 * pivots), PHASE3_THREADS>>>(dist_dev, n_padded, p, first, pivots);
            CUDA_CHECK_LAUNCH();
        }
    }
    phase3_kernel<<<dim3(pairs, blocks), PHASE3_THREADS>>>(dist_dev, n_padded, first, pivots);
    CUDA_CHECK_LAUNCH();
}

void apsp_solve(int *dist, int n, ApspTimes *times)
{
    int n_padded = (n + BLOCK - 1) / BLOCK * BLOCK;
    size_t row_bytes = (size_t)n * sizeof(int), padded_row_bytes = (size_t)n_padded * sizeof(int);
    int *dist_dev = NULL;
    CUDA_CHECK(cudaMalloc((void **)&dist_dev, padded_row_bytes * n_padded));
    GpuTimer timer;

    timer.start();
    if (n_padded != n) {
        fill_kernel<<<1024, 256>>>(dist_dev, (size_t)n_padded * n_padded, APSP_INF);
        CUDA_CHECK_LAUNCH();
    }
    // Row i of the host matrix (n ints) goes to row i of the padded one (n_padded ints).
    CUDA_CHECK(cudaMemcpy2D(dist_dev, padded_row_bytes, dist, row_bytes, row_bytes, n, cudaMemcpyHostToDevice));
    timer.stop();
    times->copy_ms = timer.ms();

    timer.start();
    int blocks = n_padded / BLOCK;
    for (int first = 0; first < blocks; first += ROUND_BLOCKS) {
        int pivots = blocks - first < ROUND_BLOCKS ? blocks - first : ROUND_BLOCKS;
        run_round(dist_dev, n_padded, first, pivots);
    }
    timer.stop();
    times->compute_ms = timer.ms();

    timer.start();
    CUDA_CHECK(cudaMemcpy2D(dist, row_bytes, dist_dev, padded_row_bytes, row_bytes, n, cudaMemcpyDeviceToHost));
    timer.stop();
    times->copy_ms += timer.ms();
    CUDA_CHECK(cudaFree(dist_dev));
}
