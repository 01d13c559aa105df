#include <gtest/gtest.h>

#include <vector>

#include "median.h"

TEST(Median, MiddleOfUnsortedValues)
{
    EXPECT_EQ(median({3.0, 1.0, 2.0}), 2.0);
    EXPECT_EQ(median({5.0}), 5.0);
}

TEST(Median, EvenCountTakesTheUpperMiddle)
{
    EXPECT_EQ(median({4.0, 1.0, 3.0, 2.0}), 3.0);
}

TEST(Median, EmptyIsZeroNotACrash)
{
    EXPECT_EQ(median({}), 0.0);
}

TEST(Spread, MedianWithTheSmallestAndLargest)
{
    Spread s = spread_of({1.30, 1.23, 1.28, 1.31, 1.25});
    EXPECT_EQ(s.median, 1.28);
    EXPECT_EQ(s.min, 1.23);
    EXPECT_EQ(s.max, 1.31);
}

TEST(Spread, EmptyIsZeros)
{
    Spread s = spread_of({});
    EXPECT_EQ(s.median, 0.0);
    EXPECT_EQ(s.min, 0.0);
    EXPECT_EQ(s.max, 0.0);
}
