// cuda_bf16.h and cuda_fp8.h, and what cuda_fp16.h shares with them (cuda_emu/half_ops.h),
// checked against the CUDA math API reference: bfloat16 rounds to nearest even once and gives
// NaN as 0x7fff; the directed roundings; pair comparisons (__hgt2 and kin); atomics on 16-bit
// floats; fp8's E4M3 and E5M2 encodings with and without saturation.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cfloat>
#include <cmath>

#include "emu_test_util.h"

// ---- cuda_bf16.h -----------------------------------------------------------------------------
TEST(BFloat16, IsAFloatsUpperHalfRoundedToNearestEven)
{
    static_assert(sizeof(__nv_bfloat16) == 2 && sizeof(__nv_bfloat162) == 4, "as on a GPU");
    EXPECT_EQ(0x3f80, __bfloat16_as_ushort(__float2bfloat16(1.0f)));
    EXPECT_EQ(0x3eab, __bfloat16_as_ushort(__float2bfloat16(1.0f / 3.0f)));  // 0x3eaaaaab rounds up
    EXPECT_EQ(0x3eaa, __bfloat16_as_ushort(__float2bfloat16_rz(1.0f / 3.0f)));
    EXPECT_EQ(0x3eaa, __bfloat16_as_ushort(__float2bfloat16_rd(1.0f / 3.0f)));
    EXPECT_EQ(0x3eab, __bfloat16_as_ushort(__float2bfloat16_ru(1.0f / 3.0f)));
    EXPECT_EQ(0xbeab, __bfloat16_as_ushort(__float2bfloat16_rd(-1.0f / 3.0f)));
    // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: to even, 1.
    EXPECT_EQ(0x3f80, __bfloat16_as_ushort(__float2bfloat16(1.0f + std::ldexp(1.0f, -8))));
    // Just above that tie, as a double whose float is the tie: one rounding, up.
    EXPECT_EQ(0x3f81, __bfloat16_as_ushort(__double2bfloat16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30))));
    EXPECT_EQ(0x7f80, __bfloat16_as_ushort(__float2bfloat16(FLT_MAX)));  // past the largest: infinity
    EXPECT_EQ(0x7f7f, __bfloat16_as_ushort(__float2bfloat16_rz(FLT_MAX)));
    EXPECT_EQ(0x7fff, __bfloat16_as_ushort(__float2bfloat16(NAN)));
    EXPECT_EQ(0x8000, __bfloat16_as_ushort(__float2bfloat16(-0.0f)));
    EXPECT_EQ(0.333984375f, __bfloat162float(__ushort_as_bfloat16(0x3eab)));
    EXPECT_EQ(-7, __bfloat162int_rz(__float2bfloat16(-7.9f)));
    EXPECT_EQ(2147483647, __bfloat162int_rn(__float2bfloat16(1e20f)));  // saturates
    EXPECT_EQ(0, __bfloat162int_rn(__float2bfloat16(NAN)));
    EXPECT_EQ(0x4b80, __bfloat16_as_ushort(__int2bfloat16_rn(16777216 + 65536)));  // 2^24 + 2^16: a tie, to even
}

TEST(BFloat16, ArithmeticRoundsOnce)
{
    const __nv_bfloat16 one = 1.0f, step = std::ldexp(1.0f, -8);
    EXPECT_EQ(1.0f, __bfloat162float(__hadd(one, step)));  // a tie: to even
    EXPECT_EQ(1.0f + std::ldexp(1.0f, -6),
              __bfloat162float(__hadd(__float2bfloat16(1.0f + std::ldexp(1.0f, -7)), step)));
    EXPECT_EQ(0x3eab, __bfloat16_as_ushort(__hdiv(one, __float2bfloat16(3.0f))));
    EXPECT_EQ(7.0f, __bfloat162float(__hfma(__float2bfloat16(2.0f), __float2bfloat16(3.0f), one)));
    EXPECT_EQ(1.0f, __bfloat162float(__hadd_sat(one, one)));
    __nv_bfloat16 x = 1.5f, y = 2.0f;
    EXPECT_EQ(3.0f, (float)(x * y));
    EXPECT_TRUE(x < y && x != y && -x < x);
    EXPECT_TRUE(__hisnan(__hmax_nan(x, __float2bfloat16(NAN))));
    EXPECT_EQ(1.5f, (float)__hmax(x, __float2bfloat16(NAN)));
    x = 0;  // an integer assigns without ambiguity (HeCBench's fma, mxfp4)
    EXPECT_EQ(0x0000, __bfloat16_as_ushort(x));
    x = 3u;
    EXPECT_EQ(3.0f, (float)x);
    EXPECT_EQ(0.5f, __frsqrt_rn(4.0f));  // nbnxm's reciprocal square root
}

TEST(HalfPairs, CompareEachHalf)
{
    const __nv_bfloat162 a = __floats2bfloat162_rn(1.0f, 5.0f), b = __floats2bfloat162_rn(2.0f, 2.0f);
    const __nv_bfloat162 greater = __hgt2(a, b);
    EXPECT_EQ(0.0f, __low2float(greater));
    EXPECT_EQ(1.0f, __high2float(greater));
    EXPECT_EQ(0xffff0000u, __hgt2_mask(a, b));
    EXPECT_FALSE(__hbgt2(a, b));
    EXPECT_TRUE(__hbge2(a, __floats2bfloat162_rn(1.0f, 5.0f)));
    const __half2 h = __floats2half2_rn(NAN, 3.0f), k = __float2half2_rn(3.0f);
    EXPECT_EQ(0x0000ffffu, __hltu2_mask(h, k));  // unordered: NaN compares true
    EXPECT_EQ(0xffff0000u, __heq2_mask(h, k));
    EXPECT_EQ(1.0f, __low2float(__hisnan2(h)));
    const __half2 powers = h2exp2(__floats2half2_rn(1.0f, 3.0f));  // CUDA's pair names: h2exp2, h2sqrt
    EXPECT_EQ(2.0f, __low2float(powers));
    EXPECT_EQ(8.0f, __high2float(powers));
    EXPECT_EQ(3.0f, __high2float(h2sqrt(__floats2bfloat162_rn(4.0f, 9.0f))));
}

__global__ void sum_bfloat16(const __nv_bfloat16 *values, __nv_bfloat16 *total, __nv_bfloat162 *pair_total)
{
    atomicAdd(total, values[threadIdx.x]);
    atomicAdd(pair_total, __halves2bfloat162(values[threadIdx.x], __float2bfloat16(2.0f)));
}

TEST(BFloat16, AtomicAddInAKernel)
{
    std::vector<__nv_bfloat16> values(64, __float2bfloat16(1.0f));
    DeviceArray<__nv_bfloat16> device_values(values), total(1);
    DeviceArray<__nv_bfloat162> pair_total(1);
    sum_bfloat16<<<1, 64>>>(device_values.get(), total.get(), pair_total.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    EXPECT_EQ(64.0f, __bfloat162float(total.host()[0]));  // every partial sum up to 64 is exact
    EXPECT_EQ(128.0f, __high2float(pair_total.host()[0]));
}

// ---- cuda_fp8.h ------------------------------------------------------------------------------
TEST(Fp8, E4M3RoundsToNearestEvenAndSaturatesOrGivesNaN)
{
    EXPECT_EQ(0x38, __nv_cvt_float_to_fp8(1.0f, __NV_SATFINITE, __NV_E4M3));
    EXPECT_EQ(0x7e, __nv_cvt_float_to_fp8(448.0f, __NV_NOSAT, __NV_E4M3));  // the largest
    EXPECT_EQ(0x7e, __nv_cvt_float_to_fp8(464.0f, __NV_NOSAT, __NV_E4M3));  // a tie: to even
    EXPECT_EQ(0x7f, __nv_cvt_float_to_fp8(465.0f, __NV_NOSAT, __NV_E4M3));  // no infinity: NaN
    EXPECT_EQ(0x7e, __nv_cvt_float_to_fp8(465.0f, __NV_SATFINITE, __NV_E4M3));
    EXPECT_EQ(0x7e, __nv_cvt_float_to_fp8(INFINITY, __NV_SATFINITE, __NV_E4M3));
    EXPECT_EQ(0xc6, __nv_cvt_float_to_fp8(-3.5f, __NV_SATFINITE, __NV_E4M3));
    EXPECT_EQ(0x01, __nv_cvt_float_to_fp8(std::ldexp(1.0f, -9), __NV_SATFINITE, __NV_E4M3));  // smallest
    EXPECT_EQ(0x00, __nv_cvt_float_to_fp8(std::ldexp(1.0f, -10), __NV_SATFINITE, __NV_E4M3)); // a tie: 0
    EXPECT_EQ(0x08, __nv_cvt_float_to_fp8(std::ldexp(1.0f, -6) * 0.99f, __NV_SATFINITE, __NV_E4M3)); // up to normal
    EXPECT_EQ(0x7f, __nv_cvt_float_to_fp8(NAN, __NV_SATFINITE, __NV_E4M3));
    EXPECT_EQ(-3.5f, float(__nv_fp8_e4m3(-3.5f)));
    EXPECT_EQ(448.0f, float(__nv_fp8_e4m3(1e9f)));  // the class saturates
    EXPECT_TRUE(std::isnan(float(__nv_fp8_e4m3(NAN))));
}

TEST(Fp8, E5M2IsAHalfsUpperByte)
{
    EXPECT_EQ(0x3c, __nv_cvt_float_to_fp8(1.0f, __NV_SATFINITE, __NV_E5M2));
    EXPECT_EQ(0x7b, __nv_cvt_float_to_fp8(57344.0f, __NV_NOSAT, __NV_E5M2));  // the largest
    EXPECT_EQ(0x7c, __nv_cvt_float_to_fp8(61440.0f, __NV_NOSAT, __NV_E5M2));  // a tie: to even, infinity
    EXPECT_EQ(0x7b, __nv_cvt_float_to_fp8(61440.0f, __NV_SATFINITE, __NV_E5M2));
    EXPECT_EQ(0x3c00, __nv_cvt_fp8_to_halfraw(0x3c, __NV_E5M2).x);
    for (int bits = 0; bits < 256; ++bits) {  // every finite value converts back to itself
        const __half_raw wide = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)bits, __NV_E5M2);
        if ((bits & 0x7f) < 0x7c) {
            EXPECT_EQ(bits, __nv_cvt_halfraw_to_fp8(wide, __NV_NOSAT, __NV_E5M2)) << bits;
        }
    }
    const __nv_fp8x2_e5m2 pair(make_float2(1.0f, -2.0f));
    EXPECT_EQ(0xc03c, pair.__x);  // the first element in the low byte
    const float2 back = float2(pair);
    EXPECT_EQ(-2.0f, back.y);
}
