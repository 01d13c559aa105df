// Half precision (IEEE 754 binary16) as CUDA's cuda_fp16.h offers it: __half and __half2 with
// their conversions; the arithmetic, comparisons, math functions, operators and atomics are
// cuda_emu/half_ops.h's, shared with cuda_bf16.h (which says how they round). Storage is the
// 16-bit pattern, so a __half is 2 bytes as on a GPU and copies to and from device memory keep
// their bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "cuda_emu/half_ops.h"
#include "cuda_emu/narrowing.h"
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

// double -> half with one rounding.
inline unsigned short from_double(double value) { return from_float(sticky_float(value)); }
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
inline __half from_bits(unsigned short bits) { return __half_raw{bits}; }
}  // namespace fp16
}  // namespace cudaemu

CUDAEMU_HALF_CONVERSIONS(__half, __half2, cudaemu::fp16, half, half2)
CUDAEMU_HALF_OPS(__half, __half2, cudaemu::fp16)
