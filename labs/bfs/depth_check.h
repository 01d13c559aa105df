// Checks BFS depths without running a BFS (the Graph500 validation rules), in O(n + m):
//   1. the source has depth 0 and no other vertex has; every depth is -1 or in 1..n-1;
//   2. across every edge both ends are reached or neither is, and their depths differ by <= 1;
//   3. every reached vertex other than the source has a neighbour one level closer.
// Together these hold only for the exact depths: rule 3 gives each vertex a path to the source
// as long as its depth, rule 2 makes the depth no longer than the shortest path, and rule 2's
// first half leaves unreached exactly the vertices outside the source's component.
#pragma once

#include <cstdint>
#include <string>

#include "edge_list.h"

struct DepthSummary {
    int32_t max_depth = 0;  // depth of the deepest reached vertex
    long long reached = 0;  // vertices with depth >= 0
};

// "" when depth[0..n-1] are the BFS depths from source; otherwise the first broken rule, with
// the vertices, edge and depths involved. Fills *summary either way.
std::string check_depths(const EdgeList &graph, int32_t source, const int32_t *depth, DepthSummary *summary);
