// Lab 4, program 2: blocked Floyd-Warshall on one GPU (hw3-2 of [HW3 APSP n.d.]).
//
// The n x n matrix is padded to n_padded, a multiple of BLOCK, and cut into BLOCK x BLOCK
// blocks. Round r (one per block of the diagonal) has three phases:
//   phase 1: Floyd-Warshall inside the pivot block (r, r);
//   phase 2: the blocks of pivot row r and pivot column r, through the finished pivot block;
//   phase 3: every other block (i, j), through blocks (i, r) and (r, j), now final for round r.
// handouts/apsp.md draws the three phases.
#include "apsp.h"

#define BLOCK 64  // the blocking factor: a block is 64 x 64 entries, 16 KB of shared memory
#define HALF 32   // phases 1 and 2: 32 x 32 threads, each owning four entries of a block

// min(a + b, d). On Hopper (sm_90) this is one DPX instruction; elsewhere CUDA emulates it.
static __device__ __forceinline__ int relax(int a, int b, int d)
{
    return __viaddmin_s32(a, b, d);
}

// Padding: entries of the vertices past n stay APSP_INF (no edges), so they change nothing.
__global__ void fill_kernel(int *data, size_t count, int value)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        data[i] = value;
}

// Phase 1: the pivot block; each thread owns four entries, 32 apart.
__global__ void phase1_kernel(int *dist, int n_padded, int round)
{
    __shared__ int pivot[BLOCK][BLOCK];
    int i = threadIdx.y, j = threadIdx.x;
    int *block = dist + (size_t)round * BLOCK * n_padded + round * BLOCK;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            pivot[i + a * HALF][j + b * HALF] = block[(size_t)(i + a * HALF) * n_padded + j + b * HALF];
    __syncthreads();
    for (int k = 0; k < BLOCK; k++) {
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                int r = i + a * HALF, c = j + b * HALF;
                pivot[r][c] = relax(pivot[r][k], pivot[k][c], pivot[r][c]);
            }
        __syncthreads();
    }
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            block[(size_t)(i + a * HALF) * n_padded + j + b * HALF] = pivot[i + a * HALF][j + b * HALF];
}

// Phase 2: blockIdx.y 0 is the pivot row's block (round, b), 1 the pivot column's (b, round).
__global__ void phase2_kernel(int *dist, int n_padded, int round)
{
    int b = blockIdx.x;
    if (b == round)
        return;
    __shared__ int pivot[BLOCK][BLOCK];
    __shared__ int own[BLOCK][BLOCK];
    int i = threadIdx.y, j = threadIdx.x;
    int R = blockIdx.y == 0 ? round : b;  // the pivot row's block (round, b), or the column's (b, round)
    int C = blockIdx.y == 0 ? b : round;
    int *pivot_block = dist + (size_t)round * BLOCK * n_padded + round * BLOCK;
    int *own_block = dist + (size_t)R * BLOCK * n_padded + C * BLOCK;
    for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++) {
            int r = i + a * HALF, col = j + c * HALF;
            pivot[r][col] = pivot_block[(size_t)r * n_padded + col];
            own[r][col] = own_block[(size_t)r * n_padded + col];
        }
    __syncthreads();
    for (int k = 0; k < BLOCK; k++) {
        for (int a = 0; a < 2; a++)
            for (int c = 0; c < 2; c++) {
                int r = i + a * HALF, col = j + c * HALF;
                if (blockIdx.y == 0)
                    own[r][col] = relax(pivot[r][k], own[k][col], own[r][col]);
                else
                    own[r][col] = relax(own[r][k], pivot[k][col], own[r][col]);
            }
        __syncthreads();
    }
    for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++)
            own_block[(size_t)(i + a * HALF) * n_padded + j + c * HALF] = own[i + a * HALF][j + c * HALF];
}

// Phase 3: every other block, my four entries in registers.
__global__ void phase3_kernel(int *dist, int n_padded, int round)
{
    int R = blockIdx.y, C = blockIdx.x;
    if (R == round || C == round)
        return;
    __shared__ int column[BLOCK][BLOCK];
    __shared__ int row[BLOCK][BLOCK];
    int i = threadIdx.y, j = threadIdx.x;
    int *own_block = dist + (size_t)R * BLOCK * n_padded + C * BLOCK;
    int *column_block = dist + (size_t)R * BLOCK * n_padded + round * BLOCK;
    int *row_block = dist + (size_t)round * BLOCK * n_padded + C * BLOCK;
    int mine[2][2];
    for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++) {
            int r = i + a * HALF, col = j + c * HALF;
            column[r][col] = column_block[(size_t)r * n_padded + col];
            row[r][col] = row_block[(size_t)r * n_padded + col];
            mine[a][c] = own_block[(size_t)r * n_padded + col];
        }
    __syncthreads();
    for (int k = 0; k < BLOCK; k++)
        for (int a = 0; a < 2; a++)
            for (int c = 0; c < 2; c++)
                mine[a][c] = relax(column[i + a * HALF][k], row[k][j + c * HALF], mine[a][c]);
    for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++)
            own_block[(size_t)(i + a * HALF) * n_padded + j + c * HALF] = mine[a][c];
}

// One round: the three phases, in order (each launch starts after the one before it ends).
static void run_round(int *dist_dev, int n_padded, int round)
{
    int blocks = n_padded / BLOCK;
    dim3 threads(HALF, HALF);
    phase1_kernel<<<1, threads>>>(dist_dev, n_padded, round);
    CUDA_CHECK_LAUNCH();
    phase2_kernel<<<dim3(blocks, 2), threads>>>(dist_dev, n_padded, round);
    CUDA_CHECK_LAUNCH();
    phase3_kernel<<<dim3(blocks, blocks), threads>>>(dist_dev, n_padded, round);
    CUDA_CHECK_LAUNCH();
}

void apsp_solve(int *dist, int n, ApspTimes *times)
{
    int n_padded = (n + BLOCK - 1) / BLOCK * BLOCK;
    size_t row_bytes = (size_t)n * sizeof(int), padded_row_bytes = (size_t)n_padded * sizeof(int);
    int *dist_dev = NULL;
    CUDA_CHECK(cudaMalloc((void **)&dist_dev, padded_row_bytes * n_padded));
    GpuTimer timer;

    timer.start();
    if (n_padded != n) {
        fill_kernel<<<1024, 256>>>(dist_dev, (size_t)n_padded * n_padded, APSP_INF);
        CUDA_CHECK_LAUNCH();
    }
    // Row i of the host matrix (n ints) goes to row i of the padded one (n_padded ints).
    CUDA_CHECK(cudaMemcpy2D(dist_dev, padded_row_bytes, dist, row_bytes, row_bytes, n, cudaMemcpyHostToDevice));
    timer.stop();
    times->copy_ms = timer.ms();

    timer.start();
    for (int round = 0; round < n_padded / BLOCK; ++round)
        run_round(dist_dev, n_padded, round);
    timer.stop();
    times->compute_ms = timer.ms();

    timer.start();
    CUDA_CHECK(cudaMemcpy2D(dist, row_bytes, dist_dev, padded_row_bytes, row_bytes, n, cudaMemcpyDeviceToHost));
    timer.stop();
    times->copy_ms += timer.ms();
    CUDA_CHECK(cudaFree(dist_dev));
}
