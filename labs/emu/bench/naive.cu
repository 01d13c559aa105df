// The matmul lab's first version: one thread per element of C, every multiply-add two global
// loads (a row of A that the warp's lanes share, a row of B they read side by side). The
// profile's worst case: nearly every instruction of the kernel is a watched access.
#include "bench.h"

__global__ void naive_product(const float *a, const float *b, float *c, int n)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float sum = 0.0f;
        for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];
        c[row * n + col] = sum;
    }
}

Timing time_naive_product_ms(int n)
{
    ProductOperands m = product_operands(n);
    dim3 threads(16, 16), blocks((n + 15) / 16, (n + 15) / 16);
    Timing timing = median_ms(5, [&] { naive_product<<<blocks, threads>>>(m.a, m.b, m.c, n); });
    free_operands(m);
    return timing;
}
