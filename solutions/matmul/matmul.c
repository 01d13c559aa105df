// Lab 2: C = A·B on the GPU. Reference solution.
//
// The versions, in the order of the handout (handouts/matmul.md):
//   1. naive     one thread per element of C, 2D blocks (the slides' matMul, indices fixed)
//   2. tiled     tiles of A and B staged in shared memory, two __syncthreads per tile
//   3. fast      register blocking: each thread computes an 8×8 patch of C from float4
//                loads, with the next tile loaded while the current one is used
// plus the explorations' uncoalesced twins of 1 and 2. Every kernel is right for any n: a
// block that hangs over the edge of the matrix loads zeros there and stores nothing there.
#include <cuda_pipeline.h>  // __pipeline_memcpy_async: the fast kernel's asynchronous copies

#include "matmul.h"

static unsigned blocks_to_cover(int n, int per_block) { return (unsigned)((n + per_block - 1) / per_block); }

// ---- 1. naive ---------------------------------------------------------------------------------

// threadIdx.x walks along a row of C: the threads of a warp read 32 neighbouring elements of
// each row of B (one coalesced load) and all read the same element of A (one broadcast).
__global__ void naive_kernel(const float *A, const float *B, float *C, int n)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float sum = 0.0f;
        for (int k = 0; k < n; ++k)
            sum += A[row * n + k] * B[k * n + col];
        C[row * n + col] = sum;
    }
}

void matmul_naive(const float *A, const float *B, float *C, int n, int ntx, int nty)
{
    dim3 threads(ntx, nty);
    // Rounded up: the slides' grid(n / threads.x, n / threads.y) leaves the last n % ntx
    // columns and n % nty rows of C unwritten (handout, exploration "The dropped edge").
    dim3 grid(blocks_to_cover(n, ntx), blocks_to_cover(n, nty));
    naive_kernel<<<grid, threads>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

// The slides' indexing: threadIdx.x walks down a column of C, so the 32 threads of a warp
// read 32 different rows of A, n floats apart: 32 memory transactions where one would do.
__global__ void naive_uncoalesced_kernel(const float *A, const float *B, float *C, int n)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n && col < n) {
        float sum = 0.0f;
        for (int k = 0; k < n; ++k)
            sum += A[row * n + k] * B[k * n + col];
        C[row * n + col] = sum;
    }
}

void matmul_naive_uncoalesced(const float *A, const float *B, float *C, int n, int ntx, int nty)
{
    dim3 threads(ntx, nty);
    dim3 grid(blocks_to_cover(n, ntx), blocks_to_cover(n, nty));
    naive_uncoalesced_kernel<<<grid, threads>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

// ---- 2. tiled ---------------------------------------------------------------------------------

// Block (bx, by) computes the TILE × TILE tile of C at rows by*TILE.., columns bx*TILE...
// It walks along a row of tiles of A and a column of tiles of B: each thread loads one
// element of each into shared memory, then every thread reads TILE of each from there.
// Each element of A and B now comes from global memory n / TILE times instead of n times.
template <int TILE>
__global__ void tiled_kernel(const float *A, const float *B, float *C, int n)
{
    __shared__ float Ablock[TILE][TILE];
    __shared__ float Bblock[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        __syncthreads();  // every thread is done reading the previous tiles
        // Past the edge of the matrix, load zeros: they add nothing to the sum. Threads
        // outside C still load and still reach both barriers (no early return).
        Ablock[ty][tx] = (row < n && k0 + tx < n) ? A[row * n + k0 + tx] : 0.0f;
        Bblock[ty][tx] = (k0 + ty < n && col < n) ? B[(k0 + ty) * n + col] : 0.0f;
        __syncthreads();  // both tiles are complete before anyone reads them
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            sum += Ablock[ty][k] * Bblock[k][tx];
    }
    if (row < n && col < n)
        C[row * n + col] = sum;
}

// The slides' "naively blocked" indexing: the same tiles, but threadIdx.x walks down a
// column, so a warp's loads of A and B and its store of C are n floats apart, and its
// reads of Ablock[tx][k] hit the same shared-memory bank.
template <int TILE>
__global__ void tiled_uncoalesced_kernel(const float *A, const float *B, float *C, int n)
{
    __shared__ float Ablock[TILE][TILE];
    __shared__ float Bblock[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.x * TILE + tx;
    int col = blockIdx.y * TILE + ty;
    float sum = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        __syncthreads();
        Ablock[tx][ty] = (row < n && k0 + ty < n) ? A[row * n + k0 + ty] : 0.0f;
        Bblock[tx][ty] = (k0 + tx < n && col < n) ? B[(k0 + tx) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            sum += Ablock[tx][k] * Bblock[k][ty];
    }
    if (row < n && col < n)
        C[row * n + col] = sum;
}

template <int TILE>
static void launch_tiled(const float *A, const float *B, float *C, int n, bool coalesced)
{
    dim3 threads(TILE, TILE);
    dim3 grid(blocks_to_cover(n, TILE), blocks_to_cover(n, TILE));
    if (coalesced)
        tiled_kernel<TILE><<<grid, threads>>>(A, B, C, n);
    else
        tiled_uncoalesced_kernel<TILE><<<grid, threads>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

// TILE must be known when compiling (it sizes the shared arrays and unrolls the inner loop),
// so each tile size is its own instance of the template.
static void launch_tiled_any(const float *A, const float *B, float *C, int n, int tile, bool coalesced)
{
    switch (tile) {
    case 4: launch_tiled<4>(A, B, C, n, coalesced); break;
    case 8: launch_tiled<8>(A, B, C, n, coalesced); break;
    case 16: launch_tiled<16>(A, B, C, n, coalesced); break;
    case 32: launch_tiled<32>(A, B, C, n, coalesced); break;
    default: fprintf(stderr, "matmul_tiled: tile %d is not 4, 8, 16 or 32\n", tile); exit(LAB_EXIT_USAGE);
    }
}

void matmul_tiled(const float *A, const float *B, float *C, int n, int tile)
{
    launch_tiled_any(A, B, C, n, tile, true);
}

void matmul_tiled_uncoalesced(const float *A, const float *B, float *C, int n, int tile)
{
    launch_tiled_any(A, B, C, n, tile, false);
}

// ---- 3. fast: register blocking ---------------------------------------------------------------
//
// The tiled kernel does one multiply-add per two shared-memory loads; shared memory, not
// arithmetic, limits it. Here a block of 256 threads computes a BM × BN = 128 × 128 tile of C,
// and each thread an 8 × 8 patch of it held in 64 registers: per step k it loads 8 values of
// A and 8 of B (four 16-byte loads) and does 64 multiply-adds with them.
//
//  - A's tile is stored transposed in shared memory, As[k][m], so the 8 values of A a thread
//    needs at step k are two float4s. Rows are padded by 4 floats so that the transposing
//    copies of a warp (8 k by 4 m) land in different banks.
//  - A warp covers a 32 × 64 piece of the tile as 4 × 8 threads; a thread's 8 × 8 patch is
//    2 × 2 sub-patches of 4 × 4, spaced 16 rows and 32 columns apart, so the float4 reads of a
//    warp from As and Bs are broadcasts or 128 contiguous bytes: no bank conflicts.
//  - The tiles come in by asynchronous copies (cp.async, __pipeline_memcpy_async): global
//    memory to shared memory without passing through registers. STAGES shared-memory stages:
//    while the block computes with tile t, the copies of tiles t + 1 .. t + STAGES - 1 are in
//    flight, so global-memory latency hides behind arithmetic, and one __syncthreads per tile
//    is enough. (Loading into registers and storing afterwards, the version before, reached
//    0.90 of cuBLAS: NOTES.md.)
//  - Copies are 16 bytes when n is a multiple of 4 (every row then starts 16-byte aligned),
//    4 bytes otherwise (A's are always 4: they transpose); past the edge of the matrix a thread
//    stores zeros instead, and stores of C past it are skipped.
//
// The template's parameters let labs/matmul/scripts/tune_fast.cu time other shapes; FastShape
// and SmallShape below are the ones matmul_fast launches, the best it measured on an H100
// (labs/matmul/NOTES.md).
template <int BM_, int BN_, int BK_, int WM_, int WN_, int LY_, int LX_, int STAGES_, int MIN_BLOCKS_ = 1,
          bool FRAG_PIPE_ = true, int GROUP_ = 0>
struct TileShape {
    static constexpr int BM = BM_, BN = BN_, BK = BK_;  // block tile of C, and its k step
    static constexpr int WM = WM_, WN = WN_;             // one warp's piece of it
    static constexpr int LY = LY_, LX = LX_;             // a warp's lanes, LY × LX = 32
    static constexpr int TM = WM / LY, TN = WN / LX;     // one thread's patch of C
    static constexpr int THREADS = 32 * (BM / WM) * (BN / WN);
    static constexpr int STAGES = STAGES_;          // tiles in shared memory at once
    static constexpr int MIN_BLOCKS = MIN_BLOCKS_;  // blocks per SM: caps registers per thread
    static constexpr bool FRAG_PIPE = FRAG_PIPE_;   // load step k+1's values before step k's multiply-adds
    static constexpr int GROUP = GROUP_;            // block rows per group in launch order; 0: row by row
    static constexpr int A_PAD = 4;
    static constexpr int A_STAGE = BK * (BM + A_PAD), B_STAGE = BK * BN;  // floats
    static constexpr int SMEM_BYTES = STAGES * (A_STAGE + B_STAGE) * (int)sizeof(float);
    static constexpr int A_COPIES = BM * BK / THREADS;      // 4-byte copies of A per thread per tile
    static constexpr int B_COPIES = BK * BN / 4 / THREADS;  // 16-byte copies of B per thread per tile
    static_assert(LY * LX == 32, "a warp is 32 lanes");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "patches are made of 4 × 4 sub-patches");
    static_assert(BM % WM == 0 && BN % WN == 0 && BK % 8 == 0, "warps tile the block; A is copied 8 k wide");
    static_assert(A_COPIES * THREADS == BM * BK && B_COPIES * THREADS * 4 == BK * BN,
                  "every thread copies the same share of each tile");
    static_assert(STAGES >= 2, "one stage to compute with, at least one being filled");
};

// 256 threads, 8 × 8 each, two blocks a multiprocessor (so at most 128 registers a thread).
using FastShape = TileShape<128, 128, 8, 32, 64, 4, 8, 3, 2, true, 0>;
// For small n, where FastShape's tiles are fewer than the multiprocessors: more, smaller ones
// (128 threads, 8 × 8 each).
using SmallShape = TileShape<64, 128, 8, 32, 64, 4, 8, 3, 3, true, 0>;

// One stage of shared memory: A's tile transposed (k, then m), B's as it is (k, then column).
template <class S>
struct Stage {
    float (*As)[S::BM + S::A_PAD];
    float (*Bs)[S::BN];
};

template <class S>
__device__ __forceinline__ Stage<S> stage_at(float *smem, int s)
{
    Stage<S> stage;
    stage.As = reinterpret_cast<float (*)[S::BM + S::A_PAD]>(smem + s * S::A_STAGE);
    stage.Bs = reinterpret_cast<float (*)[S::BN]>(smem + S::STAGES * S::A_STAGE + s * S::B_STAGE);
    return stage;
}

// Starts this thread's copies of the tile of A at (block row bm, column k0) and of B at (row k0,
// block column bn) into one stage, and stores zeros where the tile hangs over the matrix.
// VEC4: n % 4 == 0, B in 16-byte copies; otherwise one float at a time. EDGE: the tile may hang
// over the matrix; when the caller knows it does not, the bounds tests are left out.
template <class S, bool VEC4, bool EDGE>
__device__ __forceinline__ void copy_tile(const float *A, const float *B, int n, int bm, int bn, int k0,
                                          Stage<S> stage)
{
    // A: a warp copies 8 consecutive k of 4 rows (32-byte pieces of global memory) into 8 rows
    // of As, 4 floats wide each: 32 different banks thanks to the padding.
#pragma unroll
    for (int i = 0; i < S::A_COPIES; ++i) {
        int v = threadIdx.x + i * S::THREADS;
        int k = (v % 8) + (v / (8 * S::BM)) * 8, m = (v / 8) % S::BM;
        int row = bm + m, col = k0 + k;
        if (!EDGE || (row < n && col < n))
            __pipeline_memcpy_async(&stage.As[k][m], A + (size_t)row * n + col, sizeof(float));
        else
            stage.As[k][m] = 0.0f;
    }
    if (VEC4) {
#pragma unroll
        for (int i = 0; i < S::B_COPIES; ++i) {
            int v = threadIdx.x + i * S::THREADS;
            int k = v / (S::BN / 4), c = (v % (S::BN / 4)) * 4;
            int row = k0 + k, col = bn + c;
            if (!EDGE || (row < n && col < n))
                __pipeline_memcpy_async(&stage.Bs[k][c], B + (size_t)row * n + col, sizeof(float4));
            else
                *reinterpret_cast<float4 *>(&stage.Bs[k][c]) = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
    } else {
#pragma unroll
        for (int i = 0; i < 4 * S::B_COPIES; ++i) {
            int v = threadIdx.x + i * S::THREADS;
            int k = v / S::BN, c = v % S::BN;
            int row = k0 + k, col = bn + c;
            if (!EDGE || (row < n && col < n))
                __pipeline_memcpy_async(&stage.Bs[k][c], B + (size_t)row * n + col, sizeof(float));
            else
                stage.Bs[k][c] = 0.0f;
        }
    }
}

// copy_tile without the bounds tests when the whole tile lies inside the matrix (every tile but
// the edge ones), with them otherwise.
template <class S, bool VEC4>
__device__ __forceinline__ void copy_tile_any(const float *A, const float *B, int n, int bm, int bn, int k0,
                                              Stage<S> stage)
{
    if (bm + S::BM <= n && bn + S::BN <= n && k0 + S::BK <= n)
        copy_tile<S, VEC4, false>(A, B, n, bm, bn, k0, stage);
    else
        copy_tile<S, VEC4, true>(A, B, n, bm, bn, k0, stage);
}

// Step k of a tile: the thread's TM values of A (column k of As) and TN values of B (row k of
// Bs), as float4 loads of its 4 × 4 sub-patches.
template <class S>
__device__ __forceinline__ void load_fragments(Stage<S> stage, int k, int m0, int n0, float (&a)[S::TM],
                                               float (&b)[S::TN])
{
#pragma unroll
    for (int i = 0; i < S::TM / 4; ++i) {
        float4 v = *reinterpret_cast<const float4 *>(&stage.As[k][m0 + i * S::LY * 4]);
        a[4 * i + 0] = v.x; a[4 * i + 1] = v.y; a[4 * i + 2] = v.z; a[4 * i + 3] = v.w;
    }
#pragma unroll
    for (int j = 0; j < S::TN / 4; ++j) {
        float4 v = *reinterpret_cast<const float4 *>(&stage.Bs[k][n0 + j * S::LX * 4]);
        b[4 * j + 0] = v.x; b[4 * j + 1] = v.y; b[4 * j + 2] = v.z; b[4 * j + 3] = v.w;
    }
}

template <class S>
__device__ __forceinline__ void multiply_add(float (&acc)[S::TM][S::TN], const float (&a)[S::TM], const float (&b)[S::TN])
{
#pragma unroll
    for (int i = 0; i < S::TM; ++i)
#pragma unroll
        for (int j = 0; j < S::TN; ++j)
            acc[i][j] += a[i] * b[j];
}

// The BK steps of one tile, from one stage.
template <class S>
__device__ __forceinline__ void multiply_tile(float (&acc)[S::TM][S::TN], Stage<S> stage, int m0, int n0)
{
    if (S::FRAG_PIPE) {
        // The next step's values are loaded before this step's multiply-adds, so the loads'
        // latency hides behind them (two sets of fragment registers).
        float a[2][S::TM], b[2][S::TN];
        load_fragments<S>(stage, 0, m0, n0, a[0], b[0]);
#pragma unroll
        for (int k = 0; k < S::BK; ++k) {
            if (k + 1 < S::BK)
                load_fragments<S>(stage, k + 1, m0, n0, a[(k + 1) & 1], b[(k + 1) & 1]);
            multiply_add<S>(acc, a[k & 1], b[k & 1]);
        }
    } else {
#pragma unroll
        for (int k = 0; k < S::BK; ++k) {
            float a[S::TM], b[S::TN];
            load_fragments<S>(stage, k, m0, n0, a, b);
            multiply_add<S>(acc, a, b);
        }
    }
}

// The first row and column of C that this block computes. GROUP > 0: blocks are numbered in
// launch order down groups of GROUP block rows, column by column, instead of along whole rows,
// so the blocks running at one time share more of their tiles of A and B in the L2 cache.
template <class S>
__device__ __forceinline__ int2 block_origin()
{
    if (S::GROUP == 0)
        return make_int2(blockIdx.y * S::BM, blockIdx.x * S::BN);
    int id = blockIdx.y * gridDim.x + blockIdx.x;
    int per_group = S::GROUP * gridDim.x;
    int first_row = (id / per_group) * S::GROUP;
    int rows = min(S::GROUP, (int)gridDim.y - first_row);
    int in_group = id % per_group;
    return make_int2((first_row + in_group % rows) * S::BM, (in_group / rows) * S::BN);
}

template <class S, bool VEC4>
__global__ void __launch_bounds__(S::THREADS, S::MIN_BLOCKS)
fast_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    extern __shared__ float4 fast_smem[];  // STAGES stages (Stage, stage_at), sized at launch
    float *smem = reinterpret_cast<float *>(fast_smem);

    const int2 origin = block_origin<S>();
    const int bm = origin.x, bn = origin.y;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    // The first row and column of this thread's first 4 × 4 sub-patch, within the block tile.
    const int m0 = (warp / (S::BN / S::WN)) * S::WM + (lane / S::LX) * 4;
    const int n0 = (warp % (S::BN / S::WN)) * S::WN + (lane % S::LX) * 4;

    float acc[S::TM][S::TN];
#pragma unroll
    for (int i = 0; i < S::TM; ++i)
#pragma unroll
        for (int j = 0; j < S::TN; ++j)
            acc[i][j] = 0.0f;

    // Tiles 0 .. STAGES - 2 in flight, one commit group each (empty past the last tile, so that
    // "all but the newest STAGES - 2 groups have landed" always means "tile t has").
    const int tiles = (n + S::BK - 1) / S::BK;
#pragma unroll
    for (int s = 0; s < S::STAGES - 1; ++s) {
        if (s < tiles)
            copy_tile_any<S, VEC4>(A, B, n, bm, bn, s * S::BK, stage_at<S>(smem, s));
        __pipeline_commit();
    }
    __pipeline_wait_prior(S::STAGES - 2);
    __syncthreads();  // tile 0 is in stage 0: this thread's copies landed, and every other thread's

    int computing = 0, filling = S::STAGES - 1;
    for (int t = 0; t < tiles; ++t) {
        // Tile t + STAGES - 1 goes into the stage tile t - 1 was in: every thread finished
        // reading that one before the barrier that ended the previous iteration.
        if (t + S::STAGES - 1 < tiles)
            copy_tile_any<S, VEC4>(A, B, n, bm, bn, (t + S::STAGES - 1) * S::BK, stage_at<S>(smem, filling));
        __pipeline_commit();
        multiply_tile<S>(acc, stage_at<S>(smem, computing), m0, n0);
        __pipeline_wait_prior(S::STAGES - 2);
        __syncthreads();  // tile t + 1 is in place, and no thread reads tile t's stage any more
        computing = computing + 1 == S::STAGES ? 0 : computing + 1;
        filling = filling + 1 == S::STAGES ? 0 : filling + 1;
    }

#pragma unroll
    for (int i = 0; i < S::TM; ++i) {
        int row = bm + m0 + (i / 4) * S::LY * 4 + i % 4;
        if (row >= n)
            continue;
#pragma unroll
        for (int j = 0; j < S::TN / 4; ++j) {
            int col = bn + n0 + j * S::LX * 4;
            float *dst = C + (size_t)row * n + col;
            if (VEC4) {
                if (col < n)
                    *reinterpret_cast<float4 *>(dst) =
                        make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]);
            } else {
#pragma unroll
                for (int c = 0; c < 4; ++c)
                    if (col + c < n)
                        dst[c] = acc[i][4 * j + c];
            }
        }
    }
}

// Launches fast_kernel<S> on an n × n product. Its stages are dynamic shared memory: past
// 48 KiB a kernel must ask for it (cudaFuncSetAttribute, once per kernel).
template <class S, bool VEC4>
static void launch_fast_as(const float *A, const float *B, float *C, int n)
{
    static bool raised = false;
    if (S::SMEM_BYTES > 48 * 1024 && !raised) {
        CUDA_CHECK(cudaFuncSetAttribute(fast_kernel<S, VEC4>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        S::SMEM_BYTES));
        raised = true;
    }
    dim3 grid(blocks_to_cover(n, S::BN), blocks_to_cover(n, S::BM));
    fast_kernel<S, VEC4><<<grid, S::THREADS, S::SMEM_BYTES>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

template <class S>
static void launch_fast(const float *A, const float *B, float *C, int n)
{
    if (n % 4 == 0)
        launch_fast_as<S, true>(A, B, C, n);
    else
        launch_fast_as<S, false>(A, B, C, n);
}

void matmul_fast(const float *A, const float *B, float *C, int n)
{
    static int multiprocessors = 0;
    if (multiprocessors == 0)
        CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, 0));
    long long big_tiles = (long long)blocks_to_cover(n, FastShape::BM) * blocks_to_cover(n, FastShape::BN);
    if (big_tiles < multiprocessors)
        launch_fast<SmallShape>(A, B, C, n);
    else
        launch_fast<FastShape>(A, B, C, n);
}
