// Lab 5, bfs: the functions each of the lab's programs implements.
//
//   bfs.c       BFS by edge relaxation ([cs344 n.d.], "BFS try #1"): one thread per
//               edge, one kernel launch per level, until a device `done` flag stays set.
//   frontier.c  the work-efficient BFS (optional stretch): only the frontier's edges each level.
//
// The harness (main.cpp) reads the graph, then calls, in order:
//   bfs_prepare once (timed apart: copying the graph in and building what the search needs),
//   bfs_search once to warm up and then once or more, timed (the "search" time),
//   bfs_copy_depths, bfs_release.
// It checks the depths itself and counts the levels your search reports.
#pragma once

#include "cuda_check.h"

// What a program keeps on the device between the calls: each program defines it its own way
// (bfs.c: the edge list, the depths, the done flag; frontier.c: adjacency lists, queues, ...).
struct BfsGraph;

// Copies the graph to the device and builds what bfs_search needs. The graph has n >= 1
// vertices and m >= 0 undirected edges: edge e joins edges[2*e] and edges[2*e+1], both in
// 0..n-1 (the harness has checked). Self-loops and repeated edges may appear. `edges` is the
// host's array and stays valid until bfs_release.
BfsGraph *bfs_prepare(int n, int m, const int *edges);

// Runs a BFS from `source` on the device, leaving in device memory the depth of every vertex:
// its number of edges from the source, or -1 where the source cannot reach it. Returns the
// number of iterations (levels) it ran. May be called again (the harness warms up first), so it
// must start from scratch each time. Must finish its device work before returning.
int bfs_search(BfsGraph *graph, int source);

// Copies the n depths of the last search to the host array `depth`.
void bfs_copy_depths(BfsGraph *graph, int *depth);

// Frees everything bfs_prepare allocated.
void bfs_release(BfsGraph *graph);
