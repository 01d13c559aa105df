// The median of repeated timings: the figure every lab reports, steadier than the mean when a
// run is disturbed. For an even count, the upper of the two middle values.
#pragma once

#include <algorithm>
#include <vector>

static inline double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values.empty() ? 0.0 : values[values.size() / 2];
}
