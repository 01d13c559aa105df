// Half precision (IEEE 754 binary16) as CUDA's cuda_fp16.h offers it: __half and __half2 with
// their conversions, arithmetic, comparisons and operators. Storage is the 16-bit pattern, so
// a __half is 2 bytes as on a GPU and copies to and from device memory keep their bits. Each
// operation computes in double (where the exact result of a sum, difference or product of two
// halves fits) and rounds once to nearest even, which is what the GPU's half instructions
// return; division and fma round the double result (a rare double rounding may differ in the
// last bit from the GPU's).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "cuda_emu/qualifiers.h"
#include "vector_types.h"

struct __half_raw {
    unsigned short x;
};
struct __half2_raw {
    unsigned short x, y;
};

namespace cudaemu {
namespace fp16 {
inline unsigned short from_float(float value)
{
    std::uint32_t bits;
    std::memcpy(&bits, &value, 4);
    const std::uint32_t sign = (bits >> 16) & 0x8000u;
    const std::uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude >= 0x7f800000u)  // inf or NaN (a NaN stays a quiet NaN)
        return (unsigned short)(sign | (magnitude > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (magnitude >= 0x477ff000u)  // rounds to above 65504: infinity
        return (unsigned short)(sign | 0x7c00u);
    if (magnitude < 0x38800000u) {  // below 2^-14: a subnormal half (or zero)
        // value = mantissa * 2^(exponent - 150); in units of 2^-24, mantissa >> (126 - exponent).
        const std::uint32_t shift = 126 - (magnitude >> 23);
        if (shift > 24) return (unsigned short)sign;
        const std::uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
        const std::uint32_t result = mantissa >> shift;
        const std::uint32_t rest = mantissa & ((1u << shift) - 1);
        const std::uint32_t half_way = 1u << (shift - 1);
        const bool up = rest > half_way || (rest == half_way && (result & 1));
        return (unsigned short)(sign | (result + up));
    }
    const std::uint32_t rebased = magnitude - 0x38000000u;  // exponent 127 -> 15
    std::uint32_t result = rebased >> 13;
    const std::uint32_t rest = rebased & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (result & 1))) ++result;
    return (unsigned short)(sign | result);
}

inline float to_float(unsigned short half)
{
    const std::uint32_t sign = (std::uint32_t)(half & 0x8000u) << 16;
    const std::uint32_t exponent = (half >> 10) & 0x1fu;
    std::uint32_t mantissa = half & 0x3ffu;
    std::uint32_t bits;
    if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent == 0) {
        if (mantissa == 0) {
            bits = sign;
        } else {  // subnormal: normalize
            int e = -1;
            do {
                ++e;
                mantissa <<= 1;
            } while (!(mantissa & 0x400u));
            bits = sign | ((std::uint32_t)(112 - e) << 23) | ((mantissa & 0x3ffu) << 13);
        }
    } else {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    }
    float value;
    std::memcpy(&value, &bits, 4);
    return value;
}

// double -> half with one rounding: through float only when float holds the value exactly.
inline unsigned short from_double(double value)
{
    const float narrowed = (float)value;
    if ((double)narrowed == value || std::isnan(value)) return from_float(narrowed);
    // Not exact in float: nudge the float toward the true value's side so that a tie in half
    // cannot be created by the first rounding.
    float toward = std::nextafter(narrowed, value > (double)narrowed ? INFINITY : -INFINITY);
    std::uint32_t a, b;
    std::memcpy(&a, &narrowed, 4);
    std::memcpy(&b, &toward, 4);
    const std::uint32_t odd = (a & 1u) ? a : b;  // the odd neighbour marks "not a tie"
    float sticky;
    std::memcpy(&sticky, &odd, 4);
    return from_float(sticky);
}
}  // namespace fp16
}  // namespace cudaemu

struct __half {
    unsigned short __x;
    __half() = default;
    __host__ __device__ __half(const __half_raw &raw) : __x(raw.x) {}
    __host__ __device__ __half(float value) : __x(cudaemu::fp16::from_float(value)) {}
    __host__ __device__ __half(double value) : __x(cudaemu::fp16::from_double(value)) {}
    __host__ __device__ __half(int value) : __x(cudaemu::fp16::from_double(value)) {}
    __host__ __device__ __half(unsigned value) : __x(cudaemu::fp16::from_double(value)) {}
    __host__ __device__ __half(long long value) : __x(cudaemu::fp16::from_double((double)value)) {}
    __host__ __device__ __half(short value) : __x(cudaemu::fp16::from_double(value)) {}
    __host__ __device__ operator float() const { return cudaemu::fp16::to_float(__x); }
    __host__ __device__ operator __half_raw() const { return __half_raw{__x}; }
    __host__ __device__ __half &operator=(float value) { __x = cudaemu::fp16::from_float(value); return *this; }
    __host__ __device__ __half &operator=(const __half_raw &raw) { __x = raw.x; return *this; }
};
typedef __half half;

struct __align__(4) __half2 {
    __half x, y;
    __half2() = default;
    __host__ __device__ __half2(const __half &a, const __half &b) : x(a), y(b) {}
    __host__ __device__ __half2(const __half2_raw &raw) : x(__half_raw{raw.x}), y(__half_raw{raw.y}) {}
    __host__ __device__ operator __half2_raw() const { return __half2_raw{x.__x, y.__x}; }
};
typedef __half2 half2;

namespace cudaemu {
namespace fp16 {
inline __half make(double value) { return __half_raw{from_double(value)}; }
inline double wide(__half value) { return to_float(value.__x); }
}  // namespace fp16
}  // namespace cudaemu

#define CUDAEMU_FP16 __host__ __device__ inline
// Conversions.
CUDAEMU_FP16 __half __float2half(float a) { return __half(a); }
CUDAEMU_FP16 __half __float2half_rn(float a) { return __half(a); }
CUDAEMU_FP16 __half __double2half(double a) { return __half(a); }
CUDAEMU_FP16 float __half2float(__half a) { return (float)a; }
CUDAEMU_FP16 __half2 __float2half2_rn(float a) { return __half2(__half(a), __half(a)); }
CUDAEMU_FP16 __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
CUDAEMU_FP16 __half2 __float22half2_rn(float2 a) { return __half2(__half(a.x), __half(a.y)); }
CUDAEMU_FP16 float2 __half22float2(__half2 a) { return make_float2((float)a.x, (float)a.y); }
CUDAEMU_FP16 __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
CUDAEMU_FP16 __half2 __half2half2(__half a) { return __half2(a, a); }
CUDAEMU_FP16 __half __low2half(__half2 a) { return a.x; }
CUDAEMU_FP16 __half __high2half(__half2 a) { return a.y; }
CUDAEMU_FP16 float __low2float(__half2 a) { return (float)a.x; }
CUDAEMU_FP16 float __high2float(__half2 a) { return (float)a.y; }
CUDAEMU_FP16 __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
CUDAEMU_FP16 __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
CUDAEMU_FP16 __half2 __low2half2(__half2 a) { return __half2(a.x, a.x); }
CUDAEMU_FP16 __half2 __high2half2(__half2 a) { return __half2(a.y, a.y); }
CUDAEMU_FP16 __half __int2half_rn(int a) { return __half(a); }
CUDAEMU_FP16 int __half2int_rz(__half a) { return (int)(float)a; }
CUDAEMU_FP16 int __half2int_rn(__half a) { return (int)std::nearbyint((float)a); }
CUDAEMU_FP16 unsigned short __half_as_ushort(__half a) { return a.__x; }
CUDAEMU_FP16 short __half_as_short(__half a) { return (short)a.__x; }
CUDAEMU_FP16 __half __ushort_as_half(unsigned short a) { return __half_raw{a}; }
CUDAEMU_FP16 __half __short_as_half(short a) { return __half_raw{(unsigned short)a}; }

// Arithmetic: one rounding to half.
CUDAEMU_FP16 __half __hadd(__half a, __half b) { return cudaemu::fp16::make(cudaemu::fp16::wide(a) + cudaemu::fp16::wide(b)); }
CUDAEMU_FP16 __half __hsub(__half a, __half b) { return cudaemu::fp16::make(cudaemu::fp16::wide(a) - cudaemu::fp16::wide(b)); }
CUDAEMU_FP16 __half __hmul(__half a, __half b) { return cudaemu::fp16::make(cudaemu::fp16::wide(a) * cudaemu::fp16::wide(b)); }
CUDAEMU_FP16 __half __hdiv(__half a, __half b) { return cudaemu::fp16::make(cudaemu::fp16::wide(a) / cudaemu::fp16::wide(b)); }
CUDAEMU_FP16 __half __hfma(__half a, __half b, __half c)
{
    return cudaemu::fp16::make(std::fma(cudaemu::fp16::wide(a), cudaemu::fp16::wide(b), cudaemu::fp16::wide(c)));
}
CUDAEMU_FP16 __half __hneg(__half a) { return __half_raw{(unsigned short)(a.__x ^ 0x8000u)}; }
CUDAEMU_FP16 __half __habs(__half a) { return __half_raw{(unsigned short)(a.__x & 0x7fffu)}; }
CUDAEMU_FP16 bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
CUDAEMU_FP16 int __hisinf(__half a) { return (a.__x & 0x7fffu) == 0x7c00u ? ((a.__x & 0x8000u) ? -1 : 1) : 0; }
CUDAEMU_FP16 bool __heq(__half a, __half b) { return (float)a == (float)b; }
CUDAEMU_FP16 bool __hne(__half a, __half b) { return !__hisnan(a) && !__hisnan(b) && (float)a != (float)b; }
CUDAEMU_FP16 bool __hlt(__half a, __half b) { return (float)a < (float)b; }
CUDAEMU_FP16 bool __hle(__half a, __half b) { return (float)a <= (float)b; }
CUDAEMU_FP16 bool __hgt(__half a, __half b) { return (float)a > (float)b; }
CUDAEMU_FP16 bool __hge(__half a, __half b) { return (float)a >= (float)b; }
CUDAEMU_FP16 __half __hmax(__half a, __half b) { return __hisnan(a) ? b : __hisnan(b) ? a : ((float)a < (float)b ? b : a); }
CUDAEMU_FP16 __half __hmin(__half a, __half b) { return __hisnan(a) ? b : __hisnan(b) ? a : ((float)b < (float)a ? b : a); }
CUDAEMU_FP16 __half hsqrt(__half a) { return cudaemu::fp16::make(std::sqrt(cudaemu::fp16::wide(a))); }
CUDAEMU_FP16 __half hrsqrt(__half a) { return cudaemu::fp16::make(1.0 / std::sqrt(cudaemu::fp16::wide(a))); }
CUDAEMU_FP16 __half hrcp(__half a) { return cudaemu::fp16::make(1.0 / cudaemu::fp16::wide(a)); }
CUDAEMU_FP16 __half hexp(__half a) { return cudaemu::fp16::make(std::exp(cudaemu::fp16::wide(a))); }
CUDAEMU_FP16 __half hlog(__half a) { return cudaemu::fp16::make(std::log(cudaemu::fp16::wide(a))); }
CUDAEMU_FP16 __half hsin(__half a) { return cudaemu::fp16::make(std::sin(cudaemu::fp16::wide(a))); }
CUDAEMU_FP16 __half hcos(__half a) { return cudaemu::fp16::make(std::cos(cudaemu::fp16::wide(a))); }
CUDAEMU_FP16 __half hfloor(__half a) { return cudaemu::fp16::make(std::floor(cudaemu::fp16::wide(a))); }
CUDAEMU_FP16 __half hceil(__half a) { return cudaemu::fp16::make(std::ceil(cudaemu::fp16::wide(a))); }
CUDAEMU_FP16 __half htrunc(__half a) { return cudaemu::fp16::make(std::trunc(cudaemu::fp16::wide(a))); }

// The same on both halves of a __half2.
CUDAEMU_FP16 __half2 __hadd2(__half2 a, __half2 b) { return __half2(__hadd(a.x, b.x), __hadd(a.y, b.y)); }
CUDAEMU_FP16 __half2 __hsub2(__half2 a, __half2 b) { return __half2(__hsub(a.x, b.x), __hsub(a.y, b.y)); }
CUDAEMU_FP16 __half2 __hmul2(__half2 a, __half2 b) { return __half2(__hmul(a.x, b.x), __hmul(a.y, b.y)); }
CUDAEMU_FP16 __half2 __h2div(__half2 a, __half2 b) { return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
CUDAEMU_FP16 __half2 __hfma2(__half2 a, __half2 b, __half2 c)
{
    return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
CUDAEMU_FP16 __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
CUDAEMU_FP16 __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }
CUDAEMU_FP16 __half2 __hmax2(__half2 a, __half2 b) { return __half2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }
CUDAEMU_FP16 __half2 __hmin2(__half2 a, __half2 b) { return __half2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }
CUDAEMU_FP16 bool __hbeq2(__half2 a, __half2 b) { return __heq(a.x, b.x) && __heq(a.y, b.y); }

// Operators, as cuda_fp16.hpp defines them for C++.
CUDAEMU_FP16 __half operator+(__half a, __half b) { return __hadd(a, b); }
CUDAEMU_FP16 __half operator-(__half a, __half b) { return __hsub(a, b); }
CUDAEMU_FP16 __half operator*(__half a, __half b) { return __hmul(a, b); }
CUDAEMU_FP16 __half operator/(__half a, __half b) { return __hdiv(a, b); }
CUDAEMU_FP16 __half operator-(__half a) { return __hneg(a); }
CUDAEMU_FP16 __half operator+(__half a) { return a; }
CUDAEMU_FP16 __half &operator+=(__half &a, __half b) { return a = __hadd(a, b); }
CUDAEMU_FP16 __half &operator-=(__half &a, __half b) { return a = __hsub(a, b); }
CUDAEMU_FP16 __half &operator*=(__half &a, __half b) { return a = __hmul(a, b); }
CUDAEMU_FP16 __half &operator/=(__half &a, __half b) { return a = __hdiv(a, b); }
CUDAEMU_FP16 bool operator==(__half a, __half b) { return __heq(a, b); }
CUDAEMU_FP16 bool operator!=(__half a, __half b) { return __hne(a, b); }
CUDAEMU_FP16 bool operator<(__half a, __half b) { return __hlt(a, b); }
CUDAEMU_FP16 bool operator<=(__half a, __half b) { return __hle(a, b); }
CUDAEMU_FP16 bool operator>(__half a, __half b) { return __hgt(a, b); }
CUDAEMU_FP16 bool operator>=(__half a, __half b) { return __hge(a, b); }
CUDAEMU_FP16 __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
CUDAEMU_FP16 __half2 operator-(__half2 a, __half2 b) { return __hsub2(a, b); }
CUDAEMU_FP16 __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
CUDAEMU_FP16 __half2 operator/(__half2 a, __half2 b) { return __h2div(a, b); }
CUDAEMU_FP16 __half2 operator-(__half2 a) { return __hneg2(a); }
CUDAEMU_FP16 __half2 &operator+=(__half2 &a, __half2 b) { return a = __hadd2(a, b); }
CUDAEMU_FP16 __half2 &operator-=(__half2 &a, __half2 b) { return a = __hsub2(a, b); }
CUDAEMU_FP16 __half2 &operator*=(__half2 &a, __half2 b) { return a = __hmul2(a, b); }
CUDAEMU_FP16 bool operator==(__half2 a, __half2 b) { return __hbeq2(a, b); }
#undef CUDAEMU_FP16
