// Built with AddressSanitizer by tests/emu (see dropin_features_test.cu): a __half2 read one
// element past a cudaMalloc'd array, which ASan must report at this line as for any type.
#include <cuda_fp16.h>
#include <stdio.h>

__global__ void sum_pairs(const __half2 *pairs, float *out, int n)
{
    float total = 0.0f;
    for (int i = 0; i <= n; ++i) {
        __half low = pairs[i].x;  // PLANTED: <= reads pairs[n]
        total += __half2float(low);
    }
    out[threadIdx.x] = total;
}

int main()
{
    __half2 *pairs = NULL;
    float *out = NULL;
    cudaMalloc(&pairs, 8 * sizeof(__half2));
    cudaMalloc(&out, sizeof(float));
    sum_pairs<<<1, 1>>>(pairs, out, 8);
    cudaDeviceSynchronize();
    printf("finished without a report\n");
    return 0;
}
