// bfloat16 as CUDA's cuda_bf16.h offers it: __nv_bfloat16 (nv_bfloat16) and its pair
// __nv_bfloat162, with their conversions; the arithmetic, comparisons, math functions,
// operators and atomics are cuda_emu/half_ops.h's, shared with cuda_fp16.h. A bfloat16 is the
// upper half of a float's bits (8 exponent bits, 7 stored significand bits), stored as that
// 16-bit pattern, so copies to and from device memory keep their bits. Conversions round to
// nearest even, once, and give NaN as 0x7fff, as the GPU's cvt.rn.bf16.f32 does.
#pragma once

#include <cstdint>

#include "cuda_emu/half_ops.h"
#include "cuda_emu/narrowing.h"
#include "cuda_emu/qualifiers.h"
#include "vector_types.h"

struct __nv_bfloat16_raw {
    unsigned short x;
};
struct __nv_bfloat162_raw {
    unsigned short x, y;
};

namespace cudaemu {
namespace bf16 {
inline unsigned short from_float(float value)
{
    const std::uint32_t bits = float_bits(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return 0x7fffu;
    // Round to nearest even on the lower 16 bits; a carry into the exponent is right, up to
    // infinity.
    return (unsigned short)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}
inline float to_float(unsigned short bits) { return bits_float((std::uint32_t)bits << 16); }
inline unsigned short from_double(double value) { return from_float(sticky_float(value)); }
}  // namespace bf16
}  // namespace cudaemu

struct __align__(2) __nv_bfloat16 {
    unsigned short __x;
    __nv_bfloat16() = default;
    __host__ __device__ __nv_bfloat16(const __nv_bfloat16_raw &raw) : __x(raw.x) {}
    __host__ __device__ __nv_bfloat16(float value) : __x(cudaemu::bf16::from_float(value)) {}
    __host__ __device__ __nv_bfloat16(double value) : __x(cudaemu::bf16::from_double(value)) {}
    __host__ __device__ __nv_bfloat16(int value) : __x(cudaemu::bf16::from_double(value)) {}
    __host__ __device__ __nv_bfloat16(unsigned value) : __x(cudaemu::bf16::from_double(value)) {}
    __host__ __device__ __nv_bfloat16(long long value) : __x(cudaemu::bf16::from_double((double)value)) {}
    __host__ __device__ __nv_bfloat16(unsigned long long value) : __x(cudaemu::bf16::from_double((double)value)) {}
    __host__ __device__ __nv_bfloat16(short value) : __x(cudaemu::bf16::from_double(value)) {}
    __host__ __device__ __nv_bfloat16(unsigned short value) : __x(cudaemu::bf16::from_double(value)) {}
    __host__ __device__ operator float() const { return cudaemu::bf16::to_float(__x); }
    __host__ __device__ operator __nv_bfloat16_raw() const { return __nv_bfloat16_raw{__x}; }
    __host__ __device__ __nv_bfloat16 &operator=(float value) { __x = cudaemu::bf16::from_float(value); return *this; }
    __host__ __device__ __nv_bfloat16 &operator=(double value) { __x = cudaemu::bf16::from_double(value); return *this; }
    // From integers too, as CUDA's header has them: `x = 0` is no ambiguity between float and double.
    __host__ __device__ __nv_bfloat16 &operator=(int value) { __x = cudaemu::bf16::from_double(value); return *this; }
    __host__ __device__ __nv_bfloat16 &operator=(unsigned value) { __x = cudaemu::bf16::from_double(value); return *this; }
    __host__ __device__ __nv_bfloat16 &operator=(short value) { __x = cudaemu::bf16::from_double(value); return *this; }
    __host__ __device__ __nv_bfloat16 &operator=(unsigned short value) { __x = cudaemu::bf16::from_double(value); return *this; }
    __host__ __device__ __nv_bfloat16 &operator=(long long value) { __x = cudaemu::bf16::from_double((double)value); return *this; }
    __host__ __device__ __nv_bfloat16 &operator=(unsigned long long value)
    {
        __x = cudaemu::bf16::from_double((double)value);
        return *this;
    }
    __host__ __device__ __nv_bfloat16 &operator=(const __nv_bfloat16_raw &raw) { __x = raw.x; return *this; }
};
typedef __nv_bfloat16 nv_bfloat16;

struct __align__(4) __nv_bfloat162 {
    __nv_bfloat16 x, y;
    __nv_bfloat162() = default;
    __host__ __device__ __nv_bfloat162(const __nv_bfloat16 &a, const __nv_bfloat16 &b) : x(a), y(b) {}
    __host__ __device__ __nv_bfloat162(const __nv_bfloat162_raw &raw)
        : x(__nv_bfloat16_raw{raw.x}), y(__nv_bfloat16_raw{raw.y}) {}
    __host__ __device__ operator __nv_bfloat162_raw() const { return __nv_bfloat162_raw{x.__x, y.__x}; }
};
typedef __nv_bfloat162 nv_bfloat162;

namespace cudaemu {
namespace bf16 {
inline __nv_bfloat16 make(double value) { return __nv_bfloat16_raw{from_double(value)}; }
inline double wide(__nv_bfloat16 value) { return to_float(value.__x); }
inline __nv_bfloat16 from_bits(unsigned short bits) { return __nv_bfloat16_raw{bits}; }
}  // namespace bf16
}  // namespace cudaemu

CUDAEMU_HALF_CONVERSIONS(__nv_bfloat16, __nv_bfloat162, cudaemu::bf16, bfloat16, bfloat162)
CUDAEMU_HALF_OPS(__nv_bfloat16, __nv_bfloat162, cudaemu::bf16)

