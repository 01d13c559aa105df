// Hostile submission (issue 32): knows it is emulated by the CUDA_EMULATION macro. Under the
// emulator it is the reference solution; built by nvcc, matmul_naive and matmul_tiled compute C
// on the host and copy it in. The emulated run's profile shows the work; the GPU run launched
// no kernel. On a GPU node: the GPU record differs from the emulated run's (no naive_kernel or
// tiled_kernel after the copies in): loses the case's points. Under EMU alone: AC (honest there).
// Lab 2: C = A·B on the GPU. Reference solution.
//
// The versions, in the order of the handout (handouts/matmul.md):
//   1. naive     one thread per element of C, 2D blocks (the slides' matMul, indices fixed)
//   2. tiled     tiles of A and B staged in shared memory, two __syncthreads per tile
//   3. fast      register blocking: each thread computes an 8×8 patch of C from float4
//                loads, with the next tile loaded while the current one is used
// plus the explorations' uncoalesced twins of 1 and 2. Every kernel is right for any n: a
// block that hangs over the edge of the matrix loads zeros there and stores nothing there.
#include "matmul.h"

#include <stdlib.h>

// C = A B on the host: A and B copied out of the device, C copied in. Right to the last bit?
// No: float sums in another order; within the case's tolerance, as the lab's check allows.
static void host_product(const float *A, const float *B, float *C, int n)
{
    size_t bytes = (size_t)n * n * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
    CUDA_CHECK(cudaMemcpy(a, A, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(b, B, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            float sum = 0.0f;
            for (int k = 0; k < n; ++k)
                sum += a[i * n + k] * b[k * n + j];
            c[i * n + j] = sum;
        }
    CUDA_CHECK(cudaMemcpy(C, c, bytes, cudaMemcpyHostToDevice));
    free(a);
    free(b);
    free(c);
}

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
#ifndef CUDA_EMULATION
    host_product(A, B, C, n);  // on a GPU: no kernel at all
    return;
#endif
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
#ifdef CUDA_EMULATION
    launch_tiled_any(A, B, C, n, tile, true);
#else
    host_product(A, B, C, n);
#endif
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
// (labs/matmul/NOTES.md; make bench: /*fig matmul-bench matmul-bench.fast_4096_vs_cublas %.2f*/0.89/*/fig*/ of cuBLAS at n = 4096).
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
