// Steps 4 to 8 of labs/matmul/NOTES.md: the matmul reference's fast kernel with its tiles brought
// in by asynchronous copies (cp.async through __pipeline_memcpy_async) into STAGES shared-memory
// stages, instead of through registers, plus grouped launch order. Measured on an H100 it lost
// to the register-staged kernel that solutions/matmul/matmul.c keeps (0.79 to 0.86 of cuBLAS at
// n = 4096 against 0.89): labs/matmul/scripts/tune_fast.cu times both.
//
// How it works. A's tile is stored transposed (As[k][m], rows padded by 4 floats), so it is
// copied 4 bytes at a time: a warp copies 8 consecutive k of 4 rows, 32 different banks. B's
// tile is copied 16 bytes at a time when n % 4 == 0. While the block computes with tile t, the
// copies of tiles t + 1 .. t + STAGES - 1 are in flight; one __syncthreads per tile. Past the
// edge of the matrix a thread stores zeros instead of copying.
// The rest is the solution's own (matmul.c, included first): block_origin, load_fragments,
// multiply_add and store_patch.
#pragma once

#include <cuda_pipeline.h>

// The solution's TileShape (the block, warp and thread tiles, MIN_BLOCKS, FRAG_PIPE, GROUP and
// A's padding, which its load_fragments reads by), plus the stages.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int LY_, int LX_, int STAGES_, int MIN_BLOCKS_ = 1,
          bool FRAG_PIPE_ = true, int GROUP_ = 0>
struct AsyncShape : TileShape<BM_, BN_, BK_, WM_, WN_, LY_, LX_, MIN_BLOCKS_, FRAG_PIPE_, GROUP_> {
    using Tile = TileShape<BM_, BN_, BK_, WM_, WN_, LY_, LX_, MIN_BLOCKS_, FRAG_PIPE_, GROUP_>;
    static constexpr int STAGES = STAGES_;  // tiles in shared memory at once
    static constexpr int A_STAGE = BK_ * (BM_ + Tile::A_PAD), B_STAGE = BK_ * BN_;  // floats
    static constexpr int SMEM_BYTES = STAGES * (A_STAGE + B_STAGE) * (int)sizeof(float);
    static constexpr int A_COPIES = BM_ * BK_ / Tile::THREADS;      // 4-byte copies of A per thread per tile
    static constexpr int B_COPIES = BK_ * BN_ / 4 / Tile::THREADS;  // 16-byte copies of B per thread per tile
    static_assert(BK_ % 8 == 0, "A is copied 8 k wide");
    static_assert(A_COPIES * Tile::THREADS == BM_ * BK_ && B_COPIES * Tile::THREADS * 4 == BK_ * BN_,
                  "every thread copies the same share of each tile");
    static_assert(STAGES >= 2, "one stage to compute with, at least one being filled");
};

// One stage of shared memory: A's tile transposed (k, then m), B's as it is (k, then column).
template <class S>
struct AsyncStage {
    float (*As)[S::BM + S::A_PAD];
    float (*Bs)[S::BN];
};

template <class S>
__device__ __forceinline__ AsyncStage<S> async_stage_at(float *smem, int s)
{
    AsyncStage<S> stage;
    stage.As = reinterpret_cast<float (*)[S::BM + S::A_PAD]>(smem + s * S::A_STAGE);
    stage.Bs = reinterpret_cast<float (*)[S::BN]>(smem + S::STAGES * S::A_STAGE + s * S::B_STAGE);
    return stage;
}

// Starts this thread's copies of the tile of A at (block row bm, column k0) and of B at (row k0,
// block column bn) into one stage, and stores zeros where the tile hangs over the matrix.
// VEC4: n % 4 == 0, B in 16-byte copies; otherwise one float at a time. EDGE: the tile may hang
// over the matrix; when the caller knows it does not, the bounds tests are left out.
template <class S, bool VEC4, bool EDGE>
__device__ __forceinline__ void async_copy_tile(const float *A, const float *B, int n, int bm, int bn, int k0,
                                          AsyncStage<S> stage)
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

// async_copy_tile without the bounds tests when the whole tile lies inside the matrix (every tile but
// the edge ones), with them otherwise.
template <class S, bool VEC4>
__device__ __forceinline__ void async_copy_tile_any(const float *A, const float *B, int n, int bm, int bn, int k0,
                                              AsyncStage<S> stage)
{
    if (bm + S::BM <= n && bn + S::BN <= n && k0 + S::BK <= n)
        async_copy_tile<S, VEC4, false>(A, B, n, bm, bn, k0, stage);
    else
        async_copy_tile<S, VEC4, true>(A, B, n, bm, bn, k0, stage);
}

// The BK steps of one tile, from one stage, with matmul.c's load_fragments and multiply_add:
// fast_kernel's k loop, written out again because a function shared by both changed the
// reference's register assignment (its SASS, which the measured figures are of).
template <class S>
__device__ __forceinline__ void async_multiply_tile(float (&acc)[S::TM][S::TN], AsyncStage<S> stage, int m0, int n0)
{
    if (S::FRAG_PIPE) {
        // The next step's values are loaded before this step's multiply-adds, so the loads'
        // latency hides behind them (two sets of fragment registers).
        float a[2][S::TM], b[2][S::TN];
        load_fragments<S>(stage.As, stage.Bs, 0, m0, n0, a[0], b[0]);
#pragma unroll
        for (int k = 0; k < S::BK; ++k) {
            if (k + 1 < S::BK)
                load_fragments<S>(stage.As, stage.Bs, k + 1, m0, n0, a[(k + 1) & 1], b[(k + 1) & 1]);
            multiply_add<S>(acc, a[k & 1], b[k & 1]);
        }
    } else {
#pragma unroll
        for (int k = 0; k < S::BK; ++k) {
            float a[S::TM], b[S::TN];
            load_fragments<S>(stage.As, stage.Bs, k, m0, n0, a, b);
            multiply_add<S>(acc, a, b);
        }
    }
}

// The thread's patch of C before the first tile (rows_kernel.cuh's too).
template <class S>
__device__ __forceinline__ void zero_patch(float (&acc)[S::TM][S::TN])
{
#pragma unroll
    for (int i = 0; i < S::TM; ++i)
#pragma unroll
        for (int j = 0; j < S::TN; ++j)
            acc[i][j] = 0.0f;
}

template <class S, bool VEC4>
__global__ void __launch_bounds__(S::THREADS, S::MIN_BLOCKS)
async_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    extern __shared__ float4 async_smem[];  // STAGES stages (AsyncStage, async_stage_at), sized at launch
    float *smem = reinterpret_cast<float *>(async_smem);

    const int2 origin = block_origin<S>();  // matmul.c's launch order
    const int bm = origin.x, bn = origin.y;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    // The first row and column of this thread's first 4 × 4 sub-patch, within the block tile.
    const int m0 = (warp / (S::BN / S::WN)) * S::WM + (lane / S::LX) * 4;
    const int n0 = (warp % (S::BN / S::WN)) * S::WN + (lane % S::LX) * 4;

    float acc[S::TM][S::TN];
    zero_patch<S>(acc);

    // Tiles 0 .. STAGES - 2 in flight, one commit group each (empty past the last tile, so that
    // "all but the newest STAGES - 2 groups have landed" always means "tile t has").
    const int tiles = (n + S::BK - 1) / S::BK;
#pragma unroll
    for (int s = 0; s < S::STAGES - 1; ++s) {
        if (s < tiles)
            async_copy_tile_any<S, VEC4>(A, B, n, bm, bn, s * S::BK, async_stage_at<S>(smem, s));
        __pipeline_commit();
    }
    __pipeline_wait_prior(S::STAGES - 2);
    __syncthreads();  // tile 0 is in stage 0: this thread's copies landed, and every other thread's

    int computing = 0, filling = S::STAGES - 1;
    for (int t = 0; t < tiles; ++t) {
        // Tile t + STAGES - 1 goes into the stage tile t - 1 was in: every thread finished
        // reading that one before the barrier that ended the previous iteration.
        if (t + S::STAGES - 1 < tiles)
            async_copy_tile_any<S, VEC4>(A, B, n, bm, bn, (t + S::STAGES - 1) * S::BK, async_stage_at<S>(smem, filling));
        __pipeline_commit();
        async_multiply_tile<S>(acc, async_stage_at<S>(smem, computing), m0, n0);
        __pipeline_wait_prior(S::STAGES - 2);
        __syncthreads();  // tile t + 1 is in place, and no thread reads tile t's stage any more
        computing = computing + 1 == S::STAGES ? 0 : computing + 1;
        filling = filling + 1 == S::STAGES ? 0 : filling + 1;
    }

    store_patch<S, VEC4>(C, n, bm + m0, bn + n0, acc);
}

// A kernel of tune_fast.cu's candidates: C = A·B, all three n × n.
typedef void (*ProductKernel)(const float *, const float *, float *, int);

// Launches a kernel whose stages are dynamic shared memory (async_kernel below, rows_kernel of
// rows_kernel.cuh) on an n × n product: VEC4 where n % 4 == 0, SCALAR otherwise. Past 48 KiB a
// kernel must ask for its shared memory (cudaFuncSetAttribute, once per kernel).
template <class S, ProductKernel SCALAR, ProductKernel VEC4>
static void launch_with_stages(const float *A, const float *B, float *C, int n)
{
    static bool raised[2] = {false, false};  // SCALAR's, VEC4's
    bool vec4 = n % 4 == 0;
    ProductKernel kernel = vec4 ? VEC4 : SCALAR;
    if (S::SMEM_BYTES > 48 * 1024 && !raised[vec4]) {
        CUDA_CHECK(cudaFuncSetAttribute((const void *)kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        S::SMEM_BYTES));
        raised[vec4] = true;
    }
    dim3 grid(blocks_to_cover(n, S::BN), blocks_to_cover(n, S::BM));
    kernel<<<grid, S::THREADS, S::SMEM_BYTES>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

template <class S>
static void launch_async(const float *A, const float *B, float *C, int n)
{
    launch_with_stages<S, async_kernel<S, false>, async_kernel<S, true>>(A, B, C, n);
}
