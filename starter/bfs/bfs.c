// Lab 5: breadth-first search by edge relaxation ([cs344 n.d.], "BFS try #1").
// Fill in each TODO; bfs.h says what each function must do, and handouts/bfs.md walks through
// them. Build and check with:  make check LAB=bfs
//
// The idea: every iteration looks at every edge. If one end is at the current depth and the
// other end is not visited yet, the other end gets depth + 1. Repeat until nothing changes.
#include "bfs.h"

#define BLOCK_SIZE 256

struct BfsGraph {
    int n, m;
    int *edges;  // device: 2m ints, edge e joins edges[2e] and edges[2e+1]
    int *depth;  // device: n depths, -1 = not visited yet
    int *done;   // device: one flag, cleared by any thread that visits a vertex
};

// TODO 1: the init kernel, a map over the vertices. Thread v (from blockIdx.x, blockDim.x and
// threadIdx.x) sets depth[v] to 0 if v is the source and to -1 otherwise; threads past n do nothing.
__global__ void init_depths(int *depth, int n, int source)
{
}

// TODO 2: the iteration kernel, a map over the edges. Thread e reads its edge's two ends u and v
// and their depths. If u's depth is `current` and v is unvisited (-1), set v's depth to
// current + 1 and set *done = 0; the same the other way round. (Two threads may write the same
// vertex: is that a problem? handouts/bfs.md, "the benign race".)
__global__ void relax_edges(const int *edges, int m, int *depth, int current, int *done)
{
}

BfsGraph *bfs_prepare(int n, int m, const int *edges)
{
    BfsGraph *graph = (BfsGraph *)malloc(sizeof(BfsGraph));
    graph->n = n;
    graph->m = m;
    // TODO 3: cudaMalloc the three device arrays (2m ints of edges, n depths, one int for the
    // flag), each inside CUDA_CHECK(...), and copy the edges to the device with cudaMemcpy.
    LAB_TODO("allocate the device arrays and copy the edges in bfs_prepare");
    return graph;
}

int bfs_search(BfsGraph *graph, int source)
{
    // TODO 4: launch init_depths over the n vertices (blocks: n / BLOCK_SIZE rounded up), then
    // CUDA_CHECK_LAUNCH().
    // TODO 5: the host loop, one iteration per level, current = 0, 1, 2, ...:
    //   - set the device flag to 1 (copy a host int holding 1 into graph->done);
    //   - launch relax_edges over the m edges, then CUDA_CHECK_LAUNCH(); careful: with m = 0
    //     there is nothing to launch (a launch of 0 blocks is an error);
    //   - copy the flag back to the host; if it is still 1, no vertex changed: stop.
    // Return the number of iterations (launches) the loop ran.
    LAB_TODO("launch the init kernel and write the host loop in bfs_search");
    return 0;
}

void bfs_copy_depths(BfsGraph *graph, int *depth)
{
    // TODO 6: copy the n depths from the device to the host array `depth`.
    LAB_TODO("copy the depths back in bfs_copy_depths");
}

void bfs_release(BfsGraph *graph)
{
    // TODO 7: cudaFree the three device arrays, then free(graph).
    LAB_TODO("free the device arrays in bfs_release");
}
