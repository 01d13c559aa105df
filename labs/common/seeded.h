// Seeded inputs, so large inputs are made on demand and never stored. The grader makes the
// same values in Python (grader/seeded.py): change one, change both.
#pragma once

#include <cstddef>
#include <cstdint>

// SplitMix64: a tiny generator with good statistics and an exact Python twin.
static inline uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// n floats uniform in [0, 1), each an exact multiple of 2^-24.
static inline void seeded_uniform_floats(float *out, size_t n, uint64_t seed)
{
    uint64_t state = seed;
    for (size_t i = 0; i < n; ++i)
        out[i] = (float)(splitmix64_next(&state) >> 40) * (1.0f / 16777216.0f);
}
