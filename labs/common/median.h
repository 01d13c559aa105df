// The median of repeated timings: the figure every lab reports, steadier than the mean when a
// run is disturbed. For an even count, the upper of the two middle values. And the spread of
// such figures: the median with the smallest and the largest (a bench's rounds).
#pragma once

#include <algorithm>
#include <vector>

static inline double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values.empty() ? 0.0 : values[values.size() / 2];
}

struct Spread {
    double median = 0, min = 0, max = 0;
};

static inline Spread spread_of(const std::vector<double> &values)
{
    if (values.empty())
        return Spread{};
    auto [low, high] = std::minmax_element(values.begin(), values.end());
    return Spread{median(values), *low, *high};
}
