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
