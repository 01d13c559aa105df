// The graph text format of Hochberg's module ([Hochberg 2012], section 2.2.1) and its
// printout: what fwHelpers.cpp's readGraph and printArray do, with errors that say where.
//
//   A B 4          one edge a line: from vertex A to vertex B, length 4
//   B C 7          names: any non-whitespace ASCII; vertices are numbered 0, 1, ... in the order
//   --END--        they first appear; the last line is --END--
//
// A repeated edge keeps its last weight (the module keeps its edges in a map), a self-loop never
// beats d(v, v) = 0, and weights are non-negative integers small enough that no shortest path
// can reach 1073741823, the APSP output format's "no path".
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

// The largest distance the kit can hold: one less than the APSP output's "no path", and half of
// INT_MAX, so that the kernels' sum of two distances never overflows.
constexpr long long FW_MAX_DISTANCE = 1073741822;

struct Graph {
    std::string source;              // the file name the messages use
    std::vector<std::string> names;  // by vertex number
    int n = 0;                       // N, the number of vertices
    int padded = 0;                  // Na, N rounded up to a multiple of the alignment
    std::vector<int> matrix;         // M_0: N x Na, INT_MAX where there is no edge (padding too)
};

// Reads a graph file; throws LabError naming the file, the line and what is wrong.
Graph read_graph_file(const std::string &path, int alignment);

// The same from text in memory; `source` names it in messages.
Graph parse_graph_text(const std::string &text, const std::string &source, int alignment);

// The text of the seeded random graph of `fw --random N` (twin of testcases/fw/gen.py's
// random_graph): vertex v<i> gets `degree` edges to v<t>, t and the weight 1..max_weight drawn
// from SplitMix64 in that order.
std::string random_graph_text(int n, int degree, int max_weight, uint64_t seed);

// printArray: the first ten vertices (by number) in the order of their names, a tab before each
// column name and after each entry, "--" for INT_MAX. `stride` is the row length in ints.
std::string format_array(const Graph &graph, const int *matrix, int stride);

// The same layout with any entries: cell(i, j) is the text of entry (i, j).
std::string format_table(const Graph &graph, const std::function<std::string(int, int)> &cell);

// The largest number of vertices whose N x Na matrix the kit indexes with an int.
int max_vertices(int alignment);
