// Lab 2: matrix multiply, naive and tiled.
// Naive: row from y, column from x, so a warp walks along a row of C. I store the result with
// the row and column the way I draw C on paper, column index first.
#include "matmul.h"

__global__ void naive_kernel(const float *A, const float *B, float *C, int n)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float sum = 0.0f;
        for (int k = 0; k < n; k++)
            sum += A[row * n + k] * B[k * n + col];
        C[col * n + row] = sum;
    }
}

void matmul_naive(const float *A, const float *B, float *C, int n, int ntx, int nty)
{
    dim3 threads(ntx, nty);
    dim3 grid((n + ntx - 1) / ntx, (n + nty - 1) / nty);
    naive_kernel<<<grid, threads>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

template <int TILE>
__global__ void tiled_kernel(const float *A, const float *B, float *C, int n)
{
    __shared__ float Ablock[TILE][TILE];
    __shared__ float Bblock[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;

    float sum = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        __syncthreads();  // everyone is done with the previous tiles
        Ablock[ty][tx] = (row < n && k0 + tx < n) ? A[row * n + k0 + tx] : 0.0f;
        Bblock[ty][tx] = (k0 + ty < n && col < n) ? B[(k0 + ty) * n + col] : 0.0f;
        __syncthreads();  // the tiles are complete
        for (int k = 0; k < TILE; k++)
            sum += Ablock[ty][k] * Bblock[k][tx];
    }
    if (row < n && col < n)
        C[row * n + col] = sum;
}

template <int TILE>
static void launch_tiled(const float *A, const float *B, float *C, int n)
{
    dim3 threads(TILE, TILE);
    dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    tiled_kernel<TILE><<<grid, threads>>>(A, B, C, n);
    CUDA_CHECK_LAUNCH();
}

void matmul_tiled(const float *A, const float *B, float *C, int n, int tile)
{
    switch (tile) {
    case 4: launch_tiled<4>(A, B, C, n); break;
    case 8: launch_tiled<8>(A, B, C, n); break;
    case 16: launch_tiled<16>(A, B, C, n); break;
    case 32: launch_tiled<32>(A, B, C, n); break;
    default: fprintf(stderr, "matmul_tiled: tile %d is not 4, 8, 16 or 32\n", tile); exit(LAB_EXIT_USAGE);
    }
}

void matmul_fast(const float *A, const float *B, float *C, int n)
{
    // Optional (handout, "Chasing cuBLAS"): each thread computes several elements of C from
    // values it keeps in registers. Not graded; `--kernel fast` runs it.
    LAB_TODO("optional: write matmul_fast (handout, section Chasing cuBLAS)");
}

void matmul_naive_uncoalesced(const float *A, const float *B, float *C, int n, int ntx, int nty)
{
    // Exploration: a copy of your naive kernel whose row comes from the .x indices and whose
    // column comes from the .y ones, as in the slides' matMul; launch it here.
    LAB_TODO("exploration: write matmul_naive_uncoalesced (handout, section Coalescing)");
}

void matmul_tiled_uncoalesced(const float *A, const float *B, float *C, int n, int tile)
{
    // Exploration: the slides' "naively blocked" tiled kernel, with x and y swapped likewise.
    LAB_TODO("exploration: write matmul_tiled_uncoalesced (handout, section Coalescing)");
}
