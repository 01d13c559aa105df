// Built with AddressSanitizer by tests/emu (see asan_test.cu): a thread writes one element
// past a __shared__ array, and ASan must name this file and the line of the write.
#include <stdio.h>

__global__ void shift_left(int *out)
{
    __shared__ int tile[64];
    tile[threadIdx.x + 1] = (int)threadIdx.x;  // PLANTED: thread 63 writes tile[64]
    __syncthreads();
    out[threadIdx.x] = tile[threadIdx.x];
}

int main()
{
    int *out = NULL;
    cudaMalloc(&out, 64 * sizeof(int));
    shift_left<<<2, 64>>>(out);
    cudaDeviceSynchronize();
    printf("finished without a report\n");
    return 0;
}
