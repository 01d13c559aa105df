// A tiled matrix product (the matmul lab's second version): two 16 x 16 tiles in shared memory
// a step, every thread reading 32 shared values between barriers. The worst case for the race
// detector, which watches each of those reads.
#include "bench.h"

#define TILE 16

__global__ void tiled_product(const float *a, const float *b, float *c, int n)
{
    __shared__ float a_tile[TILE][TILE], b_tile[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int step = 0; step < n / TILE; ++step) {
        a_tile[threadIdx.y][threadIdx.x] = a[row * n + step * TILE + threadIdx.x];
        b_tile[threadIdx.y][threadIdx.x] = b[(step * TILE + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) sum += a_tile[threadIdx.y][k] * b_tile[k][threadIdx.x];
        __syncthreads();
    }
    c[row * n + col] = sum;
}

Timing time_tiled_product_ms(int n)
{
    ProductOperands m = product_operands(n);
    dim3 threads(TILE, TILE), blocks(n / TILE, n / TILE);
    Timing timing = median_ms(5, [&] { tiled_product<<<blocks, threads>>>(m.a, m.b, m.c, n); });
    free_operands(m);
    return timing;
}
