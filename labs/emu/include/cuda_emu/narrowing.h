// Conversions to CUDA's narrow number formats (half, bfloat16, fp8) that round once, as the
// GPU's cvt instructions do, and float-to-integer conversions that saturate as they do.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace cudaemu {
inline std::uint32_t float_bits(float value)
{
    std::uint32_t bits;
    std::memcpy(&bits, &value, 4);
    return bits;
}

inline float bits_float(std::uint32_t bits)
{
    float value;
    std::memcpy(&value, &bits, 4);
    return value;
}

// A float that rounds to any format of at most 22 significand bits as `value` does ("round to
// odd"): where float holds the value, the value; otherwise the one of its two float neighbours
// whose last bit is 1, which is never a tie of the narrower format, so double -> float -> narrow
// rounds once.
inline float sticky_float(double value)
{
    const float narrowed = (float)value;
    if ((double)narrowed == value || std::isnan(value) || std::isinf(narrowed)) return narrowed;
    const float toward = std::nextafter(narrowed, value > (double)narrowed ? INFINITY : -INFINITY);
    return (float_bits(narrowed) & 1u) ? narrowed : toward;
}

// CUDA's cvt.rzi / cvt.rni to an integer type: out-of-range values saturate, NaN gives 0.
template <class Int>
inline Int saturating_int(double value)
{
    if (std::isnan(value)) return 0;
    if (value <= (double)std::numeric_limits<Int>::min()) return std::numeric_limits<Int>::min();
    if (value >= (double)std::numeric_limits<Int>::max()) return std::numeric_limits<Int>::max();
    return (Int)value;
}
}  // namespace cudaemu
