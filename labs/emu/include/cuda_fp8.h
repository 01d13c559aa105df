// 8-bit floating point as CUDA's cuda_fp8.h offers it: the E4M3 and E5M2 formats (OCP's FP8;
// NVIDIA's transformer-engine formats), the storage types, the __nv_cvt_* conversions and the
// classes __nv_fp8_e4m3, __nv_fp8_e5m2 with their x2 and x4 packs. Conversions to fp8 round to
// nearest even, once; __NV_SATFINITE turns what is past the largest finite value (448 in E4M3,
// 57344 in E5M2; infinity too) into it, __NV_NOSAT into NaN (E4M3 has no infinity) or infinity
// (E5M2). NaN stays NaN: 0x7f in E4M3, 0x7e in E5M2, with its sign. The classes convert with
// __NV_SATFINITE, as CUDA's do, and only explicitly. Not offered: E8M0 and the FP6/FP4
// formats of CUDA 12.8.
#pragma once

#include <cmath>

#include "cuda_bf16.h"
#include "cuda_emu/qualifiers.h"
#include "cuda_fp16.h"
#include "vector_types.h"

typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short int __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;
typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

namespace cudaemu {
namespace fp8 {
inline __nv_fp8_storage_t encode(double value, __nv_saturation_t saturate, __nv_fp8_interpretation_t format)
{
    const bool e4m3 = format == __NV_E4M3;
    const int mantissa_bits = e4m3 ? 3 : 2;
    const int bias = e4m3 ? 7 : 15;
    const int largest_finite = e4m3 ? 0x7e : 0x7b;
    const int sign = std::signbit(value) ? 0x80 : 0;
    if (std::isnan(value)) return (__nv_fp8_storage_t)(sign | (e4m3 ? 0x7f : 0x7e));
    const double magnitude = std::fabs(value);
    long code;
    if (std::isinf(magnitude)) {
        code = largest_finite + 1;
    } else if (magnitude < std::ldexp(1.0, 1 - bias)) {
        // Subnormal: a multiple of the smallest one; rounding up to 2^mantissa_bits of them is
        // the smallest normal number's code, as it should be.
        code = std::lrint(std::ldexp(magnitude, bias - 1 + mantissa_bits));
    } else {
        int exponent;
        const double fraction = std::frexp(magnitude, &exponent);  // magnitude = fraction * 2^exponent
        const long significand = std::lrint(std::ldexp(fraction, mantissa_bits + 1));  // in [2^m, 2^(m+1)]
        // A significand rounded up to 2^(m+1) carries into the exponent by the addition.
        code = ((long)(exponent - 1 + bias) << mantissa_bits) + (significand - (1L << mantissa_bits));
    }
    if (code > largest_finite)
        code = saturate == __NV_SATFINITE ? largest_finite : (e4m3 ? 0x7f : 0x7c);
    return (__nv_fp8_storage_t)(sign | code);
}

// Every fp8 value is a half exactly.
inline unsigned short decode_to_half_bits(__nv_fp8_storage_t bits, __nv_fp8_interpretation_t format)
{
    if (format == __NV_E5M2) return (unsigned short)(bits << 8);  // E5M2 is a half's upper byte
    const int sign = bits & 0x80;
    if ((bits & 0x7f) == 0x7f) return (unsigned short)((sign << 8) | 0x7fff);
    const int exponent = (bits >> 3) & 0xf;
    const int mantissa = bits & 7;
    const double magnitude = exponent == 0 ? std::ldexp((double)mantissa, -9)
                                           : std::ldexp(1.0 + mantissa / 8.0, exponent - 7);
    return cudaemu::fp16::from_double(sign ? -magnitude : magnitude);
}

inline float decode(__nv_fp8_storage_t bits, __nv_fp8_interpretation_t format)
{
    return cudaemu::fp16::to_float(decode_to_half_bits(bits, format));
}
}  // namespace fp8
}  // namespace cudaemu

#define CUDAEMU_FP8 __host__ __device__ inline
CUDAEMU_FP8 __nv_fp8_storage_t __nv_cvt_double_to_fp8(double x, __nv_saturation_t saturate, __nv_fp8_interpretation_t format)
{
    return cudaemu::fp8::encode(x, saturate, format);
}
CUDAEMU_FP8 __nv_fp8_storage_t __nv_cvt_float_to_fp8(float x, __nv_saturation_t saturate, __nv_fp8_interpretation_t format)
{
    return cudaemu::fp8::encode(x, saturate, format);
}
CUDAEMU_FP8 __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(__half_raw x, __nv_saturation_t saturate, __nv_fp8_interpretation_t format)
{
    return cudaemu::fp8::encode(cudaemu::fp16::to_float(x.x), saturate, format);
}
CUDAEMU_FP8 __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw x, __nv_saturation_t saturate,
                                                          __nv_fp8_interpretation_t format)
{
    return cudaemu::fp8::encode(cudaemu::bf16::to_float(x.x), saturate, format);
}
// A pair packs its first element in the low byte.
CUDAEMU_FP8 __nv_fp8x2_storage_t cudaemu_fp8_pack(__nv_fp8_storage_t low, __nv_fp8_storage_t high)
{
    return (__nv_fp8x2_storage_t)(low | (high << 8));
}
CUDAEMU_FP8 __nv_fp8x2_storage_t __nv_cvt_double2_to_fp8x2(double2 x, __nv_saturation_t saturate,
                                                          __nv_fp8_interpretation_t format)
{
    return cudaemu_fp8_pack(__nv_cvt_double_to_fp8(x.x, saturate, format), __nv_cvt_double_to_fp8(x.y, saturate, format));
}
CUDAEMU_FP8 __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(float2 x, __nv_saturation_t saturate,
                                                         __nv_fp8_interpretation_t format)
{
    return cudaemu_fp8_pack(__nv_cvt_float_to_fp8(x.x, saturate, format), __nv_cvt_float_to_fp8(x.y, saturate, format));
}
CUDAEMU_FP8 __nv_fp8x2_storage_t __nv_cvt_halfraw2_to_fp8x2(__half2_raw x, __nv_saturation_t saturate,
                                                           __nv_fp8_interpretation_t format)
{
    return cudaemu_fp8_pack(__nv_cvt_halfraw_to_fp8(__half_raw{x.x}, saturate, format),
                            __nv_cvt_halfraw_to_fp8(__half_raw{x.y}, saturate, format));
}
CUDAEMU_FP8 __nv_fp8x2_storage_t __nv_cvt_bfloat16raw2_to_fp8x2(__nv_bfloat162_raw x, __nv_saturation_t saturate,
                                                               __nv_fp8_interpretation_t format)
{
    return cudaemu_fp8_pack(__nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw{x.x}, saturate, format),
                            __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw{x.y}, saturate, format));
}
CUDAEMU_FP8 __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t x, __nv_fp8_interpretation_t format)
{
    return __half_raw{cudaemu::fp8::decode_to_half_bits(x, format)};
}
CUDAEMU_FP8 __half2_raw __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t x, __nv_fp8_interpretation_t format)
{
    return __half2_raw{cudaemu::fp8::decode_to_half_bits((__nv_fp8_storage_t)(x & 0xff), format),
                       cudaemu::fp8::decode_to_half_bits((__nv_fp8_storage_t)(x >> 8), format)};
}

// The classes: one fp8 value, a pair, a quadruple of one format (FORMAT is __NV_E4M3 or
// __NV_E5M2), converting with __NV_SATFINITE.
#define CUDAEMU_FP8_CLASSES(NAME, FORMAT)                                                                   \
    struct __align__(1) __nv_fp8_##NAME {                                                                    \
        __nv_fp8_storage_t __x;                                                                              \
        __nv_fp8_##NAME() = default;                                                                         \
        CUDAEMU_FP8 explicit __nv_fp8_##NAME(double v) : __x(__nv_cvt_double_to_fp8(v, __NV_SATFINITE, FORMAT)) {} \
        CUDAEMU_FP8 explicit __nv_fp8_##NAME(float v) : __x(__nv_cvt_float_to_fp8(v, __NV_SATFINITE, FORMAT)) {} \
        CUDAEMU_FP8 explicit __nv_fp8_##NAME(__half v) : __x(__nv_cvt_halfraw_to_fp8(v, __NV_SATFINITE, FORMAT)) {} \
        CUDAEMU_FP8 explicit __nv_fp8_##NAME(__nv_bfloat16 v)                                                \
            : __x(__nv_cvt_bfloat16raw_to_fp8(v, __NV_SATFINITE, FORMAT)) {}                                 \
        CUDAEMU_FP8 explicit __nv_fp8_##NAME(int v) : __nv_fp8_##NAME((float)v) {}                           \
        CUDAEMU_FP8 explicit __nv_fp8_##NAME(unsigned v) : __nv_fp8_##NAME((float)v) {}                      \
        CUDAEMU_FP8 explicit __nv_fp8_##NAME(long v) : __nv_fp8_##NAME((float)v) {}                          \
        CUDAEMU_FP8 explicit __nv_fp8_##NAME(unsigned long v) : __nv_fp8_##NAME((float)v) {}                 \
        CUDAEMU_FP8 explicit __nv_fp8_##NAME(long long v) : __nv_fp8_##NAME((float)v) {}                     \
        CUDAEMU_FP8 explicit __nv_fp8_##NAME(unsigned long long v) : __nv_fp8_##NAME((float)v) {}            \
        CUDAEMU_FP8 explicit __nv_fp8_##NAME(short v) : __nv_fp8_##NAME((float)v) {}                         \
        CUDAEMU_FP8 explicit __nv_fp8_##NAME(unsigned short v) : __nv_fp8_##NAME((float)v) {}                \
        CUDAEMU_FP8 explicit operator __half() const { return __nv_cvt_fp8_to_halfraw(__x, FORMAT); }      \
        CUDAEMU_FP8 explicit operator float() const { return cudaemu::fp8::decode(__x, FORMAT); }          \
        CUDAEMU_FP8 explicit operator double() const { return cudaemu::fp8::decode(__x, FORMAT); }         \
        CUDAEMU_FP8 explicit operator __nv_bfloat16() const { return __nv_bfloat16(cudaemu::fp8::decode(__x, FORMAT)); } \
        CUDAEMU_FP8 explicit operator bool() const { return (__x & 0x7f) != 0; }                           \
        CUDAEMU_FP8 explicit operator int() const { return cudaemu::saturating_int<int>(std::trunc(float(*this))); } \
        CUDAEMU_FP8 explicit operator unsigned() const                                                      \
        {                                                                                                    \
            return cudaemu::saturating_int<unsigned>(std::trunc(float(*this)));                              \
        }                                                                                                    \
        CUDAEMU_FP8 explicit operator long long() const                                                     \
        {                                                                                                    \
            return cudaemu::saturating_int<long long>(std::trunc(float(*this)));                             \
        }                                                                                                    \
    };                                                                                                       \
    struct __align__(2) __nv_fp8x2_##NAME {                                                                  \
        __nv_fp8x2_storage_t __x;                                                                            \
        __nv_fp8x2_##NAME() = default;                                                                       \
        CUDAEMU_FP8 explicit __nv_fp8x2_##NAME(double2 v) : __x(__nv_cvt_double2_to_fp8x2(v, __NV_SATFINITE, FORMAT)) {} \
        CUDAEMU_FP8 explicit __nv_fp8x2_##NAME(float2 v) : __x(__nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, FORMAT)) {} \
        CUDAEMU_FP8 explicit __nv_fp8x2_##NAME(__half2 v) : __x(__nv_cvt_halfraw2_to_fp8x2(v, __NV_SATFINITE, FORMAT)) {} \
        CUDAEMU_FP8 explicit __nv_fp8x2_##NAME(__nv_bfloat162 v)                                             \
            : __x(__nv_cvt_bfloat16raw2_to_fp8x2(v, __NV_SATFINITE, FORMAT)) {}                              \
        CUDAEMU_FP8 explicit operator __half2() const { return __nv_cvt_fp8x2_to_halfraw2(__x, FORMAT); }  \
        CUDAEMU_FP8 explicit operator float2() const                                                        \
        {                                                                                                    \
            return make_float2(cudaemu::fp8::decode((__nv_fp8_storage_t)(__x & 0xff), FORMAT),              \
                               cudaemu::fp8::decode((__nv_fp8_storage_t)(__x >> 8), FORMAT));               \
        }                                                                                                    \
    };                                                                                                       \
    struct __align__(4) __nv_fp8x4_##NAME {                                                                  \
        __nv_fp8x4_storage_t __x;                                                                            \
        __nv_fp8x4_##NAME() = default;                                                                       \
        CUDAEMU_FP8 explicit __nv_fp8x4_##NAME(double4 v)                                                    \
            : __x(__nv_cvt_double2_to_fp8x2(make_double2(v.x, v.y), __NV_SATFINITE, FORMAT)                  \
                  | (__nv_fp8x4_storage_t)__nv_cvt_double2_to_fp8x2(make_double2(v.z, v.w), __NV_SATFINITE, FORMAT) << 16) {} \
        CUDAEMU_FP8 explicit __nv_fp8x4_##NAME(float4 v)                                                     \
            : __x(__nv_cvt_float2_to_fp8x2(make_float2(v.x, v.y), __NV_SATFINITE, FORMAT)                    \
                  | (__nv_fp8x4_storage_t)__nv_cvt_float2_to_fp8x2(make_float2(v.z, v.w), __NV_SATFINITE, FORMAT) << 16) {} \
        CUDAEMU_FP8 explicit __nv_fp8x4_##NAME(__half2 low, __half2 high)                                    \
            : __x(__nv_cvt_halfraw2_to_fp8x2(low, __NV_SATFINITE, FORMAT)                                    \
                  | (__nv_fp8x4_storage_t)__nv_cvt_halfraw2_to_fp8x2(high, __NV_SATFINITE, FORMAT) << 16) {}  \
        CUDAEMU_FP8 explicit __nv_fp8x4_##NAME(__nv_bfloat162 low, __nv_bfloat162 high)                      \
            : __x(__nv_cvt_bfloat16raw2_to_fp8x2(low, __NV_SATFINITE, FORMAT)                                \
                  | (__nv_fp8x4_storage_t)__nv_cvt_bfloat16raw2_to_fp8x2(high, __NV_SATFINITE, FORMAT) << 16) {} \
        CUDAEMU_FP8 explicit operator float4() const                                                        \
        {                                                                                                    \
            return make_float4(cudaemu::fp8::decode((__nv_fp8_storage_t)(__x & 0xff), FORMAT),              \
                               cudaemu::fp8::decode((__nv_fp8_storage_t)((__x >> 8) & 0xff), FORMAT),       \
                               cudaemu::fp8::decode((__nv_fp8_storage_t)((__x >> 16) & 0xff), FORMAT),      \
                               cudaemu::fp8::decode((__nv_fp8_storage_t)(__x >> 24), FORMAT));              \
        }                                                                                                    \
    };

CUDAEMU_FP8_CLASSES(e4m3, __NV_E4M3)
CUDAEMU_FP8_CLASSES(e5m2, __NV_E5M2)
#undef CUDAEMU_FP8_CLASSES
#undef CUDAEMU_FP8
