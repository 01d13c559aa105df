// The matmul reference's fast kernel as it was before its loads became asynchronous copies
// (labs/matmul/NOTES.md, steps 1 to 3): each thread loads its share of the next tile into
// registers while the block computes, and stores it into the other of two shared-memory stages
// afterwards. Kept for labs/matmul/scripts/tune_fast.cu, which times it beside the current
// kernel; the same code as solutions/matmul/matmul.c had, its names prefixed with staged_.
#pragma once

template <int BM_, int BN_, int BK_, int WM_, int WN_, int LY_, int LX_, int MIN_BLOCKS_ = 1, bool FRAG_PIPE_ = false>
struct StagedShape {
    static constexpr int BM = BM_, BN = BN_, BK = BK_;  // block tile of C, and its k step
    static constexpr int WM = WM_, WN = WN_;             // one warp's piece of it
    static constexpr int LY = LY_, LX = LX_;             // a warp's lanes, LY × LX = 32
    static constexpr int TM = WM / LY, TN = WN / LX;     // one thread's patch of C
    static constexpr int THREADS = 32 * (BM / WM) * (BN / WN);
    static constexpr int MIN_BLOCKS = MIN_BLOCKS_;  // blocks per SM: caps registers per thread
    static constexpr bool FRAG_PIPE = FRAG_PIPE_;   // load step k+1's values before step k's multiply-adds
    static constexpr int A_PAD = 4;
    static constexpr int A_LOADS = BM * BK / 4 / THREADS;  // float4s of A per thread per tile
    static constexpr int B_LOADS = BK * BN / 4 / THREADS;
    static_assert(LY * LX == 32, "a warp is 32 lanes");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "patches are made of 4 × 4 sub-patches");
    static_assert(BM % WM == 0 && BN % WN == 0 && BK % 4 == 0, "warps tile the block");
    static_assert(A_LOADS * THREADS * 4 == BM * BK && B_LOADS * THREADS * 4 == BK * BN,
                  "every thread loads the same number of float4s");
};

// Loads this thread's float4s of the tile of A at (block row bm, column k0) and of B at
// (row k0, block column bn). VEC4: 16-byte loads, n % 4 == 0; otherwise one float at a time.
template <class S, bool VEC4>
__device__ __forceinline__ void staged_load_tiles(const float *A, const float *B, int n, int bm, int bn, int k0,
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
__device__ __forceinline__ void staged_store_tiles(float (*As)[S::BM + S::A_PAD], float (*Bs)[S::BN],
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
__device__ __forceinline__ void staged_load_fragments(const float (*As)[S::BM + S::A_PAD], const float (*Bs)[S::BN], int k,
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
__device__ __forceinline__ void staged_multiply_add(float (&acc)[S::TM][S::TN], const float (&a)[S::TM], const float (&b)[S::TN])
{
#pragma unroll
    for (int i = 0; i < S::TM; ++i)
#pragma unroll
        for (int j = 0; j < S::TN; ++j)
            acc[i][j] += a[i] * b[j];
}

template <class S, bool VEC4>
__global__ void __launch_bounds__(S::THREADS, S::MIN_BLOCKS)
staged_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
    __shared__ __align__(16) float As[2][S::BK][S::BM + S::A_PAD];
    __shared__ __align__(16) float Bs[2][S::BK][S::BN];

    const int bm = blockIdx.y * S::BM, bn = blockIdx.x * S::BN;
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
    staged_load_tiles<S, VEC4>(A, B, n, bm, bn, 0, a_next, b_next);
    staged_store_tiles<S>(As[0], Bs[0], a_next, b_next);
    __syncthreads();

    const int tiles = (n + S::BK - 1) / S::BK;
    for (int t = 0; t < tiles; ++t) {
        const int stage = t & 1;
        // The next tile's loads, in flight while we compute; unconditional (the last iteration
        // reloads its own tile, harmlessly), else the compiler moves them into the `if` of the
        // store below, after the arithmetic, and waits out their latency there.
        staged_load_tiles<S, VEC4>(A, B, n, bm, bn, min(t + 1, tiles - 1) * S::BK, a_next, b_next);
        if (S::FRAG_PIPE) {
            float a[2][S::TM], b[2][S::TN];
            staged_load_fragments<S>(As[stage], Bs[stage], 0, m0, n0, a[0], b[0]);
#pragma unroll
            for (int k = 0; k < S::BK; ++k) {
                if (k + 1 < S::BK)
                    staged_load_fragments<S>(As[stage], Bs[stage], k + 1, m0, n0, a[(k + 1) & 1], b[(k + 1) & 1]);
                staged_multiply_add<S>(acc, a[k & 1], b[k & 1]);
            }
        } else {
#pragma unroll
            for (int k = 0; k < S::BK; ++k) {
                float a[S::TM], b[S::TN];
                staged_load_fragments<S>(As[stage], Bs[stage], k, m0, n0, a, b);
                staged_multiply_add<S>(acc, a, b);
            }
        }
        // The other stage: its last reader was iteration t - 1, which ended at a barrier.
        staged_store_tiles<S>(As[stage ^ 1], Bs[stage ^ 1], a_next, b_next);
        __syncthreads();
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

template <class S>
static void launch_staged(const float *A, const float *B, float *C, int n)
{
    dim3 grid(blocks_to_cover(n, S::BN), blocks_to_cover(n, S::BM));
    if (n % 4 == 0)
        staged_kernel<S, true><<<grid, S::THREADS>>>(A, B, C, n);
    else
        staged_kernel<S, false><<<grid, S::THREADS>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}
