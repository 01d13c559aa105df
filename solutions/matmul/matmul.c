// Lab 2: C = A·B on the GPU. Reference solution.
//
// The versions, in the order of the handout (handouts/matmul.md):
//   1. naive     one thread per element of C, 2D blocks (the slides' matMul, indices fixed)
//   2. tiled     tiles of A and B staged in shared memory, two __syncthreads per tile
//   3. fast      register blocking: each thread computes an 8×8 patch of C from float4
//                loads, with the next tile loaded while the current one is used
//   4. tensor    the tensor cores (mma.sync with TF32 operands) at FP32 accuracy: each operand
//                split into a TF32 value and a TF32 residual, three products summed
//                ("3xTF32"); tensor_1xtf32: one product, at TF32 accuracy, the operands
//                rounded in the loop
//  4b.           matmul_tensor's kernel: the operands split once, by a first pass into
//                "planes" laid out for the tensor cores' fragments
// plus the explorations' uncoalesced twins of 1 and 2. Every kernel is right for any n: a
// block that hangs over the edge of the matrix loads zeros there and stores nothing there.
#include "matmul.h"

#include <cuda_pipeline.h>
#include <mma.h>

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
//    stores of a warp land in different banks.
//  - A warp covers a 32 × 64 piece of the tile as 4 × 8 threads; a thread's 8 × 8 patch is
//    2 × 2 sub-patches of 4 × 4, spaced 16 rows and 32 columns apart, so the float4 reads of a
//    warp from As and Bs are broadcasts or 128 contiguous bytes: no bank conflicts.
//  - Two shared-memory stages: while the block computes with one tile, each thread already
//    has its loads of the next tile in flight, into registers, and stores them into the other
//    stage afterwards, so one __syncthreads per tile is enough and global-memory latency hides
//    behind arithmetic. (Issued too late, the same loads cost a fifth of the speed: NOTES.md.)
//  - Global loads are float4 when n is a multiple of 4 (every row then starts 16-byte
//    aligned), scalar otherwise; loads past the edge give zeros, stores past it are skipped.
//
// The template's parameters let labs/matmul/scripts/tune_fast.cu time other shapes; FastShape
// and SmallShape below are the ones matmul_fast launches, the best it measured on an H100
// (labs/matmul/NOTES.md; make bench: /*fig matmul-bench matmul-bench.fast_4096_vs_cublas %.2f*/0.90/*/fig*/ of cuBLAS at n = 4096).
template <int BM_, int BN_, int BK_, int WM_, int WN_, int LY_, int LX_, int MIN_BLOCKS_ = 1, bool FRAG_PIPE_ = false,
          int GROUP_ = 0>
struct TileShape {
    static constexpr int BM = BM_, BN = BN_, BK = BK_;  // block tile of C, and its k step
    static constexpr int WM = WM_, WN = WN_;             // one warp's piece of it
    static constexpr int LY = LY_, LX = LX_;             // a warp's lanes, LY × LX = 32
    static constexpr int TM = WM / LY, TN = WN / LX;     // one thread's patch of C
    static constexpr int THREADS = 32 * (BM / WM) * (BN / WN);
    static constexpr int MIN_BLOCKS = MIN_BLOCKS_;  // blocks per SM: caps registers per thread
    static constexpr bool FRAG_PIPE = FRAG_PIPE_;   // load step k+1's values before step k's multiply-adds
    static constexpr int GROUP = GROUP_;            // block rows per group in launch order; 0: row by row
    static constexpr int A_PAD = 4;
    static constexpr int A_LOADS = BM * BK / 4 / THREADS;  // float4s of A per thread per tile
    static constexpr int B_LOADS = BK * BN / 4 / THREADS;
    static_assert(LY * LX == 32, "a warp is 32 lanes");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "patches are made of 4 × 4 sub-patches");
    static_assert(BM % WM == 0 && BN % WN == 0 && BK % 4 == 0, "warps tile the block");
    static_assert(A_LOADS * THREADS * 4 == BM * BK && B_LOADS * THREADS * 4 == BK * BN,
                  "every thread loads the same number of float4s");
};

// 256 threads, 8 × 8 each, two blocks a multiprocessor (so at most 128 registers a thread).
using FastShape = TileShape<128, 128, 8, 32, 64, 4, 8, 2, true>;
// For small n, where FastShape's tiles are fewer than the multiprocessors: more, smaller ones
// (128 threads, 8 × 8 each).
using SmallShape = TileShape<64, 128, 8, 32, 64, 4, 8, 3, false>;

// Loads this thread's float4s of the tile of A at (block row bm, column k0) and of B at
// (row k0, block column bn). VEC4: 16-byte loads, n % 4 == 0; otherwise one float at a time.
template <class S, bool VEC4>
__device__ __forceinline__ void load_tiles(const float *A, const float *B, int n, int bm, int bn, int k0,
                                           float4 (&a)[S::A_LOADS], float4 (&b)[S::B_LOADS])
{
#pragma unroll
    for (int i = 0; i < S::A_LOADS; ++i) {
        int v = threadIdx.x + i * S::THREADS;
        int row = bm + v / (S::BK / 4), k = k0 + (v % (S::BK / 4)) * 4;
        const float *src = A + (size_t)row * n + k;
        if (VEC4) {
            a[i] = (row < n && k < n) ? *reinterpret_cast<const float4 *>(src) : make_float4(0, 0, 0, 0);
        } else {
            bool in = row < n;
            a[i].x = in && k < n ? src[0] : 0.0f;
            a[i].y = in && k + 1 < n ? src[1] : 0.0f;
            a[i].z = in && k + 2 < n ? src[2] : 0.0f;
            a[i].w = in && k + 3 < n ? src[3] : 0.0f;
        }
    }
#pragma unroll
    for (int i = 0; i < S::B_LOADS; ++i) {
        int v = threadIdx.x + i * S::THREADS;
        int k = k0 + v / (S::BN / 4), col = bn + (v % (S::BN / 4)) * 4;
        const float *src = B + (size_t)k * n + col;
        if (VEC4) {
            b[i] = (k < n && col < n) ? *reinterpret_cast<const float4 *>(src) : make_float4(0, 0, 0, 0);
        } else {
            bool in = k < n;
            b[i].x = in && col < n ? src[0] : 0.0f;
            b[i].y = in && col + 1 < n ? src[1] : 0.0f;
            b[i].z = in && col + 2 < n ? src[2] : 0.0f;
            b[i].w = in && col + 3 < n ? src[3] : 0.0f;
        }
    }
}

// Stores the loaded float4s into one shared-memory stage: A transposed, B as it is.
template <class S>
__device__ __forceinline__ void store_tiles(float (*As)[S::BM + S::A_PAD], float (*Bs)[S::BN],
                                            const float4 (&a)[S::A_LOADS], const float4 (&b)[S::B_LOADS])
{
#pragma unroll
    for (int i = 0; i < S::A_LOADS; ++i) {
        int v = threadIdx.x + i * S::THREADS;
        int m = v / (S::BK / 4), k = (v % (S::BK / 4)) * 4;
        As[k + 0][m] = a[i].x;
        As[k + 1][m] = a[i].y;
        As[k + 2][m] = a[i].z;
        As[k + 3][m] = a[i].w;
    }
#pragma unroll
    for (int i = 0; i < S::B_LOADS; ++i) {
        int v = threadIdx.x + i * S::THREADS;
        int k = v / (S::BN / 4), col = (v % (S::BN / 4)) * 4;
        *reinterpret_cast<float4 *>(&Bs[k][col]) = b[i];
    }
}

// Step k of a tile: the thread's TM values of A (column k of As) and TN values of B (row k of
// Bs), as float4 loads of its 4 × 4 sub-patches.
template <class S>
__device__ __forceinline__ void load_fragments(const float (*As)[S::BM + S::A_PAD], const float (*Bs)[S::BN], int k,
                                               int m0, int n0, float (&a)[S::TM], float (&b)[S::TN])
{
#pragma unroll
    for (int i = 0; i < S::TM / 4; ++i) {
        float4 v = *reinterpret_cast<const float4 *>(&As[k][m0 + i * S::LY * 4]);
        a[4 * i + 0] = v.x; a[4 * i + 1] = v.y; a[4 * i + 2] = v.z; a[4 * i + 3] = v.w;
    }
#pragma unroll
    for (int j = 0; j < S::TN / 4; ++j) {
        float4 v = *reinterpret_cast<const float4 *>(&Bs[k][n0 + j * S::LX * 4]);
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

// One row of the thread's patch into C: its TN columns are col0 + j * LX * 4 .. + 3, one float4
// each where n % 4 == 0 (VEC4); nothing past the edge of the matrix.
template <class S, bool VEC4>
__device__ __forceinline__ void store_row(float *C, int n, int row, int col0, const float (&acc_row)[S::TN])
{
    if (row >= n)
        return;
#pragma unroll
    for (int j = 0; j < S::TN / 4; ++j) {
        int col = col0 + j * S::LX * 4;
        float *dst = C + (size_t)row * n + col;
        if (VEC4) {
            if (col < n)
                *reinterpret_cast<float4 *>(dst) =
                    make_float4(acc_row[4 * j], acc_row[4 * j + 1], acc_row[4 * j + 2], acc_row[4 * j + 3]);
        } else {
#pragma unroll
            for (int c = 0; c < 4; ++c)
                if (col + c < n)
                    dst[c] = acc_row[4 * j + c];
        }
    }
}

// The thread's whole patch, whose first 4 x 4 sub-patch starts at (row0, col0) of C.
template <class S, bool VEC4>
__device__ __forceinline__ void store_patch(float *C, int n, int row0, int col0, const float (&acc)[S::TM][S::TN])
{
#pragma unroll
    for (int i = 0; i < S::TM; ++i)
        store_row<S, VEC4>(C, n, row0 + (i / 4) * S::LY * 4 + i % 4, col0, acc[i]);
}

// The first row and column of C that this block computes. GROUP > 0: blocks are numbered in
// launch order down groups of GROUP block rows, column by column, instead of along whole rows,
// so that the blocks running at one time share more of their tiles of A and B in the L2 cache.
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
    __shared__ __align__(16) float As[2][S::BK][S::BM + S::A_PAD];
    __shared__ __align__(16) float Bs[2][S::BK][S::BN];

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

    float4 a_next[S::A_LOADS], b_next[S::B_LOADS];
    load_tiles<S, VEC4>(A, B, n, bm, bn, 0, a_next, b_next);
    store_tiles<S>(As[0], Bs[0], a_next, b_next);
    __syncthreads();

    const int tiles = (n + S::BK - 1) / S::BK;
    for (int t = 0; t < tiles; ++t) {
        const int stage = t & 1;
        // The next tile's loads, in flight while we compute; unconditional (the last iteration
        // reloads its own tile, harmlessly), else the compiler moves them into the `if` of the
        // store below, after the arithmetic, and waits out their latency there.
        load_tiles<S, VEC4>(A, B, n, bm, bn, min(t + 1, tiles - 1) * S::BK, a_next, b_next);
        if (S::FRAG_PIPE) {
            float a[2][S::TM], b[2][S::TN];
            load_fragments<S>(As[stage], Bs[stage], 0, m0, n0, a[0], b[0]);
#pragma unroll
            for (int k = 0; k < S::BK; ++k) {
                if (k + 1 < S::BK)
                    load_fragments<S>(As[stage], Bs[stage], k + 1, m0, n0, a[(k + 1) & 1], b[(k + 1) & 1]);
                multiply_add<S>(acc, a[k & 1], b[k & 1]);
            }
        } else {
#pragma unroll
            for (int k = 0; k < S::BK; ++k) {
                float a[S::TM], b[S::TN];
                load_fragments<S>(As[stage], Bs[stage], k, m0, n0, a, b);
                multiply_add<S>(acc, a, b);
            }
        }
        // The other stage: its last reader was iteration t - 1, which ended at a barrier.
        store_tiles<S>(As[stage ^ 1], Bs[stage ^ 1], a_next, b_next);
        __syncthreads();
    }

    store_patch<S, VEC4>(C, n, bm + m0, bn + n0, acc);
}

template <class S>
static void launch_fast(const float *A, const float *B, float *C, int n)
{
    dim3 grid(blocks_to_cover(n, S::BN), blocks_to_cover(n, S::BM));
    if (n % 4 == 0)
        fast_kernel<S, true><<<grid, S::THREADS>>>(A, B, C, n);
    else
        fast_kernel<S, false><<<grid, S::THREADS>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
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

// ---- 4. tensor: FP32 accuracy from TF32 tensor cores ------------------------------------------
//
// A tensor core multiplies small matrices in one instruction: with TF32 operands (FP32's 8-bit
// exponent, 10 of its 23 mantissa bits) and FP32 sums, a warp's 16 × 8 × 8 product is 1024
// multiply-adds, several times the FFMA rate of the multiprocessor. One TF32 product loses
// FP32's last 13 bits of each operand: a relative error near 2^-11 per product, far above the
// (n + 2) u bound the harness checks. The split keeps them: a = a_big + a_small, a_big = tf32(a),
// a_small = a - a_big (exact in FP32, at most 2^-11 of a, and TF32 to 2^-11 of itself), so
// a·b = a_big·b_big + a_big·b_small + a_small·b_big + a_small·b_small, and the last term is at
// most about 2^-22 of the product, a few units in FP32's last place, with a sign as likely one
// way as the other, so that it cancels over a sum: three tensor-core products give an FP32
// product ([NVIDIA CUTLASS n.d.]). The small terms go first, so that they meet the accumulator
// while it is small.
//
// Tensor cores add into their FP32 accumulator by truncation, not round to nearest
// ([Fasi et al. 2021]); with positive terms the errors of n / 8 such sums add up instead of
// cancelling. FLUSH: each k tile's products start from zero in registers of their own, which
// are added to the FP32 sum with ordinary, rounded additions (labs/matmul/NOTES.md measures
// both: 8.5e-7 against 4.6e-5 largest relative error at n = 4096).
//
// The instruction is PTX's mma.sync.m16n8k8 ([NVIDIA PTX ISA n.d.], "Matrix fragments for
// mma.m16n8k8"), whose fragment layout is documented: lane l (g = l / 4, t = l % 4) holds A's
// (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4), B's (t, g) and (t + 4, g), and C's (g, 2t),
// (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1). So each lane reads its own elements from shared
// memory (one 4-byte load each, in 32 different banks with the rows padded as below) and splits
// them in its registers, and the warp issues the small products of all its pieces before the
// big ones: the three products of one piece of C depend on each other, the 16 pieces of a warp
// do not. (nvcuda::wmma reaches the same instruction, but hides the layout: a fragment is loaded
// whole, and split element by element with a rounding of 4 instructions; that first version ran
// at 0.71 of cuBLAS SGEMM on an H200, this one at 1.1 to 1.2, and 4b below, which splits each
// operand once, at 1.3: NOTES.md.) The block computes a BM × BN tile of C,
// each warp a WM × WN piece of it; the tiles of A and B come by cp.async
// (__pipeline_memcpy_async), STAGES deep, so that the copies of the next tiles overlap the
// tensor-core work.

// TF32 fragments exist from compute capability 8.0 (Ampere) on: for an older GPU's build
// (ARCH=sm_75) the device code below compiles to a trap and matmul_tensor says why.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define TENSOR_CORES_TF32 1
#endif

namespace wmma = nvcuda::wmma;

// Starts the copies of the k tile at k0 into one stage. VEC4 (n % 4 == 0): 16 bytes at a time;
// otherwise 4. Elements past the edge of the matrix are zero-filled (nothing is read there).
template <class S, bool VEC4>
__device__ __forceinline__ void copy_tensor_tiles(const float *A, const float *B, int n, int bm, int bn, int k0,
                                                  float *As, float *Bs)
{
    constexpr int A_CHUNKS = S::BM * S::BK / 4 / S::THREADS, B_CHUNKS = S::BK * S::BN / 4 / S::THREADS;
#pragma unroll
    for (int i = 0; i < A_CHUNKS; ++i) {
        int chunk = threadIdx.x + i * S::THREADS;
        int m = chunk / (S::BK / 4), k = (chunk % (S::BK / 4)) * 4;
        int row = bm + m, col = k0 + k;
        float *dst = As + m * S::A_STRIDE + k;
        if (VEC4) {
            bool in = row < n && col < n;
            __pipeline_memcpy_async(dst, in ? A + (size_t)row * n + col : A, 16, in ? 0 : 16);
        } else {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                bool in = row < n && col + e < n;
                __pipeline_memcpy_async(dst + e, in ? A + (size_t)row * n + col + e : A, 4, in ? 0 : 4);
            }
        }
    }
#pragma unroll
    for (int i = 0; i < B_CHUNKS; ++i) {
        int chunk = threadIdx.x + i * S::THREADS;
        int k = chunk / (S::BN / 4), c = (chunk % (S::BN / 4)) * 4;
        int row = k0 + k, col = bn + c;
        float *dst = Bs + k * S::B_STRIDE + c;
        if (VEC4) {
            bool in = row < n && col < n;
            __pipeline_memcpy_async(dst, in ? B + (size_t)row * n + col : B, 16, in ? 0 : 16);
        } else {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                bool in = row < n && col + e < n;
                __pipeline_memcpy_async(dst + e, in ? B + (size_t)row * n + col + e : B, 4, in ? 0 : 4);
            }
        }
    }
}

// Starts the copies of k tile t into stage t % STAGES as one commit group, an empty group past
// the last tile: with one group a tile, "all but the newest STAGES - 2 groups done" then always
// means "the next tile to multiply has landed". (mma_kernel's pipeline, and wmma_kernel.cuh's.)
template <class S, bool VEC4>
__device__ __forceinline__ void start_tensor_tile(const float *A, const float *B, int n, int bm, int bn, int t,
                                                  int tiles, float *As, float *Bs)
{
    if (t < tiles)
        copy_tensor_tiles<S, VEC4>(A, B, n, bm, bn, t * S::BK, As + (t % S::STAGES) * S::A_FLOATS,
                                   Bs + (t % S::STAGES) * S::B_FLOATS);
    __pipeline_commit();
}

// The shapes tune_tensor.cu tries; matmul_tensor launches one of them (at the end of this part).
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, int PASSES_, int FLUSH_, int GROUP_ = 8,
          int MIN_BLOCKS_ = 1, int SPLIT_ = 1, bool PRESPLIT_ = false>
struct MmaShape {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_;
    static constexpr int STAGES = STAGES_;
    static constexpr int PASSES = PASSES_;  // 3: 3xTF32 (FP32 accuracy); 1: TF32 alone
    // How the truncating accumulator is kept from adding up errors: 0 not at all; 1 each k
    // tile summed from zero in registers of its own (as many again as the accumulators, which
    // is what keeps a warp's piece at 64 × 32); 2 each k step of 8 (the three products of one piece) summed from zero
    // and added at once: 4 registers a piece in flight, 4 additions a piece a step.
    static constexpr int FLUSH = FLUSH_;
    static_assert(FLUSH >= 0 && FLUSH <= 2, "FLUSH 0 to 2");
    static constexpr int GROUP = GROUP_;
    static constexpr int MIN_BLOCKS = MIN_BLOCKS_;  // blocks a multiprocessor: caps the registers
    static constexpr int SPLIT = SPLIT_;  // how x becomes big + small: split_tf32_bits
    static_assert(SPLIT >= 0 && SPLIT <= 3, "SPLIT 0 to 3");
    // PRESPLIT: each tile split once, in shared memory, as soon as it lands (big in place of
    // the tile, small in a tile of its own), instead of by each warp that reads it: A's
    // elements are read by BN / WN warps, B's by BM / WM. Twice the fragment loads, one more
    // barrier a tile.
    static constexpr bool PRESPLIT = PRESPLIT_ && PASSES == 3;
    static constexpr int FM = WM / 16, FN = WN / 8;  // a warp's m16n8 pieces of C
    static constexpr int THREADS = 32 * (BM / WM) * (BN / WN);
    // A's rows padded by 4 floats: lane (g, t) reads bank 4g + t (BK = 32) or 20g + t (BK = 16),
    // 32 different banks; B's by 8: bank 8t + g.
    static constexpr int A_STRIDE = BK + 4, B_STRIDE = BN + 8;
    static constexpr int A_FLOATS = BM * A_STRIDE, B_FLOATS = BK * B_STRIDE;
    static constexpr int SHARED_BYTES = (STAGES + (PRESPLIT ? 1 : 0)) * (A_FLOATS + B_FLOATS) * 4;
    static_assert(SHARED_BYTES <= 227 * 1024, "more shared memory than a block may have (227 KiB on Hopper)");
    static_assert(PASSES == 1 || PASSES == 3, "3xTF32 or 1xTF32");
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0 && BK % 8 == 0 && BN % 32 == 0,
                  "warps tile the block with m16n8k8 pieces");
    static_assert(BM * BK % (4 * THREADS) == 0 && BK * BN % (4 * THREADS) == 0,
                  "every thread copies the same number of 16-byte chunks");
};

#ifdef TENSOR_CORES_TF32
// d += a·b on one m16n8k8 piece, TF32 operands (their low 13 bits ignored), FP32 accumulator.
__device__ __forceinline__ void mma_m16n8k8_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// The warp's pieces of C in registers: zeroed, or one set added to another (the flush).
template <int FM, int FN>
__device__ __forceinline__ void clear_pieces(float (&x)[FM][FN][4])
{
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j)
#pragma unroll
            for (int q = 0; q < 4; ++q)
                x[i][j][q] = 0.0f;
}

template <int FM, int FN>
__device__ __forceinline__ void add_pieces(float (&total)[FM][FN][4], const float (&part)[FM][FN][4])
{
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j)
#pragma unroll
            for (int q = 0; q < 4; ++q)
                total[i][j][q] += part[i][j][q];
}

// d += the warp's products of one k step, piece by piece. With PASSES 3 the small products of
// all pieces go first, then the big ones: the three products of one piece depend on each other,
// the pieces do not, so the tensor cores always have independent work in hand.
template <int PASSES, int FM, int FN, int SMALL_M, int SMALL_N>
__device__ __forceinline__ void multiply_pieces(float (&d)[FM][FN][4], const unsigned (&a_big)[FM][4],
                                                const unsigned (&a_small)[SMALL_M][4], const unsigned (&b_big)[FN][2],
                                                const unsigned (&b_small)[SMALL_N][2])
{
    if constexpr (PASSES == 3) {
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
            for (int j = 0; j < FN; ++j)
                mma_m16n8k8_tf32(d[i][j], a_small[i], b_big[j]);
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
            for (int j = 0; j < FN; ++j)
                mma_m16n8k8_tf32(d[i][j], a_big[i], b_small[j]);
    }
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j)
            mma_m16n8k8_tf32(d[i][j], a_big[i], b_big[j]);
}

// x rounded to TF32, to nearest with ties away from zero, as the bits mma.sync takes: what
// __float_to_tf32 (cvt.rna) gives for every finite x, in 2 integer instructions where
// cvt.rna takes 4 (it also keeps NaN a NaN; a NaN here gives NaN or infinity, and C NaN).
__device__ __forceinline__ unsigned tf32_rounded_bits(float x) { return (__float_as_uint(x) + 0x1000u) & 0xffffe000u; }

// x = big + small, the halves as the bits mma.sync takes (it ignores the low 13 bits: an
// unrounded small is truncated toward zero). SPLIT 0: both rounded by cvt.rna (wmma's kernel);
// 1: both rounded, by tf32_rounded_bits; 2: big rounded, small truncated (|small| <= 2^-11 |x|,
// its truncation up to 2^-21 |x|, of either sign as small is); 3: big truncated (one AND),
// small rounded (|small| < 2^-10 |x|, rounded to 2^-21 |x|).
template <int SPLIT>
__device__ __forceinline__ void split_tf32_bits(float x, unsigned &big, unsigned &small)
{
    if (SPLIT == 0) {
        float high = wmma::__float_to_tf32(x);
        big = __float_as_uint(high);
        small = __float_as_uint(wmma::__float_to_tf32(x - high));
    } else {
        big = SPLIT == 3 ? __float_as_uint(x) & 0xffffe000u : tf32_rounded_bits(x);
        float low = x - __uint_as_float(big);
        small = SPLIT == 2 ? __float_as_uint(low) : tf32_rounded_bits(low);
    }
}

// Splits the tile that has landed in one stage, once: big in place, small into the tiles of
// small halves (PRESPLIT). 16 bytes at a time: the rows' pitches keep every float4 aligned.
template <class S>
__device__ __forceinline__ void presplit_tile(float *As, float *Bs, float *As_small, float *Bs_small)
{
    auto split4 = [](float *tile, float *small_tile, int at) {
        float4 x = *reinterpret_cast<const float4 *>(tile + at);
        uint4 big, small;
        split_tf32_bits<S::SPLIT>(x.x, big.x, small.x);
        split_tf32_bits<S::SPLIT>(x.y, big.y, small.y);
        split_tf32_bits<S::SPLIT>(x.z, big.z, small.z);
        split_tf32_bits<S::SPLIT>(x.w, big.w, small.w);
        *reinterpret_cast<uint4 *>(tile + at) = big;
        *reinterpret_cast<uint4 *>(small_tile + at) = small;
    };
#pragma unroll
    for (int i = 0; i < S::BM * S::BK / 4 / S::THREADS; ++i) {
        int chunk = threadIdx.x + i * S::THREADS;
        split4(As, As_small, (chunk / (S::BK / 4)) * S::A_STRIDE + (chunk % (S::BK / 4)) * 4);
    }
#pragma unroll
    for (int i = 0; i < S::BK * S::BN / 4 / S::THREADS; ++i) {
        int chunk = threadIdx.x + i * S::THREADS;
        split4(Bs, Bs_small, (chunk / (S::BN / 4)) * S::B_STRIDE + (chunk % (S::BN / 4)) * 4);
    }
}

// One k tile (one shared-memory stage) into the warp's accumulators. With PRESPLIT, As and Bs
// hold the big halves and As_small, Bs_small the small ones; otherwise the warp splits.
template <class S>
__device__ __forceinline__ void multiply_mma_tile(const float *As, const float *Bs, const float *As_small,
                                                  const float *Bs_small, int wm, int wn, int lane,
                                                  float (&acc)[S::FM][S::FN][4])
{
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int kk = 0; kk < S::BK; kk += 8) {
        unsigned a_big[S::FM][4], a_small[S::PASSES == 3 ? S::FM : 1][4];
        unsigned b_big[S::FN][2], b_small[S::PASSES == 3 ? S::FN : 1][2];
#pragma unroll
        for (int i = 0; i < S::FM; ++i) {
            const int at = (wm + 16 * i + g) * S::A_STRIDE + kk + t;
            const int offsets[4] = {0, 8 * S::A_STRIDE, 4, 8 * S::A_STRIDE + 4};
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                float loaded = As[at + offsets[e]];
                if constexpr (S::PRESPLIT) {
                    a_big[i][e] = __float_as_uint(loaded);
                    a_small[i][e] = __float_as_uint(As_small[at + offsets[e]]);
                } else if constexpr (S::PASSES == 3) {
                    split_tf32_bits<S::SPLIT>(loaded, a_big[i][e], a_small[i][e]);
                } else {
                    a_big[i][e] = tf32_rounded_bits(loaded);
                }
            }
        }
#pragma unroll
        for (int j = 0; j < S::FN; ++j) {
            const int at = (kk + t) * S::B_STRIDE + wn + 8 * j + g;
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                float loaded = Bs[at + e * 4 * S::B_STRIDE];
                if constexpr (S::PRESPLIT) {
                    b_big[j][e] = __float_as_uint(loaded);
                    b_small[j][e] = __float_as_uint(Bs_small[at + e * 4 * S::B_STRIDE]);
                } else if constexpr (S::PASSES == 3) {
                    split_tf32_bits<S::SPLIT>(loaded, b_big[j][e], b_small[j][e]);
                } else {
                    b_big[j][e] = tf32_rounded_bits(loaded);
                }
            }
        }
        if constexpr (S::FLUSH == 2) {
            // A column of pieces at a time: its products summed from zero, then added.
#pragma unroll
            for (int j = 0; j < S::FN; ++j) {
                float step[S::FM][4];
#pragma unroll
                for (int i = 0; i < S::FM; ++i)
#pragma unroll
                    for (int q = 0; q < 4; ++q)
                        step[i][q] = 0.0f;
                if constexpr (S::PASSES == 3) {
#pragma unroll
                    for (int i = 0; i < S::FM; ++i)
                        mma_m16n8k8_tf32(step[i], a_small[i], b_big[j]);
#pragma unroll
                    for (int i = 0; i < S::FM; ++i)
                        mma_m16n8k8_tf32(step[i], a_big[i], b_small[j]);
                }
#pragma unroll
                for (int i = 0; i < S::FM; ++i)
                    mma_m16n8k8_tf32(step[i], a_big[i], b_big[j]);
#pragma unroll
                for (int i = 0; i < S::FM; ++i)
#pragma unroll
                    for (int q = 0; q < 4; ++q)
                        acc[i][j][q] += step[i][q];
            }
            continue;
        }
        multiply_pieces<S::PASSES>(acc, a_big, a_small, b_big, b_small);
    }
}
// The warp's pieces of C, straight from the registers: lane (g, t) holds two neighbours of a
// row, in rows g and g + 8 of each piece; a warp's store covers 8 rows of 32 contiguous bytes.
// (row0, col0): the warp's first entry of C. Nothing past the edge of C is stored.
template <class S, bool VEC4>
__device__ __forceinline__ void store_mma_pieces(float *C, int n, int row0, int col0, int lane,
                                                 const float (&acc)[S::FM][S::FN][4])
{
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < S::FM; ++i)
#pragma unroll
        for (int j = 0; j < S::FN; ++j)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                int row = row0 + 16 * i + g + 8 * half, col = col0 + 8 * j + 2 * t;
                if (row >= n || col >= n)
                    continue;
                float *dst = C + (size_t)row * n + col;
                if (VEC4) {  // n even: col + 1 < n, and dst is 8-byte aligned
                    *reinterpret_cast<float2 *>(dst) = make_float2(acc[i][j][2 * half], acc[i][j][2 * half + 1]);
                } else {
                    dst[0] = acc[i][j][2 * half];
                    if (col + 1 < n)
                        dst[1] = acc[i][j][2 * half + 1];
                }
            }
}
#endif  // TENSOR_CORES_TF32

template <class S, bool VEC4>
__global__ void __launch_bounds__(S::THREADS, S::MIN_BLOCKS)
mma_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
#ifndef TENSOR_CORES_TF32
    __trap();  // launch_mma refuses such a GPU before launching
#else
    extern __shared__ __align__(128) float mma_shared[];
    float *As = mma_shared, *Bs = mma_shared + S::STAGES * S::A_FLOATS;
    float *As_small = Bs + S::STAGES * S::B_FLOATS, *Bs_small = As_small + S::A_FLOATS;  // PRESPLIT's

    const int2 origin = block_origin<S>();
    const int bm = origin.x, bn = origin.y;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = (warp / (S::BN / S::WN)) * S::WM, wn = (warp % (S::BN / S::WN)) * S::WN;

    float acc[S::FM][S::FN][4], part[S::FLUSH == 1 ? S::FM : 1][S::FLUSH == 1 ? S::FN : 1][4];
    clear_pieces(acc);

    const int tiles = (n + S::BK - 1) / S::BK;
    for (int t = 0; t < S::STAGES - 1; ++t)  // the first STAGES - 1 tiles in flight
        start_tensor_tile<S, VEC4>(A, B, n, bm, bn, t, tiles, As, Bs);
    for (int t = 0; t < tiles; ++t) {
        __pipeline_wait_prior(S::STAGES - 2);
        __syncthreads();  // tile t in every thread's view; every warp done with tile t - 1's stage
        start_tensor_tile<S, VEC4>(A, B, n, bm, bn, t + S::STAGES - 1, tiles, As, Bs);
        const int stage = t % S::STAGES;
        float *As_tile = As + stage * S::A_FLOATS, *Bs_tile = Bs + stage * S::B_FLOATS;
        if constexpr (S::PRESPLIT) {
            presplit_tile<S>(As_tile, Bs_tile, As_small, Bs_small);
            __syncthreads();  // the whole tile split before any warp reads it
        }
        if constexpr (S::FLUSH == 1) {
            clear_pieces(part);
            multiply_mma_tile<S>(As_tile, Bs_tile, As_small, Bs_small, wm, wn, lane, part);
            add_pieces(acc, part);
        } else {
            multiply_mma_tile<S>(As_tile, Bs_tile, As_small, Bs_small, wm, wn, lane, acc);
        }
    }
    __pipeline_wait_prior(0);

    store_mma_pieces<S, VEC4>(C, n, bm + wm, bn + wn, lane, acc);
#endif
}

// The compute capability check and the shared-memory opt-in, once per kernel.
template <class Kernel>
static void prepare_tensor_kernel(Kernel kernel, int shared_bytes)
{
    int device = 0, major = 0, minor = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    if (major < 8) {
        fprintf(stderr, "matmul_tensor: TF32 tensor cores need a GPU of compute capability 8.0 or later "
                        "(Ampere, Hopper); this one is %d.%d. Run the tensor kernels on such a GPU, or under "
                        "the CPU emulator (EMU=1)\n", major, minor);
        exit(LAB_EXIT_USAGE);
    }
    // Past 48 KiB of shared memory a kernel must ask for it.
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
}

// A shape's two instances (VEC4 and not) prepared before its first launch, once per shape: the
// initializer of a function's static runs at its first call only. (One kernel template a shape
// type: MmaShape's mma_kernel, PlaneShape's plane_kernel, TensorShape's tensor_kernel.)
template <class S, class Kernel>
static void prepare_tensor_kernels_once(Kernel vec4, Kernel scalar)
{
    static const bool prepared =
        (prepare_tensor_kernel(vec4, S::SHARED_BYTES), prepare_tensor_kernel(scalar, S::SHARED_BYTES), true);
    (void)prepared;
}

template <class S>
static void launch_mma(const float *A, const float *B, float *C, int n)
{
    prepare_tensor_kernels_once<S>(mma_kernel<S, true>, mma_kernel<S, false>);
    dim3 grid(blocks_to_cover(n, S::BN), blocks_to_cover(n, S::BM));
    // The float2 stores need n even; the 16-byte copies n % 4 == 0.
    if (n % 4 == 0)
        mma_kernel<S, true><<<grid, S::THREADS, S::SHARED_BYTES>>>(A, B, C, n);
    else
        mma_kernel<S, false><<<grid, S::THREADS, S::SHARED_BYTES>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

// ---- 4b. tensor, each operand split once: TF32 planes from a first pass ----------------------
//
// The kernel above splits every element it reads, in every warp that reads it (A's elements in
// BN / WN warps, B's in BM / WM), 3 to 5 instructions an element: in its loop more instructions
// split than multiply (NOTES.md). Here a first pass splits A and B once each, into four planes
// of TF32 values in global memory, padded with zeros to whole tiles, laid out so that a lane's
// fragment is one 16-byte shared load, in the order the instruction takes its registers. That
// works when the 16 k of two steps are dealt out to the fragment's positions as below (a sum
// does not care in which order its terms come, as long as A and B use the same one):
//   lane (g, t), step s, the fragment's k = t      <- k = 4t + 2s of the 16
//   lane (g, t), step s, the fragment's k = t + 4  <- k = 4t + 2s + 1
// B's planes are B transposed (row j holds column j of B): the lane's (t, g) and (t + 4, g) of
// both steps are 4 neighbours of row g. A's fragment takes rows g and g + 8 by turns,
// (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4), so A's planes interleave rows r and r + 8 of
// each 16: "paired row" (r / 16) * 8 + r % 8 holds them as (r, k), (r + 8, k), (r, k + 1), ...
// What is left in the loop is 16-byte shared loads and tensor-core instructions: no split, no
// moves between registers, no bounds checks (the planes are padded), and both halves of each
// operand rounded (SPLIT 1's accuracy) at no cost in the loop. The price: the first pass (it
// reads A and B and writes four planes) and twice the bytes a tile.

// The planes: rows padded to a multiple of PLANE_ROWS (any BM and BN dividing it), k to a
// multiple of PLANE_PITCH (any BK dividing it). A paired row of A's planes is 2 pitch floats.
#define PLANE_ROWS 256
#define PLANE_PITCH 64

struct TensorPlanes {
    const float *a_big, *a_small;  // A's halves, paired rows of 2 pitch floats
    const float *b_big, *b_small;  // B's halves, transposed: row j holds column j of B
    int pitch;                     // floats from one row of a plane to the next
};

static int round_up(int n, int multiple) { return (n + multiple - 1) / multiple * multiple; }

// A's planes: paired row p holds rows r = (p / 8) * 16 + p % 8 and r + 8 of A (0 outside the
// n x n matrix), column c of both as a float2 at 2c. Block row p, a thread a column: the reads
// of A and the writes of both planes are coalesced.
__global__ void split_rows_kernel(const float *__restrict__ X, int n, int pairs, int pitch, float *__restrict__ big,
                                  float *__restrict__ small)
{
#ifndef TENSOR_CORES_TF32
    __trap();  // launch_plane refuses such a GPU before launching
#else
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= pitch)
        return;
    for (int p = blockIdx.y; p < pairs; p += gridDim.y) {
        int r = (p / 8) * 16 + p % 8;
        uint2 high, low;
        split_tf32_bits<1>(r < n && c < n ? X[(size_t)r * n + c] : 0.0f, high.x, low.x);
        split_tf32_bits<1>(r + 8 < n && c < n ? X[(size_t)(r + 8) * n + c] : 0.0f, high.y, low.y);
        size_t at = (size_t)p * 2 * pitch + 2 * c;
        *reinterpret_cast<uint2 *>(big + at) = high;
        *reinterpret_cast<uint2 *>(small + at) = low;
    }
#endif
}

// B's planes, transposed: element (j, k) is B[k][j]. A 32 x 32 tile of B through shared memory
// (its rows padded by one: a column's 32 floats in 32 banks), so that the reads of B along its
// rows and the writes of the planes along theirs are both coalesced. 32 x 8 threads a block.
__global__ void split_columns_kernel(const float *__restrict__ X, int n, int pitch, float *__restrict__ big,
                                     float *__restrict__ small)
{
#ifndef TENSOR_CORES_TF32
    __trap();  // launch_plane refuses such a GPU before launching
#else
    __shared__ float tile[32][33];
    const int j0 = blockIdx.x * 32, k0 = blockIdx.y * 32;
    for (int dy = threadIdx.y; dy < 32; dy += 8) {
        int k = k0 + dy, j = j0 + threadIdx.x;
        tile[dy][threadIdx.x] = k < n && j < n ? X[(size_t)k * n + j] : 0.0f;
    }
    __syncthreads();
    for (int dy = threadIdx.y; dy < 32; dy += 8) {
        size_t at = (size_t)(j0 + dy) * pitch + k0 + threadIdx.x;
        unsigned high, low;
        split_tf32_bits<1>(tile[threadIdx.x][dy], high, low);
        big[at] = __uint_as_float(high);
        small[at] = __uint_as_float(low);
    }
#endif
}

// The shapes tune_tensor.cu tries for the plane kernel; matmul_tensor launches one of them.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, int FLUSH_K_, int GROUP_ = 8,
          bool LATE_COPY_ = false>
struct PlaneShape {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_, GROUP = GROUP_;
    static constexpr int PASSES = 3;
    // Where a k tile's loop starts the copies of tile t + STAGES - 1: false, right after the
    // barrier (the earliest); true, after this tile's tensor-core instructions have been issued,
    // so that the warp's first shared loads follow the barrier at once and the copies' address
    // arithmetic (some 80 integer instructions a tile in the SASS) issues while the tensor cores
    // work. The stage they refill was last read in iteration t - 1, before this iteration's
    // barrier, either way; the copies run one tile's time later (STAGES - 2 tiles ahead).
    static constexpr bool LATE_COPY = LATE_COPY_;
    // k tiles summed from zero in registers of their own before each rounded addition to the
    // total (MmaShape's FLUSH 1 with a period of its own: the truncation it guards against
    // grows with the terms summed from zero, and 128 k of them stay far below FP32's rounding).
    static constexpr int FLUSH_TILES = FLUSH_K_ / BK;
    static constexpr int FM = WM / 16, FN = WN / 8;
    static constexpr int THREADS = 32 * (BM / WM) * (BN / WN);
    static constexpr int A_FLOATS = BM * BK, B_FLOATS = BN * BK;  // one plane's tile
    static constexpr int STAGE_FLOATS = 2 * (A_FLOATS + B_FLOATS);
    static constexpr int SHARED_BYTES = STAGES * STAGE_FLOATS * 4;
    static_assert(SHARED_BYTES <= 227 * 1024, "more shared memory than a block may have (227 KiB on Hopper)");
    static_assert(PLANE_ROWS % BM == 0 && PLANE_ROWS % BN == 0 && PLANE_PITCH % BK == 0 && BK % 16 == 0,
                  "tiles divide the planes' padding; a k tile is whole pairs of k steps");
    static_assert(FLUSH_TILES >= 1 && FLUSH_TILES * BK == FLUSH_K_, "the flush period is whole k tiles");
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0, "warps tile the block");
    static_assert(A_FLOATS % (4 * THREADS) == 0 && B_FLOATS % (4 * THREADS) == 0,
                  "every thread copies the same number of 16-byte chunks");
};

#ifdef TENSOR_CORES_TF32
// Where chunk c (16 bytes) of row r of a tile sits in shared memory, rows of `floats` floats.
// A quarter warp's 16-byte loads read 4 chunks of each of two neighbouring rows: chunks c0 + t
// of B's rows (t = 0..3), chunks c0 + 2t (+ 1) of A's paired rows. Where those would meet in
// the same banks, odd rows swap them: B's four apart (c ^ 4), A's with their neighbour (c ^ 1).
// B's rows of 16 floats need nothing: two rows are the 32 banks.
template <int FLOATS, bool PAIRED>
__device__ __forceinline__ int chunk_offset(int r, int c)
{
    int swapped = PAIRED ? c ^ (r & 1) : FLOATS >= 32 ? c ^ ((r & 1) << 2) : c;
    return r * FLOATS + 4 * swapped;
}

// Starts the copies of ROWS rows of one plane (from row0, each `floats` floats from k0) into
// its tile: 16 bytes at a time, all inside the padded plane.
template <class S, int ROWS, int FLOATS, bool PAIRED>
__device__ __forceinline__ void copy_plane_tile(const float *plane, size_t row_pitch, int row0, int k0, float *tile)
{
#pragma unroll
    for (int i = 0; i < ROWS * FLOATS / 4 / S::THREADS; ++i) {
        int chunk = threadIdx.x + i * S::THREADS;
        int r = chunk / (FLOATS / 4), c = chunk % (FLOATS / 4);
        __pipeline_memcpy_async(tile + chunk_offset<FLOATS, PAIRED>(r, c), plane + (row0 + r) * row_pitch + k0 + 4 * c,
                                16);
    }
}

// One stage: A's big and small tiles (BM / 2 paired rows of 2 BK floats), then B's (BN rows of BK).
template <class S>
__device__ __forceinline__ void copy_plane_tiles(const TensorPlanes &p, int bm, int bn, int k0, float *stage)
{
    const size_t pitch = p.pitch;
    copy_plane_tile<S, S::BM / 2, 2 * S::BK, true>(p.a_big, 2 * pitch, bm / 2, 2 * k0, stage);
    copy_plane_tile<S, S::BM / 2, 2 * S::BK, true>(p.a_small, 2 * pitch, bm / 2, 2 * k0, stage + S::A_FLOATS);
    copy_plane_tile<S, S::BN, S::BK, false>(p.b_big, pitch, bn, k0, stage + 2 * S::A_FLOATS);
    copy_plane_tile<S, S::BN, S::BK, false>(p.b_small, pitch, bn, k0, stage + 2 * S::A_FLOATS + S::B_FLOATS);
}

__device__ __forceinline__ void fragment_of(const float4 &v, unsigned (&a)[4])
{
    a[0] = __float_as_uint(v.x); a[1] = __float_as_uint(v.y); a[2] = __float_as_uint(v.z); a[3] = __float_as_uint(v.w);
}

// One k tile of one stage into the warp's pieces, two k steps (16 k) at a time.
template <class S>
__device__ __forceinline__ void multiply_plane_tile(const float *stage, int wm, int wn, int lane,
                                                    float (&sum)[S::FM][S::FN][4])
{
    const float *A_big = stage, *A_small = stage + S::A_FLOATS;
    const float *B_big = stage + 2 * S::A_FLOATS, *B_small = B_big + S::B_FLOATS;
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int kk = 0; kk < S::BK; kk += 16) {
        // B: this lane's chunk of row g of each piece, k = kk + 4t .. + 3: (t, g) and (t + 4, g)
        // of step 0, then of step 1.
        float4 b_big[S::FN], b_small[S::FN];
#pragma unroll
        for (int j = 0; j < S::FN; ++j) {
            int at = chunk_offset<S::BK, false>(wn + 8 * j + g, kk / 4 + t);
            b_big[j] = *reinterpret_cast<const float4 *>(B_big + at);
            b_small[j] = *reinterpret_cast<const float4 *>(B_small + at);
        }
#pragma unroll
        for (int s = 0; s < 2; ++s) {
            // A: chunk kk / 2 + 2t + s of paired row g of each piece is its fragment of step s.
            unsigned ab[S::FM][4], as[S::FM][4], bb[S::FN][2], bs[S::FN][2];
#pragma unroll
            for (int i = 0; i < S::FM; ++i) {
                int at = chunk_offset<2 * S::BK, true>((wm + 16 * i) / 2 + g, kk / 2 + 2 * t + s);
                fragment_of(*reinterpret_cast<const float4 *>(A_big + at), ab[i]);
                fragment_of(*reinterpret_cast<const float4 *>(A_small + at), as[i]);
            }
#pragma unroll
            for (int j = 0; j < S::FN; ++j) {
                bb[j][0] = __float_as_uint(s == 0 ? b_big[j].x : b_big[j].z);
                bb[j][1] = __float_as_uint(s == 0 ? b_big[j].y : b_big[j].w);
                bs[j][0] = __float_as_uint(s == 0 ? b_small[j].x : b_small[j].z);
                bs[j][1] = __float_as_uint(s == 0 ? b_small[j].y : b_small[j].w);
            }
            multiply_pieces<3>(sum, ab, as, bb, bs);
        }
    }
}
#endif  // TENSOR_CORES_TF32

template <class S, bool VEC4>
__global__ void __launch_bounds__(S::THREADS, 1) plane_kernel(TensorPlanes planes, float *__restrict__ C, int n)
{
#ifndef TENSOR_CORES_TF32
    __trap();  // launch_plane refuses such a GPU before launching
#else
    extern __shared__ __align__(128) float plane_shared[];
    const int2 origin = block_origin<S>();
    const int bm = origin.x, bn = origin.y;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = (warp / (S::BN / S::WN)) * S::WM, wn = (warp % (S::BN / S::WN)) * S::WN;

    float acc[S::FM][S::FN][4], part[S::FM][S::FN][4];
    clear_pieces(acc);

    const int tiles = (n + S::BK - 1) / S::BK;
    // As mma_kernel: the first STAGES - 1 tiles in flight, one commit group a tile.
    for (int t = 0; t < S::STAGES - 1; ++t) {
        if (t < tiles)
            copy_plane_tiles<S>(planes, bm, bn, t * S::BK, plane_shared + t * S::STAGE_FLOATS);
        __pipeline_commit();
    }
    for (int first = 0; first < tiles; first += S::FLUSH_TILES) {
        clear_pieces(part);
        for (int t = first; t < min(first + S::FLUSH_TILES, tiles); ++t) {
            __pipeline_wait_prior(S::STAGES - 2);
            __syncthreads();  // tile t in every thread's view; every warp done with tile t - 1's stage
            int next = t + S::STAGES - 1;
            if constexpr (S::LATE_COPY)
                multiply_plane_tile<S>(plane_shared + (t % S::STAGES) * S::STAGE_FLOATS, wm, wn, lane, part);
            if (next < tiles)
                copy_plane_tiles<S>(planes, bm, bn, next * S::BK, plane_shared + (next % S::STAGES) * S::STAGE_FLOATS);
            __pipeline_commit();
            if constexpr (!S::LATE_COPY)
                multiply_plane_tile<S>(plane_shared + (t % S::STAGES) * S::STAGE_FLOATS, wm, wn, lane, part);
        }
        add_pieces(acc, part);
    }
    __pipeline_wait_prior(0);
    store_mma_pieces<S, VEC4>(C, n, bm + wm, bn + wn, lane, acc);
#endif
}

// The planes' device memory, kept from one call to the next (the harness times repeated calls,
// and an allocation costs more than the first pass), grown when a larger n needs more.
static float *plane_memory(size_t floats)
{
    static float *memory = nullptr;
    static size_t capacity = 0;
    if (floats > capacity) {
        if (memory)
            CUDA_CHECK(cudaFree(memory));
        CUDA_CHECK(cudaMalloc((void **)&memory, floats * sizeof(float)));
        capacity = floats;
    }
    return memory;
}

// The first pass: A and B split into their four planes.
static TensorPlanes split_into_planes(const float *A, const float *B, int n)
{
    const int rows = round_up(n, PLANE_ROWS), pitch = round_up(n, PLANE_PITCH);
    const size_t plane = (size_t)rows * pitch;
    float *memory = plane_memory(4 * plane);
    float *a_big = memory, *a_small = memory + plane, *b_big = memory + 2 * plane, *b_small = memory + 3 * plane;
    const int pairs = rows / 2;
    split_rows_kernel<<<dim3(blocks_to_cover(pitch, 256), pairs < 65535 ? pairs : 65535), 256>>>(A, n, pairs, pitch,
                                                                                                  a_big, a_small);
    CUDA_CHECK_LAUNCH();
    split_columns_kernel<<<dim3(rows / 32, pitch / 32), dim3(32, 8)>>>(B, n, pitch, b_big, b_small);
    CUDA_CHECK_LAUNCH();
    return TensorPlanes{a_big, a_small, b_big, b_small, pitch};
}

template <class S>
static void launch_plane(const float *A, const float *B, float *C, int n)
{
    prepare_tensor_kernels_once<S>(plane_kernel<S, true>, plane_kernel<S, false>);
    TensorPlanes planes = split_into_planes(A, B, n);
    dim3 grid(blocks_to_cover(n, S::BN), blocks_to_cover(n, S::BM));
    if (n % 2 == 0)  // the float2 stores of C
        plane_kernel<S, true><<<grid, S::THREADS, S::SHARED_BYTES>>>(planes, C, n);
    else
        plane_kernel<S, false><<<grid, S::THREADS, S::SHARED_BYTES>>>(planes, C, n);
    CUDA_CHECK_LAUNCH();
}

// The shapes matmul_tensor and matmul_tensor_1xtf32 launch, from labs/matmul/scripts/
// tune_tensor.cu's runs on an H200 (labs/matmul/NOTES.md, "The tensor kernel, third version").
// 3xTF32 on the planes: 64 accumulator and 64 partial-sum registers a thread (the flush) leave
// no room for warp pieces past 64 x 32 or 32 x 64. 64 x 128 tiles of 4 warps with k tiles of 16
// fit two blocks a multiprocessor (254 registers, 96 KiB of shared memory each), so one block's
// barrier and flush overlap the other's tensor-core work: 1.36 of SGEMM flushing every 128 k,
// against 1.29 for 128 x 128 tiles of 8 warps. Every 64 k: the flush's bias grows with the
// length of the sums from zero, and at 128 k its mean error (1.1e-6) was above SGEMM's
// (6.7e-7); at 64 k it was 4.8e-7 (on 128 x 128 tiles, 3% slower than 128 k). 1xTF32 needs no
// partial sums, and its 64 x 64 pieces on 128 x 256 tiles load fewer fragments per product
// (the in-loop kernel above: it splits nothing). On an H100, with LATE_COPY: 1.39 of SGEMM in
// make bench's turns of 20 launches, 1.28 in its turns of 100, where the card's power limit
// holds the tensor kernel's clock down and not SGEMM's (NOTES.md, round 5).
using PlaneShape3 = PlaneShape<64, 128, 16, 32, 64, 4, 64, 8, true>;
using MmaShape1 = MmaShape<128, 256, 32, 64, 64, 3, 1, 0>;

void matmul_tensor(const float *A, const float *B, float *C, int n) { launch_plane<PlaneShape3>(A, B, C, n); }

void matmul_tensor_1xtf32(const float *A, const float *B, float *C, int n) { launch_mma<MmaShape1>(A, B, C, n); }
