#include "depth_check.h"

#include <algorithm>
#include <vector>

static std::string vertex_at(int32_t v, int32_t depth)
{
    return "vertex " + std::to_string(v) +
           (depth < 0 ? " (unreached)" : " (depth " + std::to_string(depth) + ")");
}

std::string check_depths(const EdgeList &graph, int32_t source, const int32_t *depth, DepthSummary *summary)
{
    const int32_t n = graph.n;
    *summary = DepthSummary();
    for (int32_t v = 0; v < n; ++v) {
        if (depth[v] >= 0) {
            summary->reached++;
            summary->max_depth = std::max(summary->max_depth, depth[v]);
        }
    }
    if (depth[source] != 0)
        return "the source, vertex " + std::to_string(source) + ", has depth " + std::to_string(depth[source]) +
               "; it must be 0";
    for (int32_t v = 0; v < n; ++v) {
        if (depth[v] < -1 || depth[v] >= n)
            return "vertex " + std::to_string(v) + " has depth " + std::to_string(depth[v]) +
                   ": a depth is -1 (unreached) or between 0 and n-1 = " + std::to_string(n - 1);
        if (depth[v] == 0 && v != source)
            return "vertex " + std::to_string(v) + " has depth 0, but only the source (vertex " +
                   std::to_string(source) + ") is at depth 0";
    }
    std::vector<unsigned char> has_parent(n, 0);
    for (int32_t e = 0; e < graph.m(); ++e) {
        int32_t u = graph.ends[2 * e], v = graph.ends[2 * e + 1];
        int32_t du = depth[u], dv = depth[v];
        if ((du < 0) != (dv < 0))
            return "edge " + std::to_string(e) + " joins " + vertex_at(u, du) + " and " + vertex_at(v, dv) +
                   ": a neighbour of a reached vertex must be reached too";
        if (du - dv > 1 || dv - du > 1)
            return "edge " + std::to_string(e) + " joins " + vertex_at(u, du) + " and " + vertex_at(v, dv) +
                   ": the depths of two neighbours differ by at most 1";
        if (du >= 0 && dv == du + 1)
            has_parent[v] = 1;
        if (dv >= 0 && du == dv + 1)
            has_parent[u] = 1;
    }
    for (int32_t v = 0; v < n; ++v)
        if (depth[v] > 0 && !has_parent[v])
            return "vertex " + std::to_string(v) + " has depth " + std::to_string(depth[v]) +
                   ", but none of its neighbours has depth " + std::to_string(depth[v] - 1);
    return "";
}
