// Arithmetic with a chosen rounding (CUDA's __fadd_rd, __dmul_ru, __fsqrt_rz and kin): the
// result is the exact result rounded down (rd), up (ru) or toward zero (rz). Each is computed
// in round-to-nearest, with the rounding error found exactly (Knuth's TwoSum; fma for products,
// quotients and square roots); where the error says the exact result lies on the other side,
// the result steps one ulp. No change of the CPU's rounding mode, which other fibers share.
#pragma once

#include <cmath>

namespace cudaemu {
namespace rounding {
enum Mode { Down, Up, TowardZero };

// `nearest` is the round-to-nearest result; `sign` of (exact - nearest): <0, 0 or >0.
template <typename T>
inline T directed(T nearest, T sign, Mode mode)
{
    if (!std::isfinite(nearest) || sign == 0) return nearest;
    const bool exact_below = sign < 0;
    if (mode == TowardZero) mode = nearest > 0 ? Down : Up;
    if (mode == Down && exact_below) return std::nextafter(nearest, -INFINITY);
    if (mode == Up && !exact_below) return std::nextafter(nearest, INFINITY);
    return nearest;
}
template <typename T>
inline T add(T a, T b, Mode mode)
{
    const T s = a + b, bb = s - a;
    const T error = (a - (s - bb)) + (b - bb);
    return directed(s, error, mode);
}
template <typename T>
inline T mul(T a, T b, Mode mode)
{
    const T p = a * b;
    return directed(p, (T)std::fma(a, b, -p), mode);
}
template <typename T>
inline T div(T a, T b, Mode mode)
{
    const T q = a / b;
    const T remainder = (T)std::fma(-q, b, a);  // exact: a - q*b
    return directed(q, b > 0 ? remainder : -remainder, mode);
}
template <typename T>
inline T sqrt(T a, Mode mode)
{
    const T s = std::sqrt(a);
    return directed(s, (T)std::fma(-s, s, a), mode);
}
template <typename T>
inline T fma(T a, T b, T c, Mode mode)
{
    // The exact a*b + c: p + e (e from fma), plus c; the sign of what rounding left out.
    const T r = (T)std::fma(a, b, c);
    const T p = a * b, e = (T)std::fma(a, b, -p);
    const T rest_hi = (p - r) + c;  // p + c - r, close to exact where r is near p + c
    return directed(r, rest_hi + e, mode);
}
}  // namespace rounding
}  // namespace cudaemu

// One type's set: T float (prefix f, fma spelled __fmaf) or double (d, __fma).
#define CUDAEMU_ROUNDED_OF(T, prefix, fma_name, suffix, mode)                                     \
    inline T __##prefix##add_##suffix(T x, T y) { return ::cudaemu::rounding::add(x, y, mode); }  \
    inline T __##prefix##sub_##suffix(T x, T y) { return ::cudaemu::rounding::add(x, -y, mode); } \
    inline T __##prefix##mul_##suffix(T x, T y) { return ::cudaemu::rounding::mul(x, y, mode); }  \
    inline T __##prefix##div_##suffix(T x, T y) { return ::cudaemu::rounding::div(x, y, mode); }  \
    inline T __##prefix##rcp_##suffix(T x) { return ::cudaemu::rounding::div((T)1, x, mode); }    \
    inline T __##prefix##sqrt_##suffix(T x) { return ::cudaemu::rounding::sqrt(x, mode); }        \
    inline T fma_name##_##suffix(T x, T y, T z) { return ::cudaemu::rounding::fma(x, y, z, mode); }
#define CUDAEMU_ROUNDED(suffix, mode)                  \
    CUDAEMU_ROUNDED_OF(float, f, __fmaf, suffix, mode) \
    CUDAEMU_ROUNDED_OF(double, d, __fma, suffix, mode)
CUDAEMU_ROUNDED(rd, ::cudaemu::rounding::Down)
CUDAEMU_ROUNDED(ru, ::cudaemu::rounding::Up)
CUDAEMU_ROUNDED(rz, ::cudaemu::rounding::TowardZero)
#undef CUDAEMU_ROUNDED
#undef CUDAEMU_ROUNDED_OF

// The round-to-nearest spellings math_intrinsics.h does not have.
inline double __dsub_rn(double x, double y) { return x - y; }
inline double __ddiv_rn(double x, double y) { return x / y; }
inline double __drcp_rn(double x) { return 1.0 / x; }
inline double __dsqrt_rn(double x) { return std::sqrt(x); }
