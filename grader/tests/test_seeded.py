from grader.seeded import splitmix64, uniform_floats


def test_matches_the_c_generator():
    # The same values tests/common/seeded_test.cpp checks for labs/common/seeded.h.
    first = next(splitmix64(1))
    assert first == 0x910A2DEC89025CC1
    values = uniform_floats(3, 1)
    assert values[0] == (first >> 40) / 16777216.0
    assert all(0.0 <= v < 1.0 for v in values)
