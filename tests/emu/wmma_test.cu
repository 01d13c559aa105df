// The warp matrix functions (include/mma.h): every fragment type CUDA offers, loaded in both
// memory layouts, multiplied and stored, against a product computed here; TF32 rounding and
// the operands' truncation; and the accumulator's documented (mma.sync) layout.
#include <mma.h>

#include <cmath>
#include <cstring>

#include "emu_test_util.h"
#include "exit_codes.h"

using namespace nvcuda;

namespace {

// One warp: D = A·B + C for an M x K A and a K x N B. a_row / b_row: the fragments' layouts
// (row_major or col_major) and so how A and B lie in memory; C is read row-major, D written
// column-major when d_col_major (so both memory layouts of the accumulator are covered).
template <int M, int N, int K, class TAB, class TC, class LA, class LB, class S>
__global__ void one_product(const S *A, const S *B, const typename wmma::fragment<wmma::accumulator, M, N, K, TC>::element_type *C,
                            typename wmma::fragment<wmma::accumulator, M, N, K, TC>::element_type *D, bool d_col_major)
{
    wmma::fragment<wmma::matrix_a, M, N, K, TAB, LA> a;
    wmma::fragment<wmma::matrix_b, M, N, K, TAB, LB> b;
    wmma::fragment<wmma::accumulator, M, N, K, TC> c;
    constexpr bool a_row = std::is_same<LA, wmma::row_major>::value, b_row = std::is_same<LB, wmma::row_major>::value;
    wmma::load_matrix_sync(a, A, a_row ? K : M);
    wmma::load_matrix_sync(b, B, b_row ? N : K);
    wmma::load_matrix_sync(c, C, N, wmma::mem_row_major);
    wmma::mma_sync(c, a, b, c);  // d aliases c, as kernels usually write it
    wmma::store_matrix_sync(D, c, d_col_major ? M : N, d_col_major ? wmma::mem_col_major : wmma::mem_row_major);
}

template <class S>
S value_at(int i)  // small values whose products and sums are exact in every type
{
    int step = (i * 7 + 3) % 11;
    if (std::is_same<S, unsigned char>::value)
        return static_cast<S>(step);
    if (std::is_same<S, signed char>::value)
        return static_cast<S>(step - 5);
    return static_cast<S>(static_cast<float>(step - 5) * 0.5f);
}

template <int M, int N, int K, class TAB, class TC, class LA, class LB, class S>
void check_product(bool d_col_major)
{
    using Acc = typename wmma::fragment<wmma::accumulator, M, N, K, TC>::element_type;
    constexpr bool a_row = std::is_same<LA, wmma::row_major>::value, b_row = std::is_same<LB, wmma::row_major>::value;
    std::vector<S> A(M * K), B(K * N);
    std::vector<Acc> C(M * N);
    std::vector<double> a(M * K), b(K * N);
    for (int r = 0; r < M; ++r)
        for (int k = 0; k < K; ++k) {
            S v = value_at<S>(r * K + k);
            A[a_row ? r * K + k : k * M + r] = v;
            a[r * K + k] = static_cast<double>(static_cast<float>(v));
        }
    for (int k = 0; k < K; ++k)
        for (int c = 0; c < N; ++c) {
            S v = value_at<S>(3 * (k * N + c) + 1);
            B[b_row ? k * N + c : c * K + k] = v;
            b[k * N + c] = static_cast<double>(static_cast<float>(v));
        }
    for (int i = 0; i < M * N; ++i)
        C[i] = static_cast<Acc>(static_cast<float>(i % 5));
    DeviceArray<S> dA(A), dB(B);
    DeviceArray<Acc> dC(C), dD(M * N);
    one_product<M, N, K, TAB, TC, LA, LB, S><<<1, 32>>>(dA.get(), dB.get(), dC.get(), dD.get(), d_col_major);
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    std::vector<Acc> D = dD.host();
    for (int r = 0; r < M; ++r)
        for (int c = 0; c < N; ++c) {
            double want = static_cast<double>(static_cast<float>(C[r * N + c]));
            for (int k = 0; k < K; ++k)
                want += a[r * K + k] * b[k * N + c];
            Acc got = D[d_col_major ? c * M + r : r * N + c];
            ASSERT_EQ(want, static_cast<double>(static_cast<float>(got))) << "D[" << r << "][" << c << "] of m" << M << "n" << N << "k" << K;
        }
}

}  // namespace

TEST(Wmma, HalfProductsInEveryShape)
{
    check_product<16, 16, 16, __half, float, wmma::row_major, wmma::col_major, __half>(false);
    check_product<16, 16, 16, __half, __half, wmma::col_major, wmma::row_major, __half>(true);
    check_product<32, 8, 16, __half, float, wmma::row_major, wmma::row_major, __half>(false);
    check_product<8, 32, 16, __half, float, wmma::col_major, wmma::col_major, __half>(true);
}

TEST(Wmma, Tf32Product)
{
    check_product<16, 16, 8, wmma::precision::tf32, float, wmma::row_major, wmma::row_major, float>(false);
    check_product<16, 16, 8, wmma::precision::tf32, float, wmma::col_major, wmma::col_major, float>(true);
}

TEST(Wmma, DoubleProduct)
{
    check_product<8, 8, 4, double, double, wmma::row_major, wmma::col_major, double>(false);
    check_product<8, 8, 4, double, double, wmma::col_major, wmma::row_major, double>(true);
}

TEST(Wmma, EightBitIntegerProducts)
{
    check_product<16, 16, 16, signed char, int, wmma::row_major, wmma::col_major, signed char>(false);
    check_product<32, 8, 16, signed char, int, wmma::row_major, wmma::row_major, signed char>(true);
    check_product<8, 32, 16, unsigned char, int, wmma::row_major, wmma::col_major, unsigned char>(false);
}

TEST(Wmma, FloatToTf32RoundsToNearestTiesAwayFromZero)
{
    // 1 + 2^-11 is half a TF32 step above 1: a tie, rounded away from zero to 1 + 2^-10.
    EXPECT_EQ(1.0f + 0x1p-10f, wmma::__float_to_tf32(1.0f + 0x1p-11f));
    EXPECT_EQ(-1.0f - 0x1p-10f, wmma::__float_to_tf32(-1.0f - 0x1p-11f));
    EXPECT_EQ(1.0f, wmma::__float_to_tf32(1.0f + 0x1p-12f));                // below the tie: down
    EXPECT_EQ(1.0f + 0x1p-10f, wmma::__float_to_tf32(1.0f + 0x1.8p-11f));  // above it: up
    EXPECT_TRUE(std::isinf(wmma::__float_to_tf32(INFINITY)));
    EXPECT_TRUE(std::isnan(wmma::__float_to_tf32(NAN)));
    EXPECT_EQ(0u, [] {
        float r = wmma::__float_to_tf32(3.14159265f);
        std::uint32_t bits;
        std::memcpy(&bits, &r, 4);
        return bits & 0x1fffu;
    }());
}

__global__ void tf32_operands_truncated(float *D)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c;
    // 1 + 2^-12 + 2^-20 in every element of A, not rounded first: the tensor core reads 1.
    wmma::fill_fragment(a, 1.0f + 0x1p-12f + 0x1p-20f);
    wmma::fill_fragment(b, 1.0f);
    wmma::fill_fragment(c, 0.0f);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
}

TEST(Wmma, Tf32OperandsLoseTheirLow13Bits)
{
    DeviceArray<float> d(256);
    tf32_operands_truncated<<<1, 32>>>(d.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    for (float v : d.host())
        ASSERT_EQ(8.0f, v);  // 8 products of 1 x 1
}

// Each lane reports where its accumulator elements sit, from a matrix whose entries name
// their position: the PTX ISA's m16n8 layout, lane l holding rows l/4 and l/4 + 8, columns
// 2 (l%4) and 2 (l%4) + 1 of each 8-column half.
__global__ void accumulator_positions(const float *positions, float *seen)
{
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::load_matrix_sync(c, positions, 16, wmma::mem_row_major);
    for (int e = 0; e < c.num_elements; ++e)
        seen[threadIdx.x * c.num_elements + e] = c.x[e];
}

TEST(Wmma, AccumulatorFollowsTheMmaSyncLayout)
{
    std::vector<float> positions(256);
    for (int i = 0; i < 256; ++i)
        positions[i] = (float)i;
    DeviceArray<float> in(positions), seen(32 * 8);
    accumulator_positions<<<1, 32>>>(in.get(), seen.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    std::vector<float> got = seen.host();
    for (int lane = 0; lane < 32; ++lane)
        for (int e = 0; e < 8; ++e) {
            int row = lane / 4 + 8 * ((e % 4) / 2), col = 8 * (e / 4) + 2 * (lane % 4) + e % 2;
            EXPECT_EQ((float)(row * 16 + col), got[lane * 8 + e]) << "lane " << lane << " element " << e;
        }
}

// Two warps of a block each multiply their own tiles: the lanes meet within their warp only.
__global__ void two_warps(float *D)
{
    int warp = threadIdx.x / 32;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(a, __float2half(1.0f + warp));
    wmma::fill_fragment(b, __float2half(2.0f));
    wmma::fill_fragment(c, 1.0f);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D + warp * 256, c, 16, wmma::mem_row_major);
}

TEST(Wmma, EachWarpMultipliesItsOwnFragments)
{
    DeviceArray<float> d(512);
    two_warps<<<1, 64>>>(d.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    std::vector<float> got = d.host();
    for (int i = 0; i < 256; ++i) {
        ASSERT_EQ(1.0f + 16 * 2.0f, got[i]);
        ASSERT_EQ(1.0f + 16 * 4.0f, got[256 + i]);
    }
}

// The operands' layouts: PTX ISA's m16n8k8 (TF32) and m16n8k16 (half) fragments, g = lane / 4,
// t = lane % 4.
template <class F, class S>
__global__ void operand_positions(const S *positions, unsigned ldm, float *seen)
{
    F f;
    wmma::load_matrix_sync(f, positions, ldm);
    for (int e = 0; e < f.num_elements; ++e)
        seen[threadIdx.x * f.num_elements + e] = static_cast<float>(f.x[e]);
}

template <class F, class S, class Where>
void check_operand_layout(int rows, int cols, Where where)
{
    std::vector<S> positions(rows * cols);
    for (int i = 0; i < rows * cols; ++i)
        positions[i] = static_cast<S>(static_cast<float>(i));
    int per_lane = rows * cols / 32;
    DeviceArray<S> in(positions);
    DeviceArray<float> seen(32 * per_lane);
    operand_positions<F, S><<<1, 32>>>(in.get(), cols, seen.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    std::vector<float> got = seen.host();
    for (int lane = 0; lane < 32; ++lane)
        for (int e = 0; e < per_lane; ++e) {
            int row, col;
            where(lane / 4, lane % 4, e, row, col);
            EXPECT_EQ((float)(row * cols + col), got[lane * per_lane + e]) << "lane " << lane << " element " << e;
        }
}

TEST(Wmma, OperandsFollowTheMmaSyncLayouts)
{
    using A32 = wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major>;
    using B32 = wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major>;
    using A16 = wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major>;
    using B16 = wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major>;
    // TF32 A (16 x 8): a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4).
    check_operand_layout<A32, float>(16, 8, [](int g, int t, int e, int &row, int &col) {
        row = g + 8 * (e % 2);
        col = t + 4 * (e / 2);
    });
    // TF32 B (8 x 16), each 8-column half: b0 (t, g), b1 (t + 4, g).
    check_operand_layout<B32, float>(8, 16, [](int g, int t, int e, int &row, int &col) {
        row = t + 4 * (e % 2);
        col = 8 * (e / 2) + g;
    });
    // half A (16 x 16): pairs along a row; rows g and g + 8; columns 2t, 2t + 1, then + 8.
    check_operand_layout<A16, __half>(16, 16, [](int g, int t, int e, int &row, int &col) {
        row = g + 8 * ((e / 2) % 2);
        col = 2 * t + e % 2 + 8 * (e / 4);
    });
    // half B (16 x 16), each 8-column half: rows 2t, 2t + 1, then + 8; column g.
    check_operand_layout<B16, __half>(16, 16, [](int g, int t, int e, int &row, int &col) {
        row = 2 * t + e % 2 + 8 * ((e % 4) / 2);
        col = 8 * (e / 4) + g;
    });
}

// A tile passed from warp 0 to warp 1 through shared memory by store_matrix_sync and
// load_matrix_sync: the race detector sees both, so the missing barrier is a race, named at
// the load's line.
template <bool kBarrier>
__global__ void pass_tile_between_warps(float *out)
{
    __shared__ float tile[256];
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    if (threadIdx.x < 32) {
        wmma::fill_fragment(c, 2.0f);
        wmma::store_matrix_sync(tile, c, 16, wmma::mem_row_major);
    }
    if (kBarrier) __syncthreads();
    if (threadIdx.x >= 32) {
        wmma::load_matrix_sync(c, tile, 16, wmma::mem_row_major);
        wmma::store_matrix_sync(out, c, 16, wmma::mem_row_major);
    }
}
const int kTileLoadLine = __LINE__ - 4;

TEST(Wmma, RaceDetectorSeesFragmentsInSharedMemory)
{
    DeviceArray<float> out(256);
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            setenv("EMU_RACECHECK", "1", 1);
            pass_tile_between_warps<false><<<1, 64>>>(out.get());
            cudaDeviceSynchronize();
            std::exit(0);
        },
        ::testing::ExitedWithCode(LAB_EXIT_RACE),
        "data race on __shared__ .*wmma::(load|store)_matrix_sync.*wmma_test.cu:" + std::to_string(kTileLoadLine));
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            setenv("EMU_RACECHECK", "1", 1);
            pass_tile_between_warps<true><<<1, 64>>>(out.get());
            cudaDeviceSynchronize();
            std::vector<float> got = out.host();
            std::exit(got[0] == 2.0f && got[255] == 2.0f ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "^$");
}

// Inline PTX mma.sync.m16n8k8 with TF32 operands (rewriter/inline_asm.py, cuda_emu/ptx_mma.h):
// each lane passes the elements the PTX ISA's fragment layout gives it; D = A·B + C with the
// operands' low 13 bits ignored. Both spellings of the accumulator: "+f" (C is D) and separate
// "=f" outputs with C among the inputs.
template <bool kSeparateC>
__global__ void ptx_mma_m16n8k8(const float *A, const float *B, const float *C, float *D)
{
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    unsigned a[4] = {__float_as_uint(A[g * 8 + t]), __float_as_uint(A[(g + 8) * 8 + t]),
                     __float_as_uint(A[g * 8 + t + 4]), __float_as_uint(A[(g + 8) * 8 + t + 4])};
    unsigned b[2] = {__float_as_uint(B[t * 8 + g]), __float_as_uint(B[(t + 4) * 8 + g])};
    const int at[4] = {g * 8 + 2 * t, g * 8 + 2 * t + 1, (g + 8) * 8 + 2 * t, (g + 8) * 8 + 2 * t + 1};
    float d[4];
    if (kSeparateC) {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%10,%11,%12,%13};"
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(C[at[0]]),
                       "f"(C[at[1]]), "f"(C[at[2]]), "f"(C[at[3]]));
    } else {
        for (int q = 0; q < 4; ++q)
            d[q] = C[at[q]];
        asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    for (int q = 0; q < 4; ++q)
        D[at[q]] = d[q];
}

static float low_bits_dropped(float x)
{
    unsigned bits;
    std::memcpy(&bits, &x, 4);
    bits &= ~0x1fffu;
    std::memcpy(&x, &bits, 4);
    return x;
}

TEST(Wmma, InlinePtxMmaSyncM16n8k8Tf32)
{
    std::vector<float> a(16 * 8), b(8 * 8), c(16 * 8);
    for (int i = 0; i < 16 * 8; ++i) {
        a[i] = (float)(i % 13) - 6.0f + (i == 5 ? 0x1p-20f : 0.0f);  // one element with bits below TF32's
        c[i] = 0.25f * (float)(i % 7);
    }
    for (int i = 0; i < 8 * 8; ++i)
        b[i] = 0.5f * (float)(i % 11) - 2.0f;
    DeviceArray<float> A(a), B(b), C(c), D(16 * 8);
    for (bool separate_c : {false, true}) {
        if (separate_c)
            ptx_mma_m16n8k8<true><<<1, 32>>>(A.get(), B.get(), C.get(), D.get());
        else
            ptx_mma_m16n8k8<false><<<1, 32>>>(A.get(), B.get(), C.get(), D.get());
        ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
        std::vector<float> got = D.host();
        for (int row = 0; row < 16; ++row)
            for (int col = 0; col < 8; ++col) {
                double want = c[row * 8 + col];
                for (int k = 0; k < 8; ++k)
                    want += (double)low_bits_dropped(a[row * 8 + k]) * low_bits_dropped(b[k * 8 + col]);
                EXPECT_EQ((float)want, got[row * 8 + col]) << "D(" << row << ", " << col << ")"
                                                           << (separate_c ? ", C separate" : ", C is D");
            }
    }
}
