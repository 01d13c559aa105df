// Built with AddressSanitizer by tests/emu (see graphs_test.cu): a kernel captured into a graph
// writes past the end of a cudaMalloc'd array when the graph is launched, and ASan must name
// this file and the line of the write, through the graph's replay of the launch.
#include <stdio.h>

__global__ void write_one_past(int *data)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    data[i] = i;  // PLANTED: no bounds check; thread 100 writes data[100]
}

int main()
{
    int *data = NULL;
    cudaMalloc(&data, 100 * sizeof(int));
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    write_one_past<<<4, 32, 0, stream>>>(data);  // 128 threads for 100 elements
    cudaStreamEndCapture(stream, &graph);
    cudaGraphExec_t exec;
    cudaGraphInstantiate(&exec, graph, 0);
    fprintf(stderr, "captured; launching\n");
    cudaGraphLaunch(exec, stream);
    cudaStreamSynchronize(stream);
    printf("finished without a report\n");
    return 0;
}
