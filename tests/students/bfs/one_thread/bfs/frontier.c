// Lab 5, the stretch: a work-efficient BFS that touches only the frontier's edges each level,
// O(V + E) work in all instead of edge relaxation's O(V * E). Do bfs.c first.
// handouts/bfs.md ("The work-efficient BFS") walks through the TODOs; check with
//     make check LAB=bfs            (the frontier cases are the ones named frontier-*)
//
// The plan: adjacency lists in CSR form (row_start, adjacency) built on the host and copied to
// the device; a queue holding the frontier (the vertices at the current depth); one thread per
// frontier vertex walks its neighbours, claims each unvisited one with atomicCAS and appends it
// to the next queue with atomicAdd on a counter; the host swaps the queues and stops when the
// next queue is empty.
#include "bfs.h"

#define BLOCK_SIZE 256

struct BfsGraph {
    int n;
    int *row_start;   // device, n + 1: v's neighbours are adjacency[row_start[v] .. row_start[v+1])
    int *adjacency;   // device, one entry per edge end (2m, or fewer without self-loops)
    int *depth;       // device, n
    int *queue[2];    // device, n each: the frontier and the next one
    int *next_count;  // device, one counter: how many vertices the next queue holds
};

__global__ void init_search(int *depth, int n, int source, int *frontier)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n)
        depth[v] = (v == source) ? 0 : -1;
    if (v == source)
        frontier[0] = source;
}

// TODO 1: thread i (i < count) takes vertex frontier[i] and, for each neighbour w in its
// adjacency list: if atomicCAS(&depth[w], -1, next_depth) returns -1, this thread is the one that
// visited w: append w at next_frontier[atomicAdd(next_count, 1)]. (Why atomicCAS here, when
// edge relaxation could do with a plain store? Think about the append.)
__global__ void expand_frontier(const int *frontier, int count, const int *row_start, const int *adjacency,
                                int *depth, int next_depth, int *next_frontier, int *next_count)
{
}

BfsGraph *bfs_prepare(int n, int m, const int *edges)
{
    BfsGraph *graph = (BfsGraph *)malloc(sizeof(BfsGraph));
    graph->n = n;
    // TODO 2: build the CSR on the host, a counting sort of the edge ends:
    //   degree of each vertex (each edge (u, v) adds one to u and one to v; skip self-loops),
    //   row_start[0] = 0, row_start[v + 1] = row_start[v] + degree[v],
    //   then place v in u's list and u in v's list, using a copy of row_start as a cursor.
    // TODO 3: cudaMalloc every device array of the struct and copy row_start and adjacency in.
    LAB_TODO("build the adjacency lists and copy them to the device in bfs_prepare");
    return graph;
}

int bfs_search(BfsGraph *graph, int source)
{
    init_search<<<(graph->n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(graph->depth, graph->n, source,
                                                                          graph->queue[0]);
    CUDA_CHECK_LAUNCH();
    // TODO 4: the level loop. The frontier starts as queue[0] holding the source (count 1, depth 0).
    // Each level: zero the device counter, launch expand_frontier over the count frontier vertices,
    // copy the counter back, swap the queues; stop when the next frontier is empty.
    // Return the number of levels expanded (for a chain of n vertices from one end: n).
    LAB_TODO("write the level loop in bfs_search");
    return 0;
}

void bfs_copy_depths(BfsGraph *graph, int *depth)
{
    CUDA_CHECK(cudaMemcpy(depth, graph->depth, (size_t)graph->n * sizeof(int), cudaMemcpyDeviceToHost));
}

void bfs_release(BfsGraph *graph)
{
    // TODO 5: free every device array, then the struct.
    LAB_TODO("free the device arrays in bfs_release");
}
