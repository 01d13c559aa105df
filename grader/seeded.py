"""The seeded inputs of labs/common/seeded.h, made the same way in Python: change both together."""

from array import array

MASK64 = (1 << 64) - 1


def splitmix64(seed: int):
    """Yields SplitMix64's outputs from `seed`."""
    state = seed & MASK64
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        yield z ^ (z >> 31)


def uniform_floats(n: int, seed: int) -> array:
    """n float32 values in [0, 1), each an exact multiple of 2^-24 (so exact in float32)."""
    gen = splitmix64(seed)
    return array("f", ((next(gen) >> 40) * (1.0 / 16777216.0) for _ in range(n)))
