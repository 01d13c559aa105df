// CUDA's warp matrix functions (mma.h, nvcuda::wmma) as the CPU emulator (EMU=1) provides them:
// fragments of half, bf16, tf32, double and 8-bit integers with load_matrix_sync,
// store_matrix_sync, fill_fragment and mma_sync, in the shapes CUDA offers for each.
//
// What a fragment holds. CUDA leaves the mapping of matrix elements to the lanes of a warp
// unspecified for wmma; the GPU's compiler turns a wmma operation into mma.sync instructions,
// whose fragments the PTX ISA documents ([NVIDIA PTX ISA n.d.], "Matrix fragments for mma.m16n8k8",
// "m16n8k16", "m8n8k4"). Here each fragment follows those: a 16 x 16 accumulator is two
// m16n8 halves (elements 0-3 and 4-7), lane l holding rows l/4 and l/4 + 8, columns 2 (l%4)
// and 2 (l%4) + 1 of each; the operands likewise (layout_of below). A kernel that works on
// fragment elements one by one (scaling, rounding to TF32) works on any layout; one that
// assumes a layout sees the one of the GPU's instructions. num_elements is the matrix's size
// over 32 (CUDA's own header says 16 for half operands, for Volta's duplicated layout).
//
// Arithmetic. Products of TF32, half, bf16 and 8-bit operands are exact in double; the sum of a
// product's k terms and the accumulator is formed in double and rounded once (the GPU's tensor
// cores truncate their partial sums instead: results can differ in the last bit). A TF32
// operand is read as the hardware reads it, its low 13 mantissa bits ignored;
// __float_to_tf32 rounds to nearest, ties away from zero (cvt.rna.tf32.f32). double fragments
// add each product with a rounded fma, k in order (DMMA is IEEE FP64). Integer sums wrap
// unless satf saturates them.
//
// mma_sync is a warp-wide operation: every lane of the warp calls it, as on a GPU; here the
// lanes meet (as at a __syncwarp) to read each other's fragments. Loads and stores are done by
// each lane for its own elements; those of shared memory are seen by the race detector and
// the profile (load_elements). The profile counts each mma_sync (EMU_PROFILE: "wmma").
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "cuda_emu/block_sync.h"
#include "cuda_emu/memory_access.h"
#include "cuda_emu/ptx_mma.h"  // note_warp_matrix_op
#include "cuda_fp16.h"

namespace nvcuda {
namespace wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

namespace precision {
struct tf32 {};  // 19-bit floats held as float: 8-bit exponent, 10-bit mantissa
}  // namespace precision
namespace experimental {
namespace precision = ::nvcuda::wmma::precision;
}

// Rounds to TF32, to nearest with ties away from zero; the result is a float whose low 13
// mantissa bits are zero. Infinity and NaN stay as they are.
inline float __float_to_tf32(float value)
{
    std::uint32_t bits;
    std::memcpy(&bits, &value, 4);
    if ((bits & 0x7f800000u) != 0x7f800000u)
        bits = (bits + 0x1000u) & ~0x1fffu;
    std::memcpy(&value, &bits, 4);
    return value;
}

namespace detail {

// What a fragment stores: a TF32 element is a float; the others are themselves.
template <class T> struct storage { using type = T; };
template <> struct storage<precision::tf32> { using type = float; };

// The matrix a fragment holds: A is M x K, B is K x N, the accumulator M x N.
template <class Use, int M, int N, int K> struct dims;
template <int M, int N, int K> struct dims<matrix_a, M, N, K> { static constexpr int rows = M, cols = K; };
template <int M, int N, int K> struct dims<matrix_b, M, N, K> { static constexpr int rows = K, cols = N; };
template <int M, int N, int K> struct dims<accumulator, M, N, K> { static constexpr int rows = M, cols = N; };

// The element types and shapes CUDA offers (CUDA C++ Programming Guide, "Element Types and
// Matrix Sizes"): operands' T with their M, N, K; accumulators are float, half, int or double.
template <class T> constexpr bool is_16bit_float() { return std::is_same<T, __half>::value || (sizeof(T) == 2 && !std::is_integral<T>::value); }
template <class T> constexpr bool is_8bit_int() { return std::is_same<T, signed char>::value || std::is_same<T, unsigned char>::value; }

template <class Use, int M, int N, int K, class T>
constexpr bool offered()
{
    constexpr bool shape_16 = (M == 16 && N == 16 && K == 16) || (M == 32 && N == 8 && K == 16) ||
                              (M == 8 && N == 32 && K == 16);
    if (std::is_same<T, precision::tf32>::value)
        return M == 16 && N == 16 && K == 8;
    if (std::is_same<T, double>::value)
        return M == 8 && N == 8 && K == 4;
    if (std::is_same<Use, accumulator>::value)
        return (std::is_same<T, float>::value && (shape_16 || (M == 16 && N == 16 && K == 8))) ||
               ((std::is_same<T, __half>::value || std::is_same<T, int>::value) && shape_16);
    return (is_16bit_float<T>() || is_8bit_int<T>()) && shape_16;
}

struct Coord {
    int row, col;
};

// Element e of lane `lane` in a fragment of a rows x cols matrix of `bytes`-byte elements:
// the mma.sync layouts of the PTX ISA where the shape is one of theirs (g = lane / 4, t = lane % 4),
// else row-major order, lane by lane.
template <class Use>
constexpr Coord layout_of(int rows, int cols, int bytes, int lane, int e)
{
    const int g = lane / 4, t = lane % 4;
    if (std::is_same<Use, accumulator>::value) {
        if (rows % 16 == 0 && cols % 8 == 0) {  // m16n8 pieces, column pieces first
            int piece = e / 4, q = e % 4, pieces_across = cols / 8;
            return {16 * (piece / pieces_across) + g + 8 * (q / 2), 8 * (piece % pieces_across) + 2 * t + q % 2};
        }
        if (rows == 8 && cols % 8 == 0)  // m8n8 pieces (FP64's, and m8n32k16's)
            return {g, 8 * (e / 2) + 2 * t + e % 2};
    } else if (std::is_same<Use, matrix_a>::value && rows % 16 == 0) {
        if (bytes == 4 && cols == 8)  // TF32, m16n8k8
            return {16 * (e / 4) + g + 8 * (e % 2), t + 4 * ((e % 4) / 2)};
        if (bytes == 2 && cols == 16) {  // half and bf16, m16n8k16
            int q = e % 8;
            return {16 * (e / 8) + g + 8 * ((q / 2) % 2), 2 * t + q % 2 + 8 * (q / 4)};
        }
        if (bytes == 1 && cols == 16) {  // 8-bit integers, m16n8k16
            int q = e % 8;
            return {16 * (e / 8) + g + 8 * (q / 4), 4 * t + q % 4};
        }
    } else if (std::is_same<Use, matrix_a>::value && bytes == 8 && rows == 8 && cols == 4) {
        return {g, t};  // FP64, m8n8k4
    } else if (std::is_same<Use, matrix_b>::value) {
        if (bytes == 4 && rows == 8)  // TF32: k8n8 pieces
            return {t + 4 * (e % 2), 8 * (e / 2) + g};
        if (bytes == 2 && rows == 16)  // half and bf16: k16n8 pieces
            return {2 * t + e % 2 + 8 * ((e % 4) / 2), 8 * (e / 4) + g};
        if (bytes == 1 && rows == 16)  // 8-bit integers: k16n8 pieces
            return {4 * t + e % 4, 8 * (e / 4) + g};
        if (bytes == 8 && rows == 4 && cols == 8)
            return {t, g};
    }
    int per_lane = rows * cols / 32, index = lane * per_lane + e;
    return {index / cols, index % cols};
}

// Which lane and element hold (row, col): layout_of turned around, once per fragment type.
template <class Use, int Rows, int Cols, int Bytes>
struct Owners {
    static constexpr int per_lane = Rows * Cols / 32;
    unsigned char lane[Rows][Cols], element[Rows][Cols];
    Owners()
    {
        for (int l = 0; l < 32; ++l)
            for (int e = 0; e < per_lane; ++e) {
                Coord c = layout_of<Use>(Rows, Cols, Bytes, l, e);
                lane[c.row][c.col] = (unsigned char)l;
                element[c.row][c.col] = (unsigned char)e;
            }
    }
    static const Owners &get()
    {
        static const Owners owners;
        return owners;
    }
};

// A value as the multiply sees it: TF32 with its low 13 bits dropped; the rest exactly.
template <class T, class S>
inline double operand_value(const S &x)
{
    if constexpr (std::is_same<T, precision::tf32>::value) {
        float f = static_cast<float>(x);
        std::uint32_t bits;
        std::memcpy(&bits, &f, 4);
        bits &= ~0x1fffu;
        std::memcpy(&f, &bits, 4);
        return f;
    } else if constexpr (std::is_integral<S>::value) {
        return static_cast<double>(x);
    } else {
        return static_cast<double>(static_cast<float>(x));
    }
}

template <class S>
inline S from_double(double value)
{
    if constexpr (std::is_same<S, double>::value || std::is_same<S, float>::value)
        return static_cast<S>(value);
    else if constexpr (std::is_integral<S>::value)
        return static_cast<S>(static_cast<std::int64_t>(value));
    else
        return S(static_cast<float>(value));
}

[[noreturn]] inline void whole_warp_needed(const char *what, unsigned int arrived)
{
    std::fprintf(stderr,
                 "cuda-emu: wmma::%s: lanes 0x%08x of the warp took part; it is a warp-wide operation that "
                 "every one of the 32 lanes must call together (no lane returned or branched away)\n",
                 what, arrived);
    std::abort();
}
}  // namespace detail

template <class Use, int M, int N, int K, class T, class Layout = void>
class fragment {
    static_assert(detail::offered<Use, M, N, K, T>(),
                  "wmma::fragment: CUDA offers no such fragment: half, bf16 and 8-bit integers come in "
                  "m16n16k16, m32n8k16 and m8n32k16; tf32 in m16n16k8; double in m8n8k4; accumulators of "
                  "float, half, int or double in the same shapes");

public:
    using use = Use;
    using precision_type = T;
    using element_type = typename detail::storage<T>::type;
    using storage_element_type = element_type;
    static constexpr int rows = detail::dims<Use, M, N, K>::rows, cols = detail::dims<Use, M, N, K>::cols;
    static constexpr int num_elements = rows * cols / 32;
    element_type x[num_elements];
};

template <class Use, int M, int N, int K, class T, class Layout, class V>
inline void fill_fragment(fragment<Use, M, N, K, T, Layout> &a, const V &value)
{
    using S = typename fragment<Use, M, N, K, T, Layout>::element_type;
    for (int e = 0; e < a.num_elements; ++e)
        a.x[e] = static_cast<S>(value);
}

namespace detail {
inline int lane_of_thread()
{
    return (int)((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32u);
}

template <class F>
inline Coord element_coord(int lane, int e)
{
    return layout_of<typename F::use>(F::rows, F::cols, (int)sizeof(typename F::element_type), lane, e);
}

// Memory offset of (row, col) with leading dimension ldm.
inline std::size_t offset_of(Coord c, unsigned ldm, bool row_major_memory)
{
    return row_major_memory ? (std::size_t)c.row * ldm + c.col : (std::size_t)c.col * ldm + c.row;
}

// Each element read is shown to the checkers as a __shared__ access (the runtime ignores it
// unless the address is in the block's shared memory): the race detector then sees a warp's
// fragment loads and stores of a shared tile, and the profile their bank conflicts. Fragment
// loads and stores of global memory are not watched.
template <class F, class P>
inline void load_elements(F &a, const P *p, unsigned ldm, bool row_major_memory, const char *file, int line)
{
    int lane = lane_of_thread();
    for (int e = 0; e < F::num_elements; ++e) {
        const P *at = p + offset_of(element_coord<F>(lane, e), ldm, row_major_memory);
        if (__builtin_expect(::cudaemu::access_hooks_on, 0))
            ::cudaemu::observe_shared_access(at, sizeof(P), ::cudaemu::Access::Read,
                                             ::cudaemu::call_site(file, line, "wmma::load_matrix_sync"));
        a.x[e] = static_cast<typename F::element_type>(*at);
    }
}

template <class L> constexpr bool is_row_major() { return std::is_same<L, row_major>::value; }
}  // namespace detail

// Operands: the fragment's own layout says how memory holds the matrix. ldm counts elements.
template <class Use, int M, int N, int K, class T, class Layout, class P>
inline void load_matrix_sync(fragment<Use, M, N, K, T, Layout> &a, const P *p, unsigned ldm,
                             const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    static_assert(!std::is_same<Use, accumulator>::value,
                  "wmma::load_matrix_sync: an accumulator's load takes the memory layout (mem_row_major or mem_col_major)");
    static_assert(std::is_same<Layout, row_major>::value || std::is_same<Layout, col_major>::value,
                  "wmma::load_matrix_sync: a matrix_a or matrix_b fragment needs its layout, row_major or col_major, "
                  "as the fragment's last template argument");
    detail::load_elements(a, p, ldm, detail::is_row_major<Layout>(), file, line);
}

template <int M, int N, int K, class T, class P>
inline void load_matrix_sync(fragment<accumulator, M, N, K, T> &a, const P *p, unsigned ldm, layout_t layout,
                             const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    detail::load_elements(a, p, ldm, layout == mem_row_major, file, line);
}

template <int M, int N, int K, class T, class P>
inline void store_matrix_sync(P *p, const fragment<accumulator, M, N, K, T> &a, unsigned ldm, layout_t layout,
                              const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    using F = fragment<accumulator, M, N, K, T>;
    int lane = detail::lane_of_thread();
    for (int e = 0; e < F::num_elements; ++e) {
        P *at = p + detail::offset_of(detail::element_coord<F>(lane, e), ldm, layout == mem_row_major);
        P value = static_cast<P>(a.x[e]);
        if (__builtin_expect(::cudaemu::access_hooks_on, 0)) {  // seen once made, as the rewriter's stores are
            bool same = std::memcmp(at, &value, sizeof(P)) == 0;  // the value already there: a read to others
            *at = value;
            ::cudaemu::observe_shared_access(at, sizeof(P), same ? ::cudaemu::Access::Rewrite : ::cudaemu::Access::Write,
                                             ::cudaemu::call_site(file, line, "wmma::store_matrix_sync"));
        } else {
            *at = value;
        }
    }
}

namespace detail {
// A lane's part in one mma_sync: where its fragments are.
template <class FA, class FB, class FC>
struct MmaLane {
    const FA *a;
    const FB *b;
    const FC *c;
};

// The product of a warp's current mma_sync, formed by the first of its lanes to go on after the
// lanes met, and read by each lane for its elements of d: `taken` counts the lanes that have
// read it, and the 32nd starts over. A block runs on one CPU thread at a time and every lane of
// a warp must meet again before its next product is formed, so one record per warp of this CPU
// thread is enough. M x N is at most 256 in every shape CUDA offers.
struct WarpProduct {
    unsigned int taken;
    double value[256];
};
inline WarpProduct &warp_product()
{
    thread_local WarpProduct *products = new WarpProduct[32]();  // a block has at most 32 warps
    unsigned int linear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    return products[(linear / 32u) % 32u];
}

// The whole matrices, gathered once from the lanes' fragments (each element converted once),
// then D = A·B + C with every (i, j) summed from C in k order: in double for float, half, bf16,
// TF32 and integer operands (exact products, one rounding at the end), with one rounded fma per
// product for double (DMMA is IEEE FP64).
template <int M, int N, int K, class TA, class TC, class FA, class FB, class FC>
inline void form_product(const MmaLane<FA, FB, FC> *const *lanes, double (&d)[M][N])
{
    const auto &a_owner = Owners<matrix_a, FA::rows, FA::cols, (int)sizeof(typename FA::element_type)>::get();
    const auto &b_owner = Owners<matrix_b, FB::rows, FB::cols, (int)sizeof(typename FB::element_type)>::get();
    const auto &c_owner = Owners<accumulator, FC::rows, FC::cols, (int)sizeof(typename FC::element_type)>::get();
    double a[M][K], b[K][N];
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k)
            a[i][k] = operand_value<TA>(lanes[a_owner.lane[i][k]]->a->x[a_owner.element[i][k]]);
    for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j)
            b[k][j] = operand_value<TA>(lanes[b_owner.lane[k][j]]->b->x[b_owner.element[k][j]]);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j)
            d[i][j] = operand_value<TC>(lanes[c_owner.lane[i][j]]->c->x[c_owner.element[i][j]]);
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k) {
            const double a_ik = a[i][k];
            if constexpr (std::is_same<TA, double>::value) {
                for (int j = 0; j < N; ++j) d[i][j] = std::fma(a_ik, b[k][j], d[i][j]);
            } else {
                for (int j = 0; j < N; ++j) d[i][j] += a_ik * b[k][j];
            }
        }
}

// A sum as the accumulator's type holds it: integers wrap (or saturate with satf), floats
// round once (satf: NaN gives 0, infinities the largest finite value).
template <class TD>
inline typename storage<TD>::type accumulator_value(double sum, bool satf)
{
    if constexpr (std::is_same<TD, int>::value) {
        if (satf)
            sum = std::fmin(std::fmax(sum, -2147483648.0), 2147483647.0);
        else  // two's complement wrap, as the integer adder does
            sum = (double)(std::int32_t)(std::uint32_t)(std::uint64_t)(std::int64_t)sum;
    } else if (satf) {
        double largest = std::is_same<TD, __half>::value ? 65504.0 : 3.4028234663852886e38;
        sum = std::isnan(sum) ? 0.0 : std::fmin(std::fmax(sum, -largest), largest);
    }
    return from_double<typename storage<TD>::type>(sum);
}
}  // namespace detail

// d = a·b + c for the warp's whole matrices. The lanes meet and show each other where their
// fragments are; the first lane to go on forms the warp's product (every operand is read then,
// while the other lanes wait), and each lane takes its elements of d from it. Writing d cannot
// disturb another lane's operands (d may be c, or another lane's a): they have all been read.
template <int M, int N, int K, class TA, class LA, class LB, class TC, class TD>
inline void mma_sync(fragment<accumulator, M, N, K, TD> &d, const fragment<matrix_a, M, N, K, TA, LA> &a,
                     const fragment<matrix_b, M, N, K, TA, LB> &b, const fragment<accumulator, M, N, K, TC> &c,
                     bool satf = false)
{
    using FA = fragment<matrix_a, M, N, K, TA, LA>;
    using FB = fragment<matrix_b, M, N, K, TA, LB>;
    using FC = fragment<accumulator, M, N, K, TC>;
    using FD = fragment<accumulator, M, N, K, TD>;
    using Lane = detail::MmaLane<FA, FB, FC>;
    static_assert(M * N <= 256, "wmma::mma_sync: a product of more than 256 elements");
    const Lane mine{&a, &b, &c};
    ::cudaemu::WarpExchange met = ::cudaemu::warp_exchange(0xffffffffu, ::cudaemu::to_bits(&mine), 0);
    if (met.arrived != 0xffffffffu)
        detail::whole_warp_needed("mma_sync", met.arrived);
    detail::WarpProduct &warp = detail::warp_product();
    double(&product)[M][N] = *reinterpret_cast<double(*)[M][N]>(warp.value);
    if (warp.taken == 0) {  // the first lane here: no other lane of the warp runs until it waits again
        ::cudaemu::note_warp_matrix_op();
        const Lane *lanes[32];
        for (int l = 0; l < 32; ++l)
            lanes[l] = ::cudaemu::from_bits<const Lane *>(met.values[l]);
        detail::form_product<M, N, K, TA, TC>(lanes, product);
    }
    for (int e = 0; e < FD::num_elements; ++e) {
        detail::Coord at = detail::element_coord<FC>((int)met.lane, e);
        d.x[e] = detail::accumulator_value<TD>(product[at.row][at.col], satf);
    }
    warp.taken = warp.taken == 31 ? 0 : warp.taken + 1;
}

}  // namespace wmma
}  // namespace nvcuda
