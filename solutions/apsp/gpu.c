// Lab 4, program 2: blocked Floyd-Warshall on one GPU (hw3-2 of 002_f72e3ea1c3b8d66b.txt).
//
// The n x n matrix is padded to n_padded, a multiple of BLOCK, and cut into BLOCK x BLOCK
// blocks. Round r (one per block of the diagonal) has three phases:
//   phase 1: Floyd-Warshall inside the pivot block (r, r);
//   phase 2: the blocks of pivot row r and pivot column r, through the finished pivot block;
//   phase 3: every other block (i, j), through blocks (i, r) and (r, j), now final for round r.
// handouts/apsp.md draws the three phases and explains the reference's phases 2 and 3. The
// reference runs phase 3 once for ROUND_BLOCKS (4) pivots at a time, after the band of their
// rows and columns went through phases 1 and 2 pivot by pivot ("band_kernel" below), and it
// finishes the next band's rows and columns first, so that the next band's phases 1 and 2 run
// beside the rest of phase 3 ("run_rounds" below).
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
// Phase 1: HALF x HALF threads, each owning (BLOCK / HALF)^2 entries of the pivot block (four at 64).
#define HALF (BLOCK < 32 ? BLOCK : 32)

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

// Phase 1: one thread block, HALF x HALF threads (32 x 32 at BLOCK = 64); thread (i, j) owns
// entries (i, j), (i, j + 32), (i + 32, j) and (i + 32, j + 32) and keeps them in registers.
// Step k reads only row k and column k of the shared copy, so after step k only the owners of
// row k + 1 and column k + 1 write theirs back (the copy's other entries go stale, unread): a
// step costs a thread four shared-memory loads, not twelve loads and four stores. Step k leaves
// row k and column k as they are (d(k,k) = 0; a padding vertex's row and column are all
// APSP_INF), so those writes never change a value step k reads: one barrier a step is enough.
#define PHASE1_SIDE (BLOCK / HALF)  // a thread owns PHASE1_SIDE x PHASE1_SIDE entries, HALF apart

__global__ void phase1_kernel(int *dist, int n_padded, int round)
{
    __shared__ int pivot[BLOCK][BLOCK];
    int i = threadIdx.y, j = threadIdx.x;
    int *block = dist + (size_t)round * BLOCK * n_padded + round * BLOCK;
    int d[PHASE1_SIDE][PHASE1_SIDE];
    #pragma unroll
    for (int a = 0; a < PHASE1_SIDE; ++a)
        #pragma unroll
        for (int b = 0; b < PHASE1_SIDE; ++b)
            pivot[i + a * HALF][j + b * HALF] = d[a][b] = block[(size_t)(i + a * HALF) * n_padded + j + b * HALF];
    __syncthreads();
    for (int k = 0; k < BLOCK; ++k) {
        int column[PHASE1_SIDE], row[PHASE1_SIDE];  // d(i, k) and d(k, j) of the thread's rows and columns
        #pragma unroll
        for (int a = 0; a < PHASE1_SIDE; ++a) {
            column[a] = pivot[i + a * HALF][k];
            row[a] = pivot[k][j + a * HALF];
        }
        #pragma unroll
        for (int a = 0; a < PHASE1_SIDE; ++a)
            #pragma unroll
            for (int b = 0; b < PHASE1_SIDE; ++b) {
                d[a][b] = relax(column[a], row[b], d[a][b]);
                if (i + a * HALF == k + 1 || j + b * HALF == k + 1)  // row or column k + 1: step k + 1 reads it
                    pivot[i + a * HALF][j + b * HALF] = d[a][b];
            }
        __syncthreads();
    }
    #pragma unroll
    for (int a = 0; a < PHASE1_SIDE; ++a)
        #pragma unroll
        for (int b = 0; b < PHASE1_SIDE; ++b)
            block[(size_t)(i + a * HALF) * n_padded + j + b * HALF] = d[a][b];
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

// Phase 2 and the band's updates: block (R, C) = min(itself, left x right), one product, by
// the block's TILE_THREADS threads.
static __device__ __forceinline__ void min_plus_into(int *dist, int n_padded, int R, int C,
                                                     const int (*left_t)[BLOCK], const int (*right)[BLOCK])
{
    int tx = threadIdx.x % TILE_THREADS_SIDE, ty = threadIdx.x / TILE_THREADS_SIDE;
    int *own = block_at(dist, n_padded, R, C);
    Tile d;
    load_tile(d, own, n_padded, tx, ty);
    min_plus_tile(d, left_t, right, tx, ty);
    store_tile(d, own, n_padded, tx, ty);
}

// Phase 2: grid (blocks, 2). blockIdx.y == 0: block (p, b) of pivot p's row; == 1: block (b, p)
// of its column; b == p is the pivot block itself, done in phase 1. The pivot block P is
// closed after phase 1 (P(i,k) is the shortest path from i to k through the pivot's vertices),
// so the k loop needs no barrier either: row block = min(row block, P x row block), column
// block = min(column block, column block x P), products in the min-plus sense. The starter's
// way, k by k with a barrier each, gives the same distances.
__global__ void __launch_bounds__(TILE_THREADS) phase2_kernel(int *dist, int n_padded, int round)
{
    int b = blockIdx.x;
    if (b == round)
        return;
    __shared__ __align__(16) int left_t[BLOCK][BLOCK];
    __shared__ __align__(16) int right[BLOCK][BLOCK];
    bool in_pivot_row = blockIdx.y == 0;
    int R = in_pivot_row ? round : b, C = in_pivot_row ? b : round;
    load_block_transposed(left_t, dist, n_padded, R, round, threadIdx.x, TILE_THREADS);  // P, or the column block itself
    load_block(right, dist, n_padded, round, C, threadIdx.x, TILE_THREADS);              // the row block itself, or P
    __syncthreads();
    min_plus_into(dist, n_padded, R, C, left_t, right);
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

// After pivot p's phases 1 and 2: grid (blocks, 2 * pivots). y / 2 picks the band's block row
// and column q, y % 2 its row part (q, b) or its column part (b, q). The blocks in both (b in
// the band) are done by the row part only, so that each has one writer; pivot p's own row and
// column are final and only read.
__global__ void __launch_bounds__(TILE_THREADS) band_kernel(int *dist, int n_padded, int p, int first, int pivots)
{
    int q = first + blockIdx.y / 2, b = blockIdx.x;
    bool row_part = blockIdx.y % 2 == 0;
    if (q == p || b == p || (!row_part && b >= first && b < first + pivots))
        return;
    int R = row_part ? q : b, C = row_part ? b : q;
    __shared__ __align__(16) int left_t[BLOCK][BLOCK];
    __shared__ __align__(16) int right[BLOCK][BLOCK];
    load_block_transposed(left_t, dist, n_padded, R, p, threadIdx.x, TILE_THREADS);
    load_block(right, dist, n_padded, p, C, threadIdx.x, TILE_THREADS);
    __syncthreads();
    min_plus_into(dist, n_padded, R, C, left_t, right);
}

// A span of block indices: a band's block rows (and columns) first .. first + count - 1.
typedef struct {
    int first, count;
} Span;

static __host__ __device__ bool contains(Span span, int b)
{
    return b >= span.first && b < span.first + span.count;
}

// Phase 3 does nearly all the work: every block (R, C) outside the band, through blocks
// (R, P) of the band's columns and (P, C) of its rows, P in the band, a thread's tile in
// registers all the while. A thread block does PHASE3_GROUPS blocks of one block row, (R, C)
// for C = blockIdx.x * PHASE3_GROUPS + group, TILE_THREADS threads each: they share the load of
// (R, P), and 48 KB of shared memory a thread block leaves room for four on a multiprocessor,
// as many as the 128 registers a thread allow (the sweep in labs/apsp/scripts/phase3_sweep.cu
// measured these choices).
//
// A round's phase 3 comes in parts (run_rounds says why), each launch one part:
//   PHASE3_NEXT_ROWS     the next band's block rows, every column (grid: column pairs x next.count);
//   PHASE3_NEXT_COLUMNS  the next band's block columns, the rows the first part left (grid: the
//                        band's column pairs x every row);
//   PHASE3_REST          all the other blocks (grid: column pairs x every row; next may be empty).
#define PHASE3_GROUPS 2
#define PHASE3_THREADS (PHASE3_GROUPS * TILE_THREADS)
#define PHASE3_BLOCKS_PER_SM 4  // what 48 KB allow: the launch bound holds the registers to as many (128)

enum Phase3Part { PHASE3_NEXT_ROWS, PHASE3_NEXT_COLUMNS, PHASE3_REST };

__global__ void __launch_bounds__(PHASE3_THREADS, PHASE3_BLOCKS_PER_SM) phase3_kernel(int *dist, int n_padded, Span band, Span next, int part)
{
    int blocks = n_padded / BLOCK;
    int group = threadIdx.x / TILE_THREADS, thread = threadIdx.x % TILE_THREADS;
    int R = blockIdx.y, C = blockIdx.x * PHASE3_GROUPS + group, columns_end = blocks;
    if (part == PHASE3_NEXT_ROWS)
        R += next.first;
    if (part == PHASE3_NEXT_COLUMNS) {
        C += next.first;
        columns_end = next.first + next.count;
    }
    // The band's own rows are final; the next band's rows are the first part's.
    if (contains(band, R) || (part != PHASE3_NEXT_ROWS && contains(next, R)))
        return;
    __shared__ __align__(16) int column_t[BLOCK][BLOCK];
    __shared__ __align__(16) int row[PHASE3_GROUPS][BLOCK][BLOCK];
    // A group past the part's last column, or on a column that is not its part's, only helps
    // load and meets the barriers.
    bool in_part = C < columns_end;
    bool active = in_part && !contains(band, C) && !(part == PHASE3_REST && contains(next, C));
    int tx = thread % TILE_THREADS_SIDE, ty = thread / TILE_THREADS_SIDE;
    int *own = block_at(dist, n_padded, R, C);
    Tile d;
    for (int P = band.first; P < band.first + band.count; ++P) {
        if (P > band.first)
            __syncthreads();  // every group is done with the pieces of the pivot before
        load_block_transposed(column_t, dist, n_padded, R, P, threadIdx.x, PHASE3_THREADS);
        if (in_part)
            load_block(row[group], dist, n_padded, P, C, thread, TILE_THREADS);
        __syncthreads();
        if (!active)
            continue;
        if (P == band.first)
            load_tile(d, own, n_padded, tx, ty);
        min_plus_tile(d, column_t, row[group], tx, ty);
    }
    if (active)
        store_tile(d, own, n_padded, tx, ty);
}

// The band's pivots through phases 1 and 2 and the band's update, in `stream` (each launch
// starts after the one before it in the stream ends).
static void run_band(int *dist_dev, int n_padded, Span band, cudaStream_t stream)
{
    int blocks = n_padded / BLOCK;
    for (int p = band.first; p < band.first + band.count; ++p) {
        phase1_kernel<<<1, dim3(HALF, HALF), 0, stream>>>(dist_dev, n_padded, p);
        CUDA_CHECK_LAUNCH();
        phase2_kernel<<<dim3(blocks, 2), TILE_THREADS, 0, stream>>>(dist_dev, n_padded, p);
        CUDA_CHECK_LAUNCH();
        if (band.count > 1) {
            band_kernel<<<dim3(blocks, 2 * band.count), TILE_THREADS, 0, stream>>>(dist_dev, n_padded, p, band.first,
                                                                                   band.count);
            CUDA_CHECK_LAUNCH();
        }
    }
}

static void run_phase3(int *dist_dev, int n_padded, Span band, Span next, Phase3Part part, cudaStream_t stream)
{
    int blocks = n_padded / BLOCK;
    int columns = part == PHASE3_NEXT_COLUMNS ? next.count : blocks;
    int rows = part == PHASE3_NEXT_ROWS ? next.count : blocks;
    dim3 grid((columns + PHASE3_GROUPS - 1) / PHASE3_GROUPS, rows);
    phase3_kernel<<<grid, PHASE3_THREADS, 0, stream>>>(dist_dev, n_padded, band, next, part);
    CUDA_CHECK_LAUNCH();
}

// The band of the round that starts at block `first`: ROUND_BLOCKS pivots, fewer at the end
// (none past it).
static Span band_at(int first, int blocks)
{
    Span band = {first, blocks - first < ROUND_BLOCKS ? blocks - first : ROUND_BLOCKS};
    return band;
}

// Two streams: `main` runs phase 3, `side` the bands' phases 1 and 2, at a higher priority, so
// that its small launches take each multiprocessor that phase 3's blocks free. The events say
// when the next band is ready for its phases 1 and 2 (next_ready) and when they are done
// (band_done).
typedef struct {
    cudaStream_t main, side;
    cudaEvent_t next_ready, band_done;
} Lanes;

static void lanes_create(Lanes *lanes)
{
    int lowest = 0, highest = 0;  // numerically, the highest priority is the lowest number
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
    // Blocking streams: they wait for the default stream's copies and timer events, and it for them.
    CUDA_CHECK(cudaStreamCreateWithPriority(&lanes->main, cudaStreamDefault, lowest));
    CUDA_CHECK(cudaStreamCreateWithPriority(&lanes->side, cudaStreamDefault, highest));
    CUDA_CHECK(cudaEventCreateWithFlags(&lanes->next_ready, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&lanes->band_done, cudaEventDisableTiming));
}

static void lanes_destroy(Lanes *lanes)
{
    CUDA_CHECK(cudaEventDestroy(lanes->next_ready));
    CUDA_CHECK(cudaEventDestroy(lanes->band_done));
    CUDA_CHECK(cudaStreamDestroy(lanes->main));
    CUDA_CHECK(cudaStreamDestroy(lanes->side));
}

// Every round, with look-ahead. The band's phases 1 and 2 are mostly waiting (a one-block
// phase 1, small grids, about 22 ms of 315 at n = 16384 when they ran alone), so they run
// beside phase 3 instead: round r's phase 3 first finishes the next band's rows and columns
// (the two NEXT parts), then the next band's phases 1 and 2 run on the side stream while the
// rest of round r's phase 3 runs on the main one. The two touch different blocks: the rest
// reads only round r's band and writes outside both bands' rows and columns; the next band's
// phases read and write only its own rows and columns.
static void run_rounds(int *dist_dev, int n_padded, const Lanes *lanes)
{
    int blocks = n_padded / BLOCK;
    Span band = band_at(0, blocks);
    run_band(dist_dev, n_padded, band, lanes->main);  // the first band: nothing to run beside
    while (band.count > 0) {
        Span next = band_at(band.first + band.count, blocks);
        if (next.count > 0) {
            run_phase3(dist_dev, n_padded, band, next, PHASE3_NEXT_ROWS, lanes->main);
            run_phase3(dist_dev, n_padded, band, next, PHASE3_NEXT_COLUMNS, lanes->main);
            CUDA_CHECK(cudaEventRecord(lanes->next_ready, lanes->main));
            CUDA_CHECK(cudaStreamWaitEvent(lanes->side, lanes->next_ready, 0));
            run_band(dist_dev, n_padded, next, lanes->side);
            CUDA_CHECK(cudaEventRecord(lanes->band_done, lanes->side));
        }
        run_phase3(dist_dev, n_padded, band, next, PHASE3_REST, lanes->main);
        if (next.count > 0)
            CUDA_CHECK(cudaStreamWaitEvent(lanes->main, lanes->band_done, 0));  // round r + 1 needs its band
        band = next;
    }
}

void apsp_solve(int *dist, int n, ApspTimes *times)
{
    int n_padded = (n + BLOCK - 1) / BLOCK * BLOCK;
    size_t row_bytes = (size_t)n * sizeof(int), padded_row_bytes = (size_t)n_padded * sizeof(int);
    int *dist_dev = NULL;
    CUDA_CHECK(cudaMalloc((void **)&dist_dev, padded_row_bytes * n_padded));
    Lanes lanes;
    lanes_create(&lanes);
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
    run_rounds(dist_dev, n_padded, &lanes);
    timer.stop();
    times->compute_ms = timer.ms();

    timer.start();
    CUDA_CHECK(cudaMemcpy2D(dist, row_bytes, dist_dev, padded_row_bytes, row_bytes, n, cudaMemcpyDeviceToHost));
    timer.stop();
    times->copy_ms += timer.ms();
    lanes_destroy(&lanes);
    CUDA_CHECK(cudaFree(dist_dev));
}
