#pragma once

// The first tensor kernel of the reference solution (issue 36), through nvcuda::wmma: kept for
// tune_tensor.cu's comparison with the mma.sync kernel that matmul_tensor launches now
// (labs/matmul/NOTES.md, "The tensor kernel"). It shares the solution's tile copies
// (copy_tensor_tiles, start_tensor_tile), block order (block_origin) and launch checks
// (prepare_tensor_kernels_once): include matmul.c first.
//
// The block computes a BM × BN tile of C; each warp a WM × WN piece of it as 16 × 16
// accumulator fragments. The tiles of A and B come by cp.async (__pipeline_memcpy_async)
// STAGES deep, so that the copies of the next tiles overlap the tensor-core work. Rows of the
// shared tiles are padded (A by 4 floats, B by 8) so that a warp's fragment loads fall in 32
// different banks. The result goes through shared memory to C, so that the edges of the matrix
// are stored element by element with a bounds check.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, int PASSES_, bool FLUSH_, int GROUP_ = 8>
struct TensorShape {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_;
    static constexpr int STAGES = STAGES_;
    static constexpr int PASSES = PASSES_;  // 3: 3xTF32 (FP32 accuracy); 1: TF32 alone
    static constexpr bool FLUSH = FLUSH_;
    static constexpr int GROUP = GROUP_;    // block rows per group in launch order (block_origin)
    static constexpr int FM = WM / 16, FN = WN / 16;  // a warp's accumulator fragments
    static constexpr int THREADS = 32 * (BM / WM) * (BN / WN);
    static constexpr int A_STRIDE = BK + 4, B_STRIDE = BN + 8, C_STRIDE = BN + 4;  // floats a row
    static constexpr int A_FLOATS = BM * A_STRIDE, B_FLOATS = BK * B_STRIDE;     // one stage
    static constexpr int PIPE_BYTES = STAGES * (A_FLOATS + B_FLOATS) * 4;
    static constexpr int C_BYTES = BM * C_STRIDE * 4;
    static constexpr int SHARED_BYTES = PIPE_BYTES > C_BYTES ? PIPE_BYTES : C_BYTES;
    static_assert(PASSES == 1 || PASSES == 3, "3xTF32 or 1xTF32");
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 16 == 0 && BK % 8 == 0,
                  "warps tile the block with 16 x 16 x 8 fragments");
    static_assert(BM * BK % (4 * THREADS) == 0 && BK * BN % (4 * THREADS) == 0,
                  "every thread copies the same number of 16-byte chunks");
    // wmma needs 32-byte aligned fragment pointers: every stage and fragment offset keeps it.
    static_assert(A_FLOATS % 8 == 0 && B_FLOATS % 8 == 0 && (16 * A_STRIDE) % 8 == 0 && (8 * B_STRIDE) % 8 == 0,
                  "shared tiles keep fragments 32-byte aligned");
};

#ifdef TENSOR_CORES_TF32
using TensorA = wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major>;
using TensorB = wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major>;
using TensorAcc = wmma::fragment<wmma::accumulator, 16, 16, 8, float>;
#endif

#ifdef TENSOR_CORES_TF32
// x = big + small, both TF32 (small: what TF32 rounding dropped from x, itself rounded).
template <class Fragment>
__device__ __forceinline__ void split_tf32(const Fragment &x, Fragment &big, Fragment &small)
{
#pragma unroll
    for (int e = 0; e < x.num_elements; ++e) {
        float high = wmma::__float_to_tf32(x.x[e]);
        big.x[e] = high;
        small.x[e] = wmma::__float_to_tf32(x.x[e] - high);
    }
}

template <class Fragment>
__device__ __forceinline__ void round_tf32(Fragment &x)
{
#pragma unroll
    for (int e = 0; e < x.num_elements; ++e)
        x.x[e] = wmma::__float_to_tf32(x.x[e]);
}

// A loaded fragment as the kernel multiplies it: split into big and small TF32 parts (3xTF32),
// or rounded once to TF32 (1xTF32, where `small` is not used).
template <int PASSES, class Fragment>
__device__ __forceinline__ void take_operand(Fragment &loaded, Fragment &big, Fragment &small)
{
    if constexpr (PASSES == 3) {
        split_tf32(loaded, big, small);
    } else {
        round_tf32(loaded);
        big = loaded;
    }
}

// One k tile (one shared-memory stage) into the warp's accumulators.
template <class S>
__device__ __forceinline__ void multiply_tensor_tile(const float *As, const float *Bs, int wm, int wn,
                                                     TensorAcc (&acc)[S::FM][S::FN])
{
#pragma unroll
    for (int kk = 0; kk < S::BK; kk += 8) {
        TensorA a_big[S::FM], a_small[S::PASSES == 3 ? S::FM : 1];
        TensorB b_big[S::FN], b_small[S::PASSES == 3 ? S::FN : 1];
#pragma unroll
        for (int i = 0; i < S::FM; ++i) {
            TensorA loaded;
            wmma::load_matrix_sync(loaded, As + (wm + 16 * i) * S::A_STRIDE + kk, S::A_STRIDE);
            take_operand<S::PASSES>(loaded, a_big[i], a_small[i]);
        }
#pragma unroll
        for (int j = 0; j < S::FN; ++j) {
            TensorB loaded;
            wmma::load_matrix_sync(loaded, Bs + kk * S::B_STRIDE + wn + 16 * j, S::B_STRIDE);
            take_operand<S::PASSES>(loaded, b_big[j], b_small[j]);
        }
#pragma unroll
        for (int i = 0; i < S::FM; ++i)
#pragma unroll
            for (int j = 0; j < S::FN; ++j) {
                if constexpr (S::PASSES == 3) {
                    wmma::mma_sync(acc[i][j], a_small[i], b_big[j], acc[i][j]);
                    wmma::mma_sync(acc[i][j], a_big[i], b_small[j], acc[i][j]);
                }
                wmma::mma_sync(acc[i][j], a_big[i], b_big[j], acc[i][j]);
            }
    }
}

#endif  // TENSOR_CORES_TF32

template <class S, bool VEC4>
__global__ void __launch_bounds__(S::THREADS)
tensor_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int n)
{
#ifndef TENSOR_CORES_TF32
    __trap();  // launch_tensor refuses such a GPU before launching
#else
    extern __shared__ __align__(128) float tensor_shared[];
    float *As = tensor_shared, *Bs = tensor_shared + S::STAGES * S::A_FLOATS;

    const int2 origin = block_origin<S>();
    const int bm = origin.x, bn = origin.y;
    const int warp = threadIdx.x / 32;
    const int wm = (warp / (S::BN / S::WN)) * S::WM, wn = (warp % (S::BN / S::WN)) * S::WN;

    TensorAcc acc[S::FM][S::FN], part[S::FLUSH ? S::FM : 1][S::FLUSH ? S::FN : 1];
#pragma unroll
    for (int i = 0; i < S::FM; ++i)
#pragma unroll
        for (int j = 0; j < S::FN; ++j)
            wmma::fill_fragment(acc[i][j], 0.0f);

    const int tiles = (n + S::BK - 1) / S::BK;
    for (int t = 0; t < S::STAGES - 1; ++t)  // the first STAGES - 1 tiles in flight (as mma_kernel)
        start_tensor_tile<S, VEC4>(A, B, n, bm, bn, t, tiles, As, Bs);
    for (int t = 0; t < tiles; ++t) {
        __pipeline_wait_prior(S::STAGES - 2);
        __syncthreads();  // tile t in every thread's view; every warp done with tile t - 1's stage
        start_tensor_tile<S, VEC4>(A, B, n, bm, bn, t + S::STAGES - 1, tiles, As, Bs);
        const int stage = t % S::STAGES;
        if constexpr (S::FLUSH) {
#pragma unroll
            for (int i = 0; i < S::FM; ++i)
#pragma unroll
                for (int j = 0; j < S::FN; ++j)
                    wmma::fill_fragment(part[i][j], 0.0f);
            multiply_tensor_tile<S>(As + stage * S::A_FLOATS, Bs + stage * S::B_FLOATS, wm, wn, part);
#pragma unroll
            for (int i = 0; i < S::FM; ++i)
#pragma unroll
                for (int j = 0; j < S::FN; ++j)
#pragma unroll
                    for (int e = 0; e < part[i][j].num_elements; ++e)
                        acc[i][j].x[e] += part[i][j].x[e];
        } else {
            multiply_tensor_tile<S>(As + stage * S::A_FLOATS, Bs + stage * S::B_FLOATS, wm, wn, acc);
        }
    }
    __pipeline_wait_prior(0);
    __syncthreads();  // every warp is done with the stages: they become the tile of C

    float *Cs = tensor_shared;
#pragma unroll
    for (int i = 0; i < S::FM; ++i)
#pragma unroll
        for (int j = 0; j < S::FN; ++j)
            wmma::store_matrix_sync(Cs + (wm + 16 * i) * S::C_STRIDE + wn + 16 * j, acc[i][j], S::C_STRIDE,
                                    wmma::mem_row_major);
    __syncthreads();
    // A warp stores whole rows: 16-byte stores inside the matrix when n % 4 == 0.
    for (int v = threadIdx.x; v < S::BM * S::BN / 4; v += S::THREADS) {
        int m = v / (S::BN / 4), c = (v % (S::BN / 4)) * 4;
        int row = bm + m, col = bn + c;
        if (row >= n)
            continue;
        const float *src = Cs + m * S::C_STRIDE + c;
        float *dst = C + (size_t)row * n + col;
        if (VEC4 && col < n) {
            *reinterpret_cast<float4 *>(dst) = *reinterpret_cast<const float4 *>(src);
        } else if (!VEC4) {
            for (int e = 0; e < 4 && col + e < n; ++e)
                dst[e] = src[e];
        }
    }
#endif
}

template <class S>
static void launch_tensor(const float *A, const float *B, float *C, int n)
{
    prepare_tensor_kernels_once<S>(tensor_kernel<S, true>, tensor_kernel<S, false>);
    dim3 grid(blocks_to_cover(n, S::BN), blocks_to_cover(n, S::BM));
    if (n % 4 == 0)
        tensor_kernel<S, true><<<grid, S::THREADS, S::SHARED_BYTES>>>(A, B, C, n);
    else
        tensor_kernel<S, false><<<grid, S::THREADS, S::SHARED_BYTES>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

// The shapes the first tuning run chose, on an H200.
using TensorShape3 = TensorShape<128, 128, 32, 64, 32, 2, 3, true>;
using TensorShape1 = TensorShape<128, 256, 32, 64, 64, 3, 1, false>;
