// Lab 5 reference solution: BFS by edge relaxation ([cs344 n.d.], "BFS try #1").
// Every iteration looks at every edge; an edge with one end at the current depth and the other
// end unvisited sets that end to depth + 1. The host repeats until an iteration changes nothing.
#include "bfs.h"

#define BLOCK_SIZE 256

struct BfsGraph {
    int n, m;
    int *edges;  // device: 2m ints, edge e joins edges[2e] and edges[2e+1]
    int *depth;  // device: n depths, -1 = not visited yet
    int *done;   // device: one flag, cleared by any thread that visits a vertex
};

// A map over the vertices: the source at depth 0, everything else unvisited.
__global__ void init_depths(int *depth, int n, int source)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n)
        depth[v] = (v == source) ? 0 : -1;
}

// A map over the edges, in both directions. Two threads may write the same vertex in one
// iteration, but both write current + 1: the race is benign. A vertex set in this iteration
// holds current + 1, not current, so the frontier advances exactly one level per launch.
__global__ void relax_edges(const int *edges, int m, int *depth, int current, int *done)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m)
        return;
    int u = edges[2 * e], v = edges[2 * e + 1];
    int depth_u = depth[u], depth_v = depth[v];
    if (depth_u == current && depth_v == -1) {
        depth[v] = current + 1;
        *done = 0;
    } else if (depth_v == current && depth_u == -1) {
        depth[u] = current + 1;
        *done = 0;
    }
}

BfsGraph *bfs_prepare(int n, int m, const int *edges)
{
    BfsGraph *graph = (BfsGraph *)malloc(sizeof(BfsGraph));
    graph->n = n;
    graph->m = m;
    CUDA_CHECK(cudaMalloc((void **)&graph->edges, 2 * (size_t)m * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&graph->depth, (size_t)n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&graph->done, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(graph->edges, edges, 2 * (size_t)m * sizeof(int), cudaMemcpyHostToDevice));
    return graph;
}

int bfs_search(BfsGraph *graph, int source)
{
    init_depths<<<(graph->n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(graph->depth, graph->n, source);
    CUDA_CHECK_LAUNCH();
    int iterations = 0;
    int done = 0;
    for (int current = 0; !done; ++current) {
        done = 1;
        CUDA_CHECK(cudaMemcpy(graph->done, &done, sizeof(int), cudaMemcpyHostToDevice));
        if (graph->m > 0) {  // a launch of zero blocks is an error, and there is nothing to relax
            relax_edges<<<(graph->m + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(graph->edges, graph->m,
                                                                                 graph->depth, current, graph->done);
            CUDA_CHECK_LAUNCH();
        }
        // Copying the flag back waits for the kernel: the host learns whether to go on.
        CUDA_CHECK(cudaMemcpy(&done, graph->done, sizeof(int), cudaMemcpyDeviceToHost));
        ++iterations;
    }
    return iterations;
}

void bfs_copy_depths(BfsGraph *graph, int *depth)
{
    CUDA_CHECK(cudaMemcpy(depth, graph->depth, (size_t)graph->n * sizeof(int), cudaMemcpyDeviceToHost));
}

void bfs_release(BfsGraph *graph)
{
    CUDA_CHECK(cudaFree(graph->edges));
    CUDA_CHECK(cudaFree(graph->depth));
    CUDA_CHECK(cudaFree(graph->done));
    free(graph);
}
