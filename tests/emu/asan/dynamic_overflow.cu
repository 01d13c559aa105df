// Built with AddressSanitizer by tests/emu (see asan_test.cu): a read one element past the
// dynamic shared memory the launch asked for.
#include <stdio.h>

__global__ void sum_window(int *out, int n)
{
    extern __shared__ int window[];
    window[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) {
        int total = 0;
        for (int i = 0; i <= n; ++i) total += window[i];  // PLANTED: <= reads window[n]
        out[0] = total;
    }
}

int main()
{
    int *out = NULL;
    cudaMalloc(&out, sizeof(int));
    sum_window<<<1, 32, 32 * sizeof(int)>>>(out, 32);
    cudaDeviceSynchronize();
    printf("finished without a report\n");
    return 0;
}
