// Built with AddressSanitizer by tests/emu (see asan_test.cu), run with the race detector on and
// ASan's stack-use-after-return checks on (GCC 13's default): a thread's address-taken local
// array then lives on ASan's fake stack, whose frames the next thread of the fiber is handed.
// Threads storing their own values in their own locals is no race; the program must finish.
#include <stdio.h>

__device__ __noinline__ void fill(int *row, int value)
{
    for (int i = 0; i < 8; ++i) row[i] = value + i;
}

__global__ void own_rows(int *out)
{
    int row[8];  // address-taken: on the fake stack with stack-use-after-return on
    fill(row, 1000 * blockIdx.x + threadIdx.x);
    int sum = 0;
    for (int i = 0; i < 8; ++i) sum += row[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

int main()
{
    int *out = NULL;
    cudaMalloc(&out, 4 * 64 * sizeof(int));
    own_rows<<<4, 64>>>(out);
    cudaDeviceSynchronize();
    int sums[4 * 64];
    cudaMemcpy(sums, out, sizeof sums, cudaMemcpyDeviceToHost);
    for (int b = 0; b < 4; ++b)
        for (int t = 0; t < 64; ++t)
            if (sums[b * 64 + t] != 8 * (1000 * b + t) + 28) {
                printf("wrong sum in block %d thread %d\n", b, t);
                return 1;
            }
    printf("finished without a report\n");
    return 0;
}
