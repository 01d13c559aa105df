// Seeded graph generators for the bfs lab: the same code makes the testcases (through
// testcases/bfs/bfs_tool.cpp, which gen.py builds) and the benchmark's graphs (inside the lab's
// programs, `--bench`), so no large graph is ever stored. Only integer arithmetic on SplitMix64
// draws (labs/common/seeded.h): a seed gives the same bytes on every machine and compiler.
//
//   chain    n vertices in a path 0-1-2-...: the worst case for edge relaxation (n-1 levels)
//   star     vertex 0 joined to every other vertex: one level
//   grid     rows x cols 2D grid, vertex r*cols + c joined to its right and lower neighbours
//   uniform  m edges with both ends uniform over n vertices (Erdos-Renyi style)
//   rmat     Graph500 Kronecker/R-MAT: 2^scale vertices, edge_factor * 2^scale edges,
//            a = 0.57, b = c = 0.19, vertex labels randomly permuted (as Graph500 does)
//   pieces   n vertices in `pieces` separate random trees with extra chords (disconnected)
// and, on any of them: --isolated K more vertices with no edge, --self-loops K, --duplicates K
// (copies of existing edges, half of them reversed), --permute 0|1 (relabel the vertices at
// random), --shuffle 0|1 (random edge order and orientation).
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "edge_list.h"

class Cli;

struct GraphSpec {
    std::string kind;
    long long n = 0, m = 0;        // chain, star, uniform, pieces (n); uniform (m)
    long long rows = 0, cols = 0;  // grid
    long long scale = 0, edge_factor = 16;  // rmat
    long long pieces = 0;
    long long isolated = 0, self_loops = 0, duplicates = 0;
    bool permute = false, shuffle = false;
    uint64_t seed = 1;
};

// The command-line options the generators read (for Cli::allow_only).
const std::set<std::string> &graph_option_names();

// Reads --graph KIND and its options; throws LabError naming a missing or bad option.
GraphSpec graph_spec_from(const Cli &cli);

// "rmat scale 22, edge factor 16 (seed 1)"; and a short name for tables: "rmat-22".
std::string describe(const GraphSpec &spec);
std::string short_name(const GraphSpec &spec);

// Makes the graph; deterministic for a given spec. Throws LabError if it would be too large.
EdgeList make_graph(const GraphSpec &spec);

// A source for a benchmark: a seeded choice among the vertices that have an edge to another
// vertex (a Graph500 rule), or vertex 0 if none has.
int32_t pick_source(const EdgeList &graph, uint64_t seed);
