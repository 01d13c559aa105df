// Lab 5: BFS by edge relaxation, my transcription of cs344's "BFS try #1"
// ([cs344 n.d.]). Kept from the lecture: two kernels, an initialization map over
// the vertices (the start vertex gets depth 0, every other -1, "not visited") and an iteration
// map over the edges, one thread per edge: if one end has the current depth and the other is
// not visited yet, the other gets depth + 1 and the thread sets the device variable done to
// false; the host copies done = true to the device before each iteration, runs the kernel,
// copies done back and stops when it stayed true. Two threads writing the same vertex write the
// same depth (the lecture's "benign race"), and so do threads writing done.
// Changed for the lab: the edges are undirected, so each thread checks both directions;
// done is an int (1 = true); the lab's four functions split the host code; no launch for m = 0.
#include "bfs.h"

#define BLOCK_SIZE 256

struct BfsGraph {
    int n, m;
    int *edges;  // device: 2m ints, edge e joins edges[2e] and edges[2e+1]
    int *depth;  // device: n depths, -1 = not visited yet
    int *done;   // device: one flag
};

__global__ void init_depths(int *depth, int n, int source)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) {
        if (v == source)
            depth[v] = 0;
        else
            depth[v] = -1;
    }
}

__global__ void relax_edges(const int *edges, int m, int *depth, int current, int *done)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < m) {
        int first = edges[2 * e], second = edges[2 * e + 1];
        int first_depth = depth[first], second_depth = depth[second];
        if (first_depth == current && second_depth == -1) {
            depth[second] = first_depth + 1;
            *done = 0;
        }
        if (second_depth == current && first_depth == -1) {
            depth[first] = second_depth + 1;
            *done = 0;
        }
    }
}

BfsGraph *bfs_prepare(int n, int m, const int *edges)
{
    BfsGraph *graph = (BfsGraph *)malloc(sizeof(BfsGraph));
    graph->n = n;
    graph->m = m;
    CUDA_CHECK(cudaMalloc((void **)&graph->edges, 2 * (size_t)m * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&graph->depth, n * sizeof(int)));
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
    for (int current = 0; !done; current++) {
        done = 1;  // true on the host, copied over before each iteration
        CUDA_CHECK(cudaMemcpy(graph->done, &done, sizeof(int), cudaMemcpyHostToDevice));
        if (graph->m > 0) {
            relax_edges<<<(graph->m + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(graph->edges, graph->m, graph->depth,
                                                                                 current, graph->done);
            CUDA_CHECK_LAUNCH();
        }
        CUDA_CHECK(cudaMemcpy(&done, graph->done, sizeof(int), cudaMemcpyDeviceToHost));
        iterations++;
    }
    return iterations;
}

void bfs_copy_depths(BfsGraph *graph, int *depth)
{
    CUDA_CHECK(cudaMemcpy(depth, graph->depth, graph->n * sizeof(int), cudaMemcpyDeviceToHost));
}

void bfs_release(BfsGraph *graph)
{
    CUDA_CHECK(cudaFree(graph->edges));
    CUDA_CHECK(cudaFree(graph->depth));
    CUDA_CHECK(cudaFree(graph->done));
    free(graph);
}
