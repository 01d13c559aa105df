// Lab 4, program 2: blocked Floyd-Warshall on one GPU (hw3-2 of [HW3 APSP n.d.]).
//
// The n x n matrix is padded to n_padded, a multiple of BLOCK, and cut into BLOCK x BLOCK
// blocks. Round r (one per block of the diagonal) has three phases:
//   phase 1: Floyd-Warshall inside the pivot block (r, r);
//   phase 2: the blocks of pivot row r and pivot column r, through the finished pivot block;
//   phase 3: every other block (i, j), through blocks (i, r) and (r, j), now final for round r.
// handouts/apsp.md draws the three phases.
// Build and check with:  make check LAB=apsp   (add EMU=1 on a machine without a GPU)
#include "apsp.h"

#ifndef BLOCK     // the blocking factor: a block is 64 x 64 entries, 16 KB of shared memory
#define BLOCK 64  // (another: make apsp DEFINES=-DBLOCK=32; handouts/apsp.md, Exploration 3)
#endif
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

// TODO 1: phase 1, Floyd-Warshall inside the pivot block (round, round). One thread block of
// 32 x 32 threads (HALF x HALF); thread (i, j) = (threadIdx.y, threadIdx.x) owns the four
// entries (i, j), (i, j + 32), (i + 32, j) and (i + 32, j + 32) of the block.
//   - load the block into a __shared__ int pivot[BLOCK][BLOCK]: entry (i, j) of block (R, C) is
//     dist[(size_t)(R * BLOCK + i) * n_padded + C * BLOCK + j]; then __syncthreads();
//   - for k = 0..63: each of your four entries = relax(pivot[i][k], pivot[k][j], pivot[i][j]),
//     then __syncthreads() before the next k;
//   - store the four entries back.
__global__ void phase1_kernel(int *dist, int n_padded, int round)
{
}

// TODO 2: phase 2, the pivot row's and the pivot column's blocks, through the pivot block.
// Launched on a grid of (blocks, 2), same threads as phase 1: blockIdx.x is the block b along
// the row or column (skip b == round: that is the pivot block), blockIdx.y says which:
//   0: block (round, b) of the pivot row:   own(i,j) = relax(pivot(i,k), own(k,j), own(i,j))
//   1: block (b, round) of the pivot column: own(i,j) = relax(own(i,k), pivot(k,j), own(i,j))
// Load both blocks into shared memory; a __syncthreads() after each k, as in phase 1.
__global__ void phase2_kernel(int *dist, int n_padded, int round)
{
}

// TODO 3: phase 3, every other block (R, C), R != round and C != round:
//   own(i,j) = relax(column(i,k), row(k,j), own(i,j))  for k = 0..63,
// where column is block (R, round) and row is block (round, C), both final after phase 2.
// Grid (blocks, blocks), 32 x 32 threads with four entries each. Load column and row into
// shared memory, keep your four entries in registers (only you update them, so no barrier is
// needed inside the k loop), and store them at the end.
__global__ void phase3_kernel(int *dist, int n_padded, int round)
{
}

// One round: the three phases, in order (each launch starts after the one before it ends).
static void run_round(int *dist_dev, int n_padded, int round)
{
    // TODO 4: launch phase1_kernel on 1 block, phase2_kernel on a grid of (blocks, 2) and
    // phase3_kernel on a grid of (blocks, blocks), where blocks = n_padded / BLOCK, each with
    // dim3(HALF, HALF) threads; CUDA_CHECK_LAUNCH() after each launch.
    LAB_TODO("launch the three phases of a round in run_round (gpu.c)");
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
