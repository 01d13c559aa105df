// The bfs lab's graph: an undirected edge list, as stored in the kit's edge-list format
// (docs/design.md): little-endian int32 n, int32 m, then m pairs int32 (u, v), vertices 0..n-1.
// Self-loops and repeated edges are allowed (they change no depth).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

// The lab's programs index vertices, edges and edge ends (2m of them) with int, one thread
// each, so the sizes stop short of 2^31; files beyond these are refused with a clear message.
constexpr int32_t kMaxVertices = 1 << 30;
constexpr int32_t kMaxEdges = (1 << 30) - 1;

struct EdgeList {
    int32_t n = 0;
    std::vector<int32_t> ends;  // 2m values: u0 v0 u1 v1 ...; edge e joins ends[2e] and ends[2e+1]

    int32_t m() const { return static_cast<int32_t>(ends.size() / 2); }
};

// Reads and checks a whole edge-list file; throws LabError naming the file and what is wrong
// (a truncated header or edge list, bytes past the last edge, a vertex out of range).
EdgeList read_edge_list(const std::string &path);

// Writes `graph` in the edge-list format; throws LabError on failure.
void write_edge_list(const std::string &path, const EdgeList &graph);

// Throws LabError unless 0 <= source < n; `where` names the graph in the message.
void check_source(const EdgeList &graph, long long source, const std::string &where);
