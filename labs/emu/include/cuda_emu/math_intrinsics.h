// CUDA's integer and floating-point intrinsics, defined plainly for the host: min/max with
// CUDA's mixed-type overloads, bit manipulation, fast-math spellings, reinterpreting casts,
// and the Hopper DPX functions (__viaddmin_s32 and kin).
#pragma once

#include <math.h>
#include <cmath>
#include <cstdint>
#include <cstring>

// ---- min and max: CUDA's overload set, so mixed signed/unsigned calls resolve as on a GPU.
// Each integer width S and its unsigned U: S with S, U with U, and a mixed pair as U.
#define CUDAEMU_MIN_MAX(S, U)                        \
    inline S min(S a, S b) { return a < b ? a : b; } \
    inline S max(S a, S b) { return a > b ? a : b; } \
    inline U min(U a, U b) { return a < b ? a : b; } \
    inline U max(U a, U b) { return a > b ? a : b; } \
    inline U min(S a, U b) { return min((U)a, b); }  \
    inline U max(S a, U b) { return max((U)a, b); }  \
    inline U min(U a, S b) { return min(a, (U)b); }  \
    inline U max(U a, S b) { return max(a, (U)b); }
CUDAEMU_MIN_MAX(int, unsigned int)
CUDAEMU_MIN_MAX(long, unsigned long)
CUDAEMU_MIN_MAX(long long, unsigned long long)
#undef CUDAEMU_MIN_MAX
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline double min(float a, double b) { return fmin(a, b); }
inline double max(float a, double b) { return fmax(a, b); }
inline double min(double a, float b) { return fmin(a, b); }
inline double max(double a, float b) { return fmax(a, b); }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return min(a, b); }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return max(a, b); }
inline long long llmin(long long a, long long b) { return min(a, b); }
inline long long llmax(long long a, long long b) { return max(a, b); }

// ---- Reinterpreting casts.
inline int __float_as_int(float x) { int r; std::memcpy(&r, &x, 4); return r; }
inline unsigned int __float_as_uint(float x) { unsigned int r; std::memcpy(&r, &x, 4); return r; }
inline float __int_as_float(int x) { float r; std::memcpy(&r, &x, 4); return r; }
inline float __uint_as_float(unsigned int x) { float r; std::memcpy(&r, &x, 4); return r; }
inline long long __double_as_longlong(double x) { long long r; std::memcpy(&r, &x, 8); return r; }
inline double __longlong_as_double(long long x) { double r; std::memcpy(&r, &x, 8); return r; }

// ---- Bit manipulation.
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x)
{
    unsigned int r = 0;
    for (int i = 0; i < 32; ++i, x >>= 1) r = (r << 1) | (x & 1u);
    return r;
}
inline unsigned long long __brevll(unsigned long long x)
{
    return ((unsigned long long)__brev((unsigned int)x) << 32) | __brev((unsigned int)(x >> 32));
}
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s)
{
    unsigned long long bytes = ((unsigned long long)y << 32) | x;
    unsigned int r = 0;
    for (int i = 0; i < 4; ++i) r |= (unsigned int)((bytes >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
}
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)((v << (shift & 31)) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)(v >> (shift & 31));
}
// __mul24 multiplies the low 24 bits of each operand, sign-extended.
inline int __mul24(int x, int y)
{
    long long a = ((x & 0xffffff) ^ 0x800000) - 0x800000, b = ((y & 0xffffff) ^ 0x800000) - 0x800000;
    return (int)(unsigned int)(a * b);
}
inline unsigned int __umul24(unsigned int x, unsigned int y) { return (x & 0xffffffu) * (y & 0xffffffu); }
inline int __mulhi(int x, int y) { return (int)(((long long)x * y) >> 32); }
inline unsigned int __umulhi(unsigned int x, unsigned int y) { return (unsigned int)(((unsigned long long)x * y) >> 32); }
inline long long __mul64hi(long long x, long long y) { return (long long)(((__int128)x * y) >> 64); }
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y)
{
    return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}
inline int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
inline int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
inline unsigned int __uhadd(unsigned int x, unsigned int y) { return (unsigned int)(((unsigned long long)x + y) >> 1); }
inline unsigned int __urhadd(unsigned int x, unsigned int y) { return (unsigned int)(((unsigned long long)x + y + 1) >> 1); }
inline unsigned int __sad(int x, int y, unsigned int z) { return z + (unsigned int)(x > y ? x - y : y - x); }
inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return z + (x > y ? x - y : y - x); }
// SIMD within a word: the four bytes of x and y as unsigned lanes.
inline unsigned int __vabsdiffu4(unsigned int x, unsigned int y)
{
    unsigned int result = 0;
    for (int shift = 0; shift < 32; shift += 8) {
        const unsigned int a = (x >> shift) & 0xffu, b = (y >> shift) & 0xffu;
        result |= (a > b ? a - b : b - a) << shift;
    }
    return result;
}
inline unsigned int __vsadu4(unsigned int x, unsigned int y)
{
    const unsigned int differences = __vabsdiffu4(x, y);
    return (differences & 0xffu) + ((differences >> 8) & 0xffu) + ((differences >> 16) & 0xffu) + (differences >> 24);
}

// ---- Floating point: the fast-math spellings are the ordinary functions on the host.
inline float __fdividef(float x, float y) { return x / y; }
inline float fdividef(float x, float y) { return x / y; }
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return powf(10.0f, x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline void __sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : (x == x ? x : 0.0f)); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline float __fadd_rn(float x, float y) { return x + y; }
inline float __fsub_rn(float x, float y) { return x - y; }
inline float __fmul_rn(float x, float y) { return x * y; }
inline float __fdiv_rn(float x, float y) { return x / y; }
inline float __fmaf_rn(float x, float y, float z) { return fmaf(x, y, z); }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __frsqrt_rn(float x) { return (float)(1.0 / sqrt((double)x)); }  // one rounding but for rare double-rounding cases
inline double __dadd_rn(double x, double y) { return x + y; }
inline double __dmul_rn(double x, double y) { return x * y; }
inline double __fma_rn(double x, double y, double z) { return fma(x, y, z); }
inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
inline int __float2int_rz(float x) { return (int)x; }
inline int __float2int_ru(float x) { return (int)ceilf(x); }
inline int __float2int_rd(float x) { return (int)floorf(x); }
inline unsigned int __float2uint_rn(float x) { return (unsigned int)nearbyintf(x); }
inline unsigned int __float2uint_rz(float x) { return (unsigned int)x; }
inline float __int2float_rn(int x) { return (float)x; }
inline float __uint2float_rn(unsigned int x) { return (float)x; }
inline int __double2int_rn(double x) { return (int)nearbyint(x); }
inline int __double2int_rz(double x) { return (int)x; }
inline float __double2float_rn(double x) { return (float)x; }
inline double __int2double_rn(int x) { return (double)x; }

// ---- Hopper DPX functions (sm_90 instructions; CUDA also defines them for the host).
namespace cudaemu {
// The 16x2 forms apply a 16-bit operation to each halfword of a 32-bit word.
template <class Half, class Op>
inline unsigned int per_halfword(unsigned int a, unsigned int b, unsigned int c, Op op)
{
    unsigned int result = 0;
    for (int shift = 0; shift < 32; shift += 16) {
        Half pa = (Half)(unsigned short)(a >> shift), pb = (Half)(unsigned short)(b >> shift),
             pc = (Half)(unsigned short)(c >> shift);
        result |= (unsigned int)(unsigned short)op(pa, pb, pc) << shift;
    }
    return result;
}
template <class T> inline T wrap_add(T a, T b) { return (T)((unsigned int)a + (unsigned int)b); }
template <class T> inline T min2(T a, T b) { return a < b ? a : b; }
template <class T> inline T max2(T a, T b) { return a > b ? a : b; }
template <class T> inline T relu(T a) { return a > 0 ? a : (T)0; }
}  // namespace cudaemu

#define CUDAEMU_DPX3(name, expr)                                                                     \
    inline int name##_s32(int a, int b, int c) { using T = int; return expr; }                     \
    inline unsigned int name##_u32(unsigned int a, unsigned int b, unsigned int c)                 \
    { using T = unsigned int; return expr; }                                                        \
    inline unsigned int name##_s16x2(unsigned int a, unsigned int b, unsigned int c)               \
    { return cudaemu::per_halfword<short>(a, b, c, [](short a, short b, short c) { using T = short; return expr; }); } \
    inline unsigned int name##_u16x2(unsigned int a, unsigned int b, unsigned int c)               \
    { return cudaemu::per_halfword<unsigned short>(a, b, c, [](unsigned short a, unsigned short b, unsigned short c) { using T = unsigned short; return expr; }); }
#define CUDAEMU_DPX3_RELU(name, expr)                                                                \
    inline int name##_s32_relu(int a, int b, int c) { using T = int; return cudaemu::relu<T>(expr); } \
    inline unsigned int name##_s16x2_relu(unsigned int a, unsigned int b, unsigned int c)          \
    { return cudaemu::per_halfword<short>(a, b, c, [](short a, short b, short c) { using T = short; return cudaemu::relu<T>(expr); }); }

CUDAEMU_DPX3(__vimax3, cudaemu::max2<T>(cudaemu::max2<T>(a, b), c))
CUDAEMU_DPX3(__vimin3, cudaemu::min2<T>(cudaemu::min2<T>(a, b), c))
CUDAEMU_DPX3(__viaddmax, cudaemu::max2<T>(cudaemu::wrap_add<T>(a, b), c))
CUDAEMU_DPX3(__viaddmin, cudaemu::min2<T>(cudaemu::wrap_add<T>(a, b), c))
CUDAEMU_DPX3_RELU(__vimax3, cudaemu::max2<T>(cudaemu::max2<T>(a, b), c))
CUDAEMU_DPX3_RELU(__vimin3, cudaemu::min2<T>(cudaemu::min2<T>(a, b), c))
CUDAEMU_DPX3_RELU(__viaddmax, cudaemu::max2<T>(cudaemu::wrap_add<T>(a, b), c))
CUDAEMU_DPX3_RELU(__viaddmin, cudaemu::min2<T>(cudaemu::wrap_add<T>(a, b), c))
#undef CUDAEMU_DPX3
#undef CUDAEMU_DPX3_RELU

inline int __vimax_s32_relu(int a, int b) { return cudaemu::relu(cudaemu::max2(a, b)); }
inline int __vimin_s32_relu(int a, int b) { return cudaemu::relu(cudaemu::min2(a, b)); }
inline unsigned int __vimax_s16x2_relu(unsigned int a, unsigned int b)
{
    return cudaemu::per_halfword<short>(a, b, 0, [](short x, short y, short) { return cudaemu::relu<short>(cudaemu::max2(x, y)); });
}
inline unsigned int __vimin_s16x2_relu(unsigned int a, unsigned int b)
{
    return cudaemu::per_halfword<short>(a, b, 0, [](short x, short y, short) { return cudaemu::relu<short>(cudaemu::min2(x, y)); });
}
inline int __vibmax_s32(int a, int b, bool *pred) { *pred = a >= b; return cudaemu::max2(a, b); }
inline unsigned int __vibmax_u32(unsigned int a, unsigned int b, bool *pred) { *pred = a >= b; return cudaemu::max2(a, b); }
inline int __vibmin_s32(int a, int b, bool *pred) { *pred = a <= b; return cudaemu::min2(a, b); }
inline unsigned int __vibmin_u32(unsigned int a, unsigned int b, bool *pred) { *pred = a <= b; return cudaemu::min2(a, b); }

namespace cudaemu {
template <class Half, bool Max>
inline unsigned int halfword_select(unsigned int a, unsigned int b, bool *pred_hi, bool *pred_lo)
{
    Half alo = (Half)(unsigned short)a, blo = (Half)(unsigned short)b;
    Half ahi = (Half)(unsigned short)(a >> 16), bhi = (Half)(unsigned short)(b >> 16);
    *pred_lo = Max ? alo >= blo : alo <= blo;
    *pred_hi = Max ? ahi >= bhi : ahi <= bhi;
    Half lo = Max ? max2(alo, blo) : min2(alo, blo), hi = Max ? max2(ahi, bhi) : min2(ahi, bhi);
    return ((unsigned int)(unsigned short)hi << 16) | (unsigned short)lo;
}
}  // namespace cudaemu
inline unsigned int __vibmax_s16x2(unsigned int a, unsigned int b, bool *hi, bool *lo) { return cudaemu::halfword_select<short, true>(a, b, hi, lo); }
inline unsigned int __vibmax_u16x2(unsigned int a, unsigned int b, bool *hi, bool *lo) { return cudaemu::halfword_select<unsigned short, true>(a, b, hi, lo); }
inline unsigned int __vibmin_s16x2(unsigned int a, unsigned int b, bool *hi, bool *lo) { return cudaemu::halfword_select<short, false>(a, b, hi, lo); }
inline unsigned int __vibmin_u16x2(unsigned int a, unsigned int b, bool *hi, bool *lo) { return cudaemu::halfword_select<unsigned short, false>(a, b, hi, lo); }
#include "cuda_emu/directed_rounding.h"
