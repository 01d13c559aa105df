// Steps 9 to 12 of labs/matmul/NOTES.md: the fast kernel with A's tile kept as A's rows in
// shared memory (As[m][k], not transposed), so that A, like B, moves 16 bytes at a time: one
// LDG.128 + STS.128 a float4 (register-staged) or one 16-byte cp.async, where the reference
// (solutions/matmul/matmul.c) stores each float4 of A as 4 scalar transposing stores and the
// async kernel of steps 4 to 8 (scripts/async_kernel.cuh) copies A 4 bytes at a time.
// Measured on an H100 it lost to the reference, every shape and pipeline of it: 0.73 to 0.84 of
// cuBLAS at n = 4096 against 0.91, with loops as short as the reference's (NOTES.md, steps 9 to
// 12, and scripts/ffma_banks.py for what the SASS suggests instead).
//
// How it works.
//  - Reading A along k: at each group of 4 steps k, a thread reads one float4 (4 consecutive k)
//    of each of its TM rows, then for each of the 4 steps one row of B's tile as before. The
//    same 4 LDS.128 per 64 multiply-adds as the reference (8 × 8 a thread), but TM × 4
//    registers of A at once instead of TM.
//  - A thread's rows are interleaved: lane row ly of a warp takes rows ly, ly + LY, ly + 2 LY,
//    ... of the warp's piece, so that at each read the LY lane rows read LY consecutive rows of
//    As. With a row pitch of BK + 4 floats those land in different banks (LY = 4 or 8, BK = 8
//    or 16): one wavefront, the rest broadcasts.
//  - Each operand comes in through registers (A_ASYNC / B_ASYNC false: loaded at the top of an
//    iteration, stored into shared memory after its arithmetic, as the reference does) or by
//    cp.async (true). STAGES shared-memory stages; tile t + STAGES - 1 is started while tile t
//    is used; one __syncthreads per tile.
//  - Source pointers are computed once and advanced by one tile per iteration. Past the edge of
//    the matrix a copy reads nothing and writes zeros (cp.async's zero fill, or a zero float4);
//    its source is then the matrix's first element, a valid address.
//  - n % 4 != 0 (VEC4 false): rows are not 16-byte aligned; every float is its own 4-byte copy
//    or load, with its own bound.
#pragma once

#include <cuda_pipeline.h>

#include "async_kernel.cuh"  // zero_patch, launch_with_stages

// The solution's TileShape (the block, warp and thread tiles, MIN_BLOCKS; its A_LOADS and
// B_LOADS are the float4s of A and B a thread moves a tile), plus the stages and how each operand
// comes in.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int LY_, int LX_, int STAGES_, int MIN_BLOCKS_, bool A_ASYNC_,
          bool B_ASYNC_>
struct RowsShape : TileShape<BM_, BN_, BK_, WM_, WN_, LY_, LX_, MIN_BLOCKS_> {
    static constexpr int STAGES = STAGES_;
    static constexpr bool A_ASYNC = A_ASYNC_, B_ASYNC = B_ASYNC_;
    static constexpr int A_PITCH = BK_ + 4;  // floats: LY consecutive rows in different banks
    static constexpr int A_STAGE = BM_ * A_PITCH, B_STAGE = BK_ * BN_;  // floats
    static constexpr int SMEM_BYTES = STAGES * (A_STAGE + B_STAGE) * (int)sizeof(float);
    static_assert(STAGES >= 2, "one stage to compute with, at least one being filled");
    static_assert(A_ASYNC || B_ASYNC || STAGES == 2, "register staging alone needs 2 stages");
};

template <class S>
struct RowsStage {
    float *As;  // [BM][A_PITCH]
    float *Bs;  // [BK][BN]
};

template <class S>
__device__ __forceinline__ RowsStage<S> rows_stage_at(float *smem, int s)
{
    return {smem + s * S::A_STAGE, smem + S::STAGES * S::A_STAGE + s * S::B_STAGE};
}

// One float4's worth of a tile: its source (the matrix's first element when out of bounds), its
// place in shared memory, and how many of its 4 floats lie inside the matrix (0 .. 4).
struct VecCopy {
    const float *src;
    int inside;
};

// The bounds of one float4 starting at (row, col) of an n × n matrix. VEC4: n % 4 == 0, so the
// float4 is wholly in or wholly out.
template <bool VEC4>
__device__ __forceinline__ int floats_inside(int row, int col, int n)
{
    if (row >= n || col >= n)
        return 0;
    return VEC4 ? 4 : min(4, n - col);
}

// Starts the copy of one float4 into shared memory (cp.async), zeros where it hangs over.
template <bool VEC4>
__device__ __forceinline__ void copy_async(float *dst, const float *src, const float *base, int inside)
{
    if (VEC4) {
        __pipeline_memcpy_async(dst, inside ? src : base, 16, inside ? 0 : 16);
    } else {
#pragma unroll
        for (int c = 0; c < 4; ++c)
            __pipeline_memcpy_async(dst + c, c < inside ? src + c : base, 4, c < inside ? 0 : 4);
    }
}

template <bool VEC4>
__device__ __forceinline__ float4 load_vec(const float *src, int inside)
{
    if (VEC4)
        return inside ? *reinterpret_cast<const float4 *>(src) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    return make_float4(inside > 0 ? src[0] : 0.0f, inside > 1 ? src[1] : 0.0f, inside > 2 ? src[2] : 0.0f,
                       inside > 3 ? src[3] : 0.0f);
}

// This thread's share of the tiles: where its float4s of A and B come from (advanced by one
// tile at a time) and where they go in a stage.
template <class S>
struct RowsCopier {
    const float *a_src[S::A_LOADS];
    const float *b_src[S::B_LOADS];
    int a_row[S::A_LOADS], a_col[S::A_LOADS];  // in the matrix, for the bounds; a_col moves by BK
    int b_row[S::B_LOADS], b_col[S::B_LOADS];  // b_row moves by BK
    int a_dst[S::A_LOADS], b_dst[S::B_LOADS];  // floats into a stage's As and Bs

    __device__ __forceinline__ RowsCopier(const float *A, const float *B, int n, int bm, int bn)
    {
#pragma unroll
        for (int i = 0; i < S::A_LOADS; ++i) {
            int v = threadIdx.x + i * S::THREADS;
            int m = v / (S::BK / 4), k = (v % (S::BK / 4)) * 4;
            a_row[i] = bm + m;
            a_col[i] = k;
            a_src[i] = A + (size_t)a_row[i] * n + k;
            a_dst[i] = m * S::A_PITCH + k;
        }
#pragma unroll
        for (int i = 0; i < S::B_LOADS; ++i) {
            int v = threadIdx.x + i * S::THREADS;
            int k = v / (S::BN / 4), c = (v % (S::BN / 4)) * 4;
            b_row[i] = k;
            b_col[i] = bn + c;
            b_src[i] = B + (size_t)k * n + b_col[i];
            b_dst[i] = k * S::BN + c;
        }
    }

    __device__ __forceinline__ void advance(int n)
    {
#pragma unroll
        for (int i = 0; i < S::A_LOADS; ++i) {
            a_src[i] += S::BK;
            a_col[i] += S::BK;
        }
#pragma unroll
        for (int i = 0; i < S::B_LOADS; ++i) {
            b_src[i] += (size_t)S::BK * n;
            b_row[i] += S::BK;
        }
    }
};

// The register-staged operands of one tile, between their loads and their stores.
template <class S>
struct RowsStaged {
    float4 a[S::A_ASYNC ? 1 : S::A_LOADS];
    float4 b[S::B_ASYNC ? 1 : S::B_LOADS];
};

// Starts the cp.async copies of the current tile (the async operands) into stage `to`.
template <class S, bool VEC4>
__device__ __forceinline__ void rows_copy_async(const RowsCopier<S> &cp, const float *A, const float *B, int n,
                                                RowsStage<S> to)
{
    if (S::A_ASYNC) {
#pragma unroll
        for (int i = 0; i < S::A_LOADS; ++i)
            copy_async<VEC4>(to.As + cp.a_dst[i], cp.a_src[i], A, floats_inside<VEC4>(cp.a_row[i], cp.a_col[i], n));
    }
    if (S::B_ASYNC) {
#pragma unroll
        for (int i = 0; i < S::B_LOADS; ++i)
            copy_async<VEC4>(to.Bs + cp.b_dst[i], cp.b_src[i], B, floats_inside<VEC4>(cp.b_row[i], cp.b_col[i], n));
    }
}

// Loads the current tile's register-staged operands.
template <class S, bool VEC4>
__device__ __forceinline__ void rows_load_staged(const RowsCopier<S> &cp, int n, RowsStaged<S> &r)
{
    if (!S::A_ASYNC) {
#pragma unroll
        for (int i = 0; i < S::A_LOADS; ++i)
            r.a[i] = load_vec<VEC4>(cp.a_src[i], floats_inside<VEC4>(cp.a_row[i], cp.a_col[i], n));
    }
    if (!S::B_ASYNC) {
#pragma unroll
        for (int i = 0; i < S::B_LOADS; ++i)
            r.b[i] = load_vec<VEC4>(cp.b_src[i], floats_inside<VEC4>(cp.b_row[i], cp.b_col[i], n));
    }
}

template <class S>
__device__ __forceinline__ void rows_store_staged(const RowsCopier<S> &cp, const RowsStaged<S> &r, RowsStage<S> to)
{
    if (!S::A_ASYNC) {
#pragma unroll
        for (int i = 0; i < S::A_LOADS; ++i)
            *reinterpret_cast<float4 *>(to.As + cp.a_dst[i]) = r.a[i];
    }
    if (!S::B_ASYNC) {
#pragma unroll
        for (int i = 0; i < S::B_LOADS; ++i)
            *reinterpret_cast<float4 *>(to.Bs + cp.b_dst[i]) = r.b[i];
    }
}

// The BK steps of one tile: per group of 4 steps, a float4 of each of the thread's TM rows of A,
// then per step its TN values of B and TM × TN multiply-adds. a_row0: offset of the thread's
// first row in As (its others follow LY rows apart); b_col0: its first column in Bs (its
// float4s follow LX × 4 columns apart).
template <class S>
__device__ __forceinline__ void rows_multiply_tile(float (&acc)[S::TM][S::TN], RowsStage<S> st, int a_row0, int b_col0)
{
#pragma unroll
    for (int kg = 0; kg < S::BK; kg += 4) {
        float4 a[S::TM];
#pragma unroll
        for (int i = 0; i < S::TM; ++i)
            a[i] = *reinterpret_cast<const float4 *>(st.As + (a_row0 + i * S::LY) * S::A_PITCH + kg);
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
            float b[S::TN];
#pragma unroll
            for (int j = 0; j < S::TN / 4; ++j) {
                float4 v = *reinterpret_cast<const float4 *>(st.Bs + (kg + kk) * S::BN + b_col0 + j * S::LX * 4);
                b[4 * j + 0] = v.x; b[4 * j + 1] = v.y; b[4 * j + 2] = v.z; b[4 * j + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < S::TM; ++i) {
                float ai = kk == 0 ? a[i].x : kk == 1 ? a[i].y : kk == 2 ? a[i].z : a[i].w;
#pragma unroll
                for (int j = 0; j < S::TN; ++j)
                    acc[i][j] += ai * b[j];
            }
        }
    }
}

template <class S, bool VEC4>
__global__ void __launch_bounds__(S::THREADS, S::MIN_BLOCKS)
rows_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    extern __shared__ float4 rows_smem[];  // STAGES stages (rows_stage_at), sized at launch
    float *smem = reinterpret_cast<float *>(rows_smem);

    const int bm = blockIdx.y * S::BM, bn = blockIdx.x * S::BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    // This thread's first row and column within the block tile (rows interleaved LY apart).
    const int a_row0 = (warp / (S::BN / S::WN)) * S::WM + lane / S::LX;
    const int b_col0 = (warp % (S::BN / S::WN)) * S::WN + (lane % S::LX) * 4;

    float acc[S::TM][S::TN];
    zero_patch<S>(acc);

    RowsCopier<S> cp(A, B, n, bm, bn);
    RowsStaged<S> staged;
    const int tiles = (n + S::BK - 1) / S::BK;
    // Tiles 0 .. STAGES - 2 into stages 0 .. STAGES - 2, one commit group each (empty past the
    // last tile, so that "all but the newest STAGES - 2 groups have landed" means "tile t has").
#pragma unroll
    for (int s = 0; s < S::STAGES - 1; ++s) {
        if (s < tiles) {
            rows_copy_async<S, VEC4>(cp, A, B, n, rows_stage_at<S>(smem, s));
            rows_load_staged<S, VEC4>(cp, n, staged);
            rows_store_staged<S>(cp, staged, rows_stage_at<S>(smem, s));
            cp.advance(n);
        }
        __pipeline_commit();
    }
    __pipeline_wait_prior(S::STAGES - 2);
    __syncthreads();

    int computing = 0, filling = S::STAGES - 1;
    for (int t = 0; t < tiles; ++t) {
        // Tile t + STAGES - 1 goes into the stage tile t - 1 was in: every thread finished
        // reading it before the barrier that ended the previous iteration. The register-staged
        // loads are unconditional (past the last tile they read out of bounds nothing: zeros),
        // so that the compiler keeps them here, ahead of the arithmetic.
        const RowsStage<S> fill = rows_stage_at<S>(smem, filling);
        if (t + S::STAGES - 1 < tiles)
            rows_copy_async<S, VEC4>(cp, A, B, n, fill);
        __pipeline_commit();
        rows_load_staged<S, VEC4>(cp, n, staged);
        cp.advance(n);
        rows_multiply_tile<S>(acc, rows_stage_at<S>(smem, computing), a_row0, b_col0);
        rows_store_staged<S>(cp, staged, fill);
        __pipeline_wait_prior(S::STAGES - 2);
        __syncthreads();  // tile t + 1 is complete, and nobody reads tile t's stage any more
        computing = computing + 1 == S::STAGES ? 0 : computing + 1;
        filling = filling + 1 == S::STAGES ? 0 : filling + 1;
    }

    // Its rows are interleaved (a_row0 + i * LY), unlike fast_kernel's 4 x 4 sub-patches.
#pragma unroll
    for (int i = 0; i < S::TM; ++i)
        store_row<S, VEC4>(C, n, bm + a_row0 + i * S::LY, bn + b_col0, acc[i]);
}

template <class S>
static void launch_rows(const float *A, const float *B, float *C, int n)
{
    launch_with_stages<S, rows_kernel<S, false>, rows_kernel<S, true>>(A, B, C, n);
}
