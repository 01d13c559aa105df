// Lab 5: BFS by edge relaxation (cs344's try #1).
// One thread per edge: I launch enough blocks for every edge and let each thread read its edge
// (the extra threads of the last block just see one more edge's worth of memory). The device
// flag `done` is set to 1 before each launch; any thread that visits a vertex clears it.
#include "bfs.h"

#define BLOCK_SIZE 256

struct BfsGraph {
    int n, m;
    int *edges;  // device: 2m ints, edge e joins edges[2e] and edges[2e+1]
    int *depth;  // device: n depths, -1 = not visited yet
    int *done;   // device: one flag, cleared by any thread that visits a vertex
};

__global__ void init_depths(int *depth, int n, int source)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n)
        depth[v] = v == source ? 0 : -1;
}

__global__ void relax_edges(const int *edges, int m, int *depth, int current, int *done)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    int u = edges[2 * e], v = edges[2 * e + 1];
    if (depth[u] == current && depth[v] == -1) {
        depth[v] = current + 1;
        *done = 0;
    } else if (depth[v] == current && depth[u] == -1) {
        depth[u] = current + 1;
        *done = 0;
    }
}

BfsGraph *bfs_prepare(int n, int m, const int *edges)
{
    BfsGraph *graph = (BfsGraph *)malloc(sizeof(BfsGraph));
    graph->n = n;
    graph->m = m;
    CUDA_CHECK(cudaMalloc(&graph->edges, sizeof(int) * 2 * m));
    CUDA_CHECK(cudaMalloc(&graph->depth, sizeof(int) * n));
    CUDA_CHECK(cudaMalloc(&graph->done, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(graph->edges, edges, sizeof(int) * 2 * m, cudaMemcpyHostToDevice));
    return graph;
}

int bfs_search(BfsGraph *graph, int source)
{
    init_depths<<<(graph->n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(graph->depth, graph->n, source);
    CUDA_CHECK_LAUNCH();

    int one = 1, done = 0, iterations = 0;
    while (!done) {
        CUDA_CHECK(cudaMemcpy(graph->done, &one, sizeof(int), cudaMemcpyHostToDevice));
        if (graph->m > 0) {
            relax_edges<<<(graph->m + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(graph->edges, graph->m,
                                                                                 graph->depth, iterations, graph->done);
            CUDA_CHECK_LAUNCH();
        }
        CUDA_CHECK(cudaMemcpy(&done, graph->done, sizeof(int), cudaMemcpyDeviceToHost));
        iterations++;
    }
    return iterations;
}

void bfs_copy_depths(BfsGraph *graph, int *depth)
{
    CUDA_CHECK(cudaMemcpy(depth, graph->depth, sizeof(int) * graph->n, cudaMemcpyDeviceToHost));
}

void bfs_release(BfsGraph *graph)
{
    CUDA_CHECK(cudaFree(graph->edges));
    CUDA_CHECK(cudaFree(graph->depth));
    CUDA_CHECK(cudaFree(graph->done));
    free(graph);
}
