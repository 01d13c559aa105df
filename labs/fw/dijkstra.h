// The harness's own check (fw --check): every distance against Dijkstra's algorithm from every
// source, an algorithm independent of Floyd-Warshall, run on all CPU cores so that it keeps up
// with the GPU on graphs of thousands of vertices.
#pragma once

#include "graph_text.h"

struct Mismatch {
    bool found = false;
    int from = 0, to = 0;   // the first wrong entry, in row-major order
    long long expected = 0; // Dijkstra's distance, or -1 for no path
    long long got = 0;      // the matrix's entry, or -1 for INT_MAX
};

// Compares `result` (N x stride, INT_MAX for no path) with Dijkstra on graph.matrix (M_0).
Mismatch check_against_dijkstra(const Graph &graph, const int *result, int stride);
