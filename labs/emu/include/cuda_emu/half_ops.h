// What cuda_fp16.h and cuda_bf16.h both offer on a 16-bit float S and its pair P (members x
// and y), written once: arithmetic, comparisons, math functions, operators and atomics. A type's
// header defines S (its bits in `__x`) and P, and a namespace NS with `S make(double)` (rounds
// once to nearest even) and `double wide(S)`, then expands CUDAEMU_HALF_OPS(S, P, NS).
//
// Each operation computes in double and rounds once: a sum, difference or product of two 16-bit
// floats is exact in double, so it is what the GPU's instructions return; division, fma and
// the math functions round the double result (in rare cases a double rounding may differ in
// the last bit from the GPU's).
#pragma once

#include <cmath>

#include "cuda_emu/atomics.h"
#include "cuda_emu/narrowing.h"
#include "cuda_emu/qualifiers.h"
#include "vector_types.h"

#define CUDAEMU_HALF_FN __host__ __device__ inline

namespace cudaemu {
inline double exp10_of(double v) { return std::pow(10.0, v); }
// The _sat operations clamp their result to [0, 1], NaN to 0.
template <class S>
inline S saturate_unit(S a)
{
    const float v = (float)a;
    return S(v > 1.0f ? 1.0f : v >= 0.0f ? v : 0.0f);
}

enum class Rounding { nearest, zero, down, up };
// `nearest` is `value` rounded to nearest even in S; the other roundings are it or its neighbour
// one unit in the last place away (S's bits are sign and magnitude, so a magnitude one unit
// larger is the next pattern: from the largest finite value that is infinity, and back).
template <class S>
inline S round_directed(double value, Rounding mode, S nearest)
{
    const double rounded = (double)(float)nearest;
    if (mode == Rounding::nearest || std::isnan(value) || rounded == value) return nearest;
    const bool negative = (nearest.__x & 0x8000u) != 0;
    bool smaller_magnitude;
    if (mode == Rounding::zero) {
        if (std::fabs(rounded) <= std::fabs(value)) return nearest;
        smaller_magnitude = true;
    } else if (mode == Rounding::down) {
        if (rounded <= value) return nearest;
        smaller_magnitude = !negative;
    } else {
        if (rounded >= value) return nearest;
        smaller_magnitude = negative;
    }
    nearest.__x = (unsigned short)(smaller_magnitude ? nearest.__x - 1 : nearest.__x + 1);
    return nearest;
}
}  // namespace cudaemu

// A pair comparison gives 1.0 or 0.0 in each half (__hlt2), a 16-bit mask in each half
// (__hlt2_mask), or whether both halves compare true (__hblt2).
#define CUDAEMU_HALF_PAIR_COMPARISON(S, P, name, scalar)                                                \
    CUDAEMU_HALF_FN P __h##name##2(P a, P b)                                                           \
    {                                                                                                   \
        return P(S(scalar(a.x, b.x) ? 1.0f : 0.0f), S(scalar(a.y, b.y) ? 1.0f : 0.0f));                 \
    }                                                                                                   \
    CUDAEMU_HALF_FN unsigned __h##name##2_mask(P a, P b)                                               \
    {                                                                                                   \
        return (scalar(a.x, b.x) ? 0xffffu : 0u) | (scalar(a.y, b.y) ? 0xffff0000u : 0u);               \
    }                                                                                                   \
    CUDAEMU_HALF_FN bool __hb##name##2(P a, P b) { return scalar(a.x, b.x) && scalar(a.y, b.y); }

// A math function of S (hexp) and its pair form (h2exp).
#define CUDAEMU_HALF_MATH(S, P, NS, name, expression)                                                   \
    CUDAEMU_HALF_FN S h##name(S a) { return NS::make(expression(NS::wide(a))); }                      \
    CUDAEMU_HALF_FN P h2##name(P a) { return P(h##name(a.x), h##name(a.y)); }

#define CUDAEMU_HALF_PAIRWISE2(S, P, pair, scalar) \
    CUDAEMU_HALF_FN P pair(P a, P b) { return P(scalar(a.x, b.x), scalar(a.y, b.y)); }

// Conversions from and to an integer type Int (named `iname` in CUDA's function names: int,
// uint, short, ushort, ll, ull) in the four roundings; to an integer, out-of-range values
// saturate and NaN gives 0, as the GPU's cvt does.
#define CUDAEMU_HALF_INT_CONVERSION(S, NAME, NS, Int, iname)                                            \
    CUDAEMU_HALF_FN S __##iname##2##NAME##_rn(Int i) { return NS::make((double)i); }                   \
    CUDAEMU_HALF_FN S __##iname##2##NAME##_rz(Int i)                                                   \
    {                                                                                                   \
        return ::cudaemu::round_directed((double)i, ::cudaemu::Rounding::zero, NS::make((double)i));    \
    }                                                                                                   \
    CUDAEMU_HALF_FN S __##iname##2##NAME##_rd(Int i)                                                   \
    {                                                                                                   \
        return ::cudaemu::round_directed((double)i, ::cudaemu::Rounding::down, NS::make((double)i));    \
    }                                                                                                   \
    CUDAEMU_HALF_FN S __##iname##2##NAME##_ru(Int i)                                                   \
    {                                                                                                   \
        return ::cudaemu::round_directed((double)i, ::cudaemu::Rounding::up, NS::make((double)i));      \
    }                                                                                                   \
    CUDAEMU_HALF_FN Int __##NAME##2##iname##_rn(S h) { return ::cudaemu::saturating_int<Int>(std::nearbyint(NS::wide(h))); } \
    CUDAEMU_HALF_FN Int __##NAME##2##iname##_rz(S h) { return ::cudaemu::saturating_int<Int>(std::trunc(NS::wide(h))); } \
    CUDAEMU_HALF_FN Int __##NAME##2##iname##_rd(S h) { return ::cudaemu::saturating_int<Int>(std::floor(NS::wide(h))); } \
    CUDAEMU_HALF_FN Int __##NAME##2##iname##_ru(S h) { return ::cudaemu::saturating_int<Int>(std::ceil(NS::wide(h))); }

// The conversions both types offer, by CUDA's names: NAME is the scalar's (half, bfloat16),
// PNAME the pair's (half2, bfloat162).
#define CUDAEMU_HALF_CONVERSIONS(S, P, NS, NAME, PNAME)                                                 \
    CUDAEMU_HALF_FN S __float2##NAME(float a) { return S(a); }                                         \
    CUDAEMU_HALF_FN S __float2##NAME##_rn(float a) { return S(a); }                                    \
    CUDAEMU_HALF_FN S __float2##NAME##_rz(float a) { return ::cudaemu::round_directed(a, ::cudaemu::Rounding::zero, S(a)); } \
    CUDAEMU_HALF_FN S __float2##NAME##_rd(float a) { return ::cudaemu::round_directed(a, ::cudaemu::Rounding::down, S(a)); } \
    CUDAEMU_HALF_FN S __float2##NAME##_ru(float a) { return ::cudaemu::round_directed(a, ::cudaemu::Rounding::up, S(a)); } \
    CUDAEMU_HALF_FN S __double2##NAME(double a) { return NS::make(a); }                                \
    CUDAEMU_HALF_FN float __##NAME##2float(S a) { return (float)NS::wide(a); }                         \
    CUDAEMU_HALF_FN P __float2##PNAME##_rn(float a) { return P(S(a), S(a)); }                         \
    CUDAEMU_HALF_FN P __floats2##PNAME##_rn(float a, float b) { return P(S(a), S(b)); }               \
    CUDAEMU_HALF_FN P __float22##PNAME##_rn(float2 a) { return P(S(a.x), S(a.y)); }                   \
    CUDAEMU_HALF_FN float2 __##PNAME##2float2(P a) { return make_float2((float)a.x, (float)a.y); }     \
    CUDAEMU_HALF_FN P __halves2##PNAME(S a, S b) { return P(a, b); }                                   \
    CUDAEMU_HALF_FN P __##NAME##2##PNAME(S a) { return P(a, a); }                                      \
    CUDAEMU_HALF_FN S __low2##NAME(P a) { return a.x; }                                                \
    CUDAEMU_HALF_FN S __high2##NAME(P a) { return a.y; }                                               \
    CUDAEMU_HALF_FN float __low2float(P a) { return (float)a.x; }                                      \
    CUDAEMU_HALF_FN float __high2float(P a) { return (float)a.y; }                                     \
    CUDAEMU_HALF_FN P __lows2##PNAME(P a, P b) { return P(a.x, b.x); }                                 \
    CUDAEMU_HALF_FN P __highs2##PNAME(P a, P b) { return P(a.y, b.y); }                                \
    CUDAEMU_HALF_FN P __low2##PNAME(P a) { return P(a.x, a.x); }                                       \
    CUDAEMU_HALF_FN P __high2##PNAME(P a) { return P(a.y, a.y); }                                      \
    CUDAEMU_HALF_FN unsigned short __##NAME##_as_ushort(S a) { return a.__x; }                         \
    CUDAEMU_HALF_FN short __##NAME##_as_short(S a) { return (short)a.__x; }                            \
    CUDAEMU_HALF_FN S __ushort_as_##NAME(unsigned short a) { return NS::from_bits(a); }                \
    CUDAEMU_HALF_FN S __short_as_##NAME(short a) { return NS::from_bits((unsigned short)a); }          \
    CUDAEMU_HALF_INT_CONVERSION(S, NAME, NS, int, int)                                                  \
    CUDAEMU_HALF_INT_CONVERSION(S, NAME, NS, unsigned int, uint)                                        \
    CUDAEMU_HALF_INT_CONVERSION(S, NAME, NS, short, short)                                              \
    CUDAEMU_HALF_INT_CONVERSION(S, NAME, NS, unsigned short, ushort)                                    \
    CUDAEMU_HALF_INT_CONVERSION(S, NAME, NS, long long, ll)                                             \
    CUDAEMU_HALF_INT_CONVERSION(S, NAME, NS, unsigned long long, ull)                                   \
    CUDAEMU_HALF_FN signed char __##NAME##2char_rz(S h) { return ::cudaemu::saturating_int<signed char>(std::trunc(NS::wide(h))); } \
    CUDAEMU_HALF_FN unsigned char __##NAME##2uchar_rz(S h) { return ::cudaemu::saturating_int<unsigned char>(std::trunc(NS::wide(h))); }

#define CUDAEMU_HALF_OPS(S, P, NS)                                                                      \
    CUDAEMU_HALF_FN S __hadd(S a, S b) { return NS::make(NS::wide(a) + NS::wide(b)); }                 \
    CUDAEMU_HALF_FN S __hsub(S a, S b) { return NS::make(NS::wide(a) - NS::wide(b)); }                 \
    CUDAEMU_HALF_FN S __hmul(S a, S b) { return NS::make(NS::wide(a) * NS::wide(b)); }                 \
    CUDAEMU_HALF_FN S __hdiv(S a, S b) { return NS::make(NS::wide(a) / NS::wide(b)); }                 \
    CUDAEMU_HALF_FN S __hadd_rn(S a, S b) { return __hadd(a, b); }                                     \
    CUDAEMU_HALF_FN S __hsub_rn(S a, S b) { return __hsub(a, b); }                                     \
    CUDAEMU_HALF_FN S __hmul_rn(S a, S b) { return __hmul(a, b); }                                     \
    CUDAEMU_HALF_FN S __hfma(S a, S b, S c) { return NS::make(std::fma(NS::wide(a), NS::wide(b), NS::wide(c))); } \
    CUDAEMU_HALF_FN S __hneg(S a) { return NS::from_bits((unsigned short)(a.__x ^ 0x8000u)); }         \
    CUDAEMU_HALF_FN S __habs(S a) { return NS::from_bits((unsigned short)(a.__x & 0x7fffu)); }         \
    CUDAEMU_HALF_FN bool __hisnan(S a) { return std::isnan(NS::wide(a)); }                              \
    CUDAEMU_HALF_FN int __hisinf(S a) { return std::isinf(NS::wide(a)) ? (NS::wide(a) < 0 ? -1 : 1) : 0; } \
    /* _sat clamps to [0, 1] (NaN to 0); _relu clamps below at 0. */                                  \
    CUDAEMU_HALF_FN S __hadd_sat(S a, S b) { return ::cudaemu::saturate_unit(__hadd(a, b)); }                    \
    CUDAEMU_HALF_FN S __hsub_sat(S a, S b) { return ::cudaemu::saturate_unit(__hsub(a, b)); }                    \
    CUDAEMU_HALF_FN S __hmul_sat(S a, S b) { return ::cudaemu::saturate_unit(__hmul(a, b)); }                    \
    CUDAEMU_HALF_FN S __hfma_sat(S a, S b, S c) { return ::cudaemu::saturate_unit(__hfma(a, b, c)); }            \
    CUDAEMU_HALF_FN S __hfma_relu(S a, S b, S c)                                                       \
    {                                                                                                   \
        S r = __hfma(a, b, c);                                                                          \
        return __hisnan(r) || NS::wide(r) >= 0 ? r : NS::make(0.0);                                     \
    }                                                                                                   \
    CUDAEMU_HALF_FN bool __heq(S a, S b) { return NS::wide(a) == NS::wide(b); }                       \
    CUDAEMU_HALF_FN bool __hne(S a, S b) { return !__hisnan(a) && !__hisnan(b) && NS::wide(a) != NS::wide(b); } \
    CUDAEMU_HALF_FN bool __hlt(S a, S b) { return NS::wide(a) < NS::wide(b); }                        \
    CUDAEMU_HALF_FN bool __hle(S a, S b) { return NS::wide(a) <= NS::wide(b); }                       \
    CUDAEMU_HALF_FN bool __hgt(S a, S b) { return NS::wide(a) > NS::wide(b); }                        \
    CUDAEMU_HALF_FN bool __hge(S a, S b) { return NS::wide(a) >= NS::wide(b); }                       \
    CUDAEMU_HALF_FN bool __hequ(S a, S b) { return __hisnan(a) || __hisnan(b) || __heq(a, b); }        \
    CUDAEMU_HALF_FN bool __hneu(S a, S b) { return !__heq(a, b); }                                    \
    CUDAEMU_HALF_FN bool __hltu(S a, S b) { return __hisnan(a) || __hisnan(b) || __hlt(a, b); }        \
    CUDAEMU_HALF_FN bool __hleu(S a, S b) { return __hisnan(a) || __hisnan(b) || __hle(a, b); }        \
    CUDAEMU_HALF_FN bool __hgtu(S a, S b) { return __hisnan(a) || __hisnan(b) || __hgt(a, b); }        \
    CUDAEMU_HALF_FN bool __hgeu(S a, S b) { return __hisnan(a) || __hisnan(b) || __hge(a, b); }        \
    /* __hmax/__hmin return the other operand for one NaN; the _nan forms return NaN. */               \
    CUDAEMU_HALF_FN S __hmax(S a, S b) { return __hisnan(a) ? b : __hisnan(b) ? a : (__hlt(a, b) ? b : a); } \
    CUDAEMU_HALF_FN S __hmin(S a, S b) { return __hisnan(a) ? b : __hisnan(b) ? a : (__hlt(b, a) ? b : a); } \
    CUDAEMU_HALF_FN S __hmax_nan(S a, S b) { return __hisnan(a) ? a : __hisnan(b) ? b : __hmax(a, b); } \
    CUDAEMU_HALF_FN S __hmin_nan(S a, S b) { return __hisnan(a) ? a : __hisnan(b) ? b : __hmin(a, b); } \
    CUDAEMU_HALF_MATH(S, P, NS, sqrt, std::sqrt)                                                       \
    CUDAEMU_HALF_MATH(S, P, NS, rsqrt, 1.0 / std::sqrt)                                                \
    CUDAEMU_HALF_MATH(S, P, NS, rcp, 1.0 /)                                                            \
    CUDAEMU_HALF_MATH(S, P, NS, exp, std::exp)                                                         \
    CUDAEMU_HALF_MATH(S, P, NS, exp2, std::exp2)                                                       \
    CUDAEMU_HALF_MATH(S, P, NS, exp10, ::cudaemu::exp10_of)                                                     \
    CUDAEMU_HALF_MATH(S, P, NS, log, std::log)                                                         \
    CUDAEMU_HALF_MATH(S, P, NS, log2, std::log2)                                                       \
    CUDAEMU_HALF_MATH(S, P, NS, log10, std::log10)                                                     \
    CUDAEMU_HALF_MATH(S, P, NS, sin, std::sin)                                                         \
    CUDAEMU_HALF_MATH(S, P, NS, cos, std::cos)                                                         \
    CUDAEMU_HALF_MATH(S, P, NS, tanh, std::tanh)                                                       \
    CUDAEMU_HALF_MATH(S, P, NS, floor, std::floor)                                                     \
    CUDAEMU_HALF_MATH(S, P, NS, ceil, std::ceil)                                                       \
    CUDAEMU_HALF_MATH(S, P, NS, trunc, std::trunc)                                                     \
    CUDAEMU_HALF_MATH(S, P, NS, rint, std::nearbyint)                                                  \
    CUDAEMU_HALF_PAIRWISE2(S, P, __hadd2, __hadd)                                                       \
    CUDAEMU_HALF_PAIRWISE2(S, P, __hsub2, __hsub)                                                       \
    CUDAEMU_HALF_PAIRWISE2(S, P, __hmul2, __hmul)                                                       \
    CUDAEMU_HALF_PAIRWISE2(S, P, __h2div, __hdiv)                                                       \
    CUDAEMU_HALF_PAIRWISE2(S, P, __hadd2_rn, __hadd)                                                    \
    CUDAEMU_HALF_PAIRWISE2(S, P, __hsub2_rn, __hsub)                                                    \
    CUDAEMU_HALF_PAIRWISE2(S, P, __hmul2_rn, __hmul)                                                    \
    CUDAEMU_HALF_PAIRWISE2(S, P, __hadd2_sat, __hadd_sat)                                               \
    CUDAEMU_HALF_PAIRWISE2(S, P, __hsub2_sat, __hsub_sat)                                               \
    CUDAEMU_HALF_PAIRWISE2(S, P, __hmul2_sat, __hmul_sat)                                               \
    CUDAEMU_HALF_PAIRWISE2(S, P, __hmax2, __hmax)                                                       \
    CUDAEMU_HALF_PAIRWISE2(S, P, __hmin2, __hmin)                                                       \
    CUDAEMU_HALF_PAIRWISE2(S, P, __hmax2_nan, __hmax_nan)                                               \
    CUDAEMU_HALF_PAIRWISE2(S, P, __hmin2_nan, __hmin_nan)                                               \
    CUDAEMU_HALF_FN P __hfma2(P a, P b, P c) { return P(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); } \
    CUDAEMU_HALF_FN P __hfma2_sat(P a, P b, P c) { return P(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y)); } \
    CUDAEMU_HALF_FN P __hfma2_relu(P a, P b, P c) { return P(__hfma_relu(a.x, b.x, c.x), __hfma_relu(a.y, b.y, c.y)); } \
    /* Complex multiply-add: (a.x + i a.y)(b.x + i b.y) + c. */                                        \
    CUDAEMU_HALF_FN P __hcmadd(P a, P b, P c)                                                          \
    {                                                                                                   \
        return P(__hfma(a.x, b.x, __hfma(__hneg(a.y), b.y, c.x)), __hfma(a.x, b.y, __hfma(a.y, b.x, c.y))); \
    }                                                                                                   \
    CUDAEMU_HALF_FN P __hneg2(P a) { return P(__hneg(a.x), __hneg(a.y)); }                             \
    CUDAEMU_HALF_FN P __habs2(P a) { return P(__habs(a.x), __habs(a.y)); }                             \
    CUDAEMU_HALF_FN P __hisnan2(P a) { return P(S(__hisnan(a.x) ? 1.0f : 0.0f), S(__hisnan(a.y) ? 1.0f : 0.0f)); } \
    CUDAEMU_HALF_FN P __lowhigh2highlow(P a) { return P(a.y, a.x); }                                   \
    CUDAEMU_HALF_PAIR_COMPARISON(S, P, eq, __heq)                                                       \
    CUDAEMU_HALF_PAIR_COMPARISON(S, P, ne, __hne)                                                       \
    CUDAEMU_HALF_PAIR_COMPARISON(S, P, lt, __hlt)                                                       \
    CUDAEMU_HALF_PAIR_COMPARISON(S, P, le, __hle)                                                       \
    CUDAEMU_HALF_PAIR_COMPARISON(S, P, gt, __hgt)                                                       \
    CUDAEMU_HALF_PAIR_COMPARISON(S, P, ge, __hge)                                                       \
    CUDAEMU_HALF_PAIR_COMPARISON(S, P, equ, __hequ)                                                     \
    CUDAEMU_HALF_PAIR_COMPARISON(S, P, neu, __hneu)                                                     \
    CUDAEMU_HALF_PAIR_COMPARISON(S, P, ltu, __hltu)                                                     \
    CUDAEMU_HALF_PAIR_COMPARISON(S, P, leu, __hleu)                                                     \
    CUDAEMU_HALF_PAIR_COMPARISON(S, P, gtu, __hgtu)                                                     \
    CUDAEMU_HALF_PAIR_COMPARISON(S, P, geu, __hgeu)                                                     \
    /* Operators, as CUDA's headers define them for C++. */                                           \
    CUDAEMU_HALF_FN S operator+(S a, S b) { return __hadd(a, b); }                                     \
    CUDAEMU_HALF_FN S operator-(S a, S b) { return __hsub(a, b); }                                     \
    CUDAEMU_HALF_FN S operator*(S a, S b) { return __hmul(a, b); }                                     \
    CUDAEMU_HALF_FN S operator/(S a, S b) { return __hdiv(a, b); }                                     \
    CUDAEMU_HALF_FN S operator-(S a) { return __hneg(a); }                                             \
    CUDAEMU_HALF_FN S operator+(S a) { return a; }                                                     \
    CUDAEMU_HALF_FN S &operator+=(S &a, S b) { return a = __hadd(a, b); }                              \
    CUDAEMU_HALF_FN S &operator-=(S &a, S b) { return a = __hsub(a, b); }                              \
    CUDAEMU_HALF_FN S &operator*=(S &a, S b) { return a = __hmul(a, b); }                              \
    CUDAEMU_HALF_FN S &operator/=(S &a, S b) { return a = __hdiv(a, b); }                              \
    CUDAEMU_HALF_FN S &operator++(S &a) { return a = __hadd(a, NS::make(1.0)); }                       \
    CUDAEMU_HALF_FN S &operator--(S &a) { return a = __hsub(a, NS::make(1.0)); }                       \
    CUDAEMU_HALF_FN S operator++(S &a, int) { S old = a; ++a; return old; }                            \
    CUDAEMU_HALF_FN S operator--(S &a, int) { S old = a; --a; return old; }                            \
    CUDAEMU_HALF_FN bool operator==(S a, S b) { return __heq(a, b); }                                  \
    CUDAEMU_HALF_FN bool operator!=(S a, S b) { return __hneu(a, b); }                                 \
    CUDAEMU_HALF_FN bool operator<(S a, S b) { return __hlt(a, b); }                                   \
    CUDAEMU_HALF_FN bool operator<=(S a, S b) { return __hle(a, b); }                                  \
    CUDAEMU_HALF_FN bool operator>(S a, S b) { return __hgt(a, b); }                                   \
    CUDAEMU_HALF_FN bool operator>=(S a, S b) { return __hge(a, b); }                                  \
    CUDAEMU_HALF_FN P operator+(P a, P b) { return __hadd2(a, b); }                                    \
    CUDAEMU_HALF_FN P operator-(P a, P b) { return __hsub2(a, b); }                                    \
    CUDAEMU_HALF_FN P operator*(P a, P b) { return __hmul2(a, b); }                                    \
    CUDAEMU_HALF_FN P operator/(P a, P b) { return __h2div(a, b); }                                    \
    CUDAEMU_HALF_FN P operator-(P a) { return __hneg2(a); }                                            \
    CUDAEMU_HALF_FN P operator+(P a) { return a; }                                                     \
    CUDAEMU_HALF_FN P &operator+=(P &a, P b) { return a = __hadd2(a, b); }                             \
    CUDAEMU_HALF_FN P &operator-=(P &a, P b) { return a = __hsub2(a, b); }                             \
    CUDAEMU_HALF_FN P &operator*=(P &a, P b) { return a = __hmul2(a, b); }                             \
    CUDAEMU_HALF_FN P &operator/=(P &a, P b) { return a = __h2div(a, b); }                             \
    CUDAEMU_HALF_FN bool operator==(P a, P b) { return __hbeq2(a, b); }                                \
    CUDAEMU_HALF_FN bool operator!=(P a, P b) { return __hbneu2(a, b); }                               \
    CUDAEMU_HALF_FN bool operator<(P a, P b) { return __hblt2(a, b); }                                 \
    CUDAEMU_HALF_FN bool operator<=(P a, P b) { return __hble2(a, b); }                                \
    CUDAEMU_HALF_FN bool operator>(P a, P b) { return __hbgt2(a, b); }                                 \
    CUDAEMU_HALF_FN bool operator>=(P a, P b) { return __hbge2(a, b); }                                \
    /* Atomics: a compare-and-swap loop on the bits, one rounding per operation. */                    \
    inline S atomicAdd(S *address, S value)                                                            \
    {                                                                                                   \
        return ::cudaemu::atomic_update_float<S, unsigned short>(address, [value](S old) { return __hadd(old, value); }); \
    }                                                                                                   \
    inline P atomicAdd(P *address, P value)                                                            \
    {                                                                                                   \
        return ::cudaemu::atomic_update_float<P, unsigned int>(address, [value](P old) { return __hadd2(old, value); }); \
    }                                                                                                   \
    inline S atomicMax(S *address, S value)                                                            \
    {                                                                                                   \
        return ::cudaemu::atomic_update_float<S, unsigned short>(address, [value](S old) { return __hmax(old, value); }); \
    }                                                                                                   \
    inline S atomicMin(S *address, S value)                                                            \
    {                                                                                                   \
        return ::cudaemu::atomic_update_float<S, unsigned short>(address, [value](S old) { return __hmin(old, value); }); \
    }                                                                                                   \
    inline S atomicAdd_block(S *address, S value) { return atomicAdd(address, value); }                \
    inline S atomicAdd_system(S *address, S value) { return atomicAdd(address, value); }               \
    inline P atomicAdd_block(P *address, P value) { return atomicAdd(address, value); }                \
    inline P atomicAdd_system(P *address, P value) { return atomicAdd(address, value); }
