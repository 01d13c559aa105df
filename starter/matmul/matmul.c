// Lab 2: C = A·B on the GPU, first naive, then tiled in shared memory.
// Fill in each TODO in order; matmul.h says what each function must do, and handouts/matmul.md
// walks through them. Build and check with:  make check LAB=matmul   (EMU=1 without a GPU)
// Try one kernel by hand with, e.g.:  ./build/starter/matmul/matmul --n 1000 --kernel naive
#include "matmul.h"

// ---- 1. naive: one thread per element of C ----------------------------------------------------

// TODO 1: the naive kernel. Each thread computes its row from blockIdx.y, blockDim.y and
// threadIdx.y, and its column from the .x ones (so that threadIdx.x walks along a row of C),
// then, only if both are below n, the dot product of row `row` of A and column `col` of B:
//     sum over k of A[row * n + k] * B[k * n + col], stored in C[row * n + col].
// Accumulate in a float local variable, not in C.
__global__ void naive_kernel(const float *A, const float *B, float *C, int n)
{
}

void matmul_naive(const float *A, const float *B, float *C, int n, int ntx, int nty)
{
    // TODO 2: blocks of ntx × nty threads (dim3 threads(ntx, nty)), and a grid of enough
    // blocks to cover all n × n elements: n / ntx ROUNDED UP in x, n / nty rounded up in y.
    // Launch naive_kernel<<<grid, threads>>>(A, B, C, n), then CUDA_CHECK_LAUNCH().
    // (No cudaDeviceSynchronize here: the harness waits for the kernel and times it.)
    LAB_TODO("compute the grid and launch naive_kernel in matmul_naive");
}

// ---- 2. tiled: tiles of A and B in shared memory ----------------------------------------------

// TODO 3: the tiled kernel, for blocks of TILE × TILE threads. Declare two shared tiles,
//     __shared__ float Ablock[TILE][TILE];
//     __shared__ float Bblock[TILE][TILE];
// and follow the slides' pseudo-code: the thread (tx, ty) of block (bx, by) computes C's
// element at row = by * TILE + ty, col = bx * TILE + tx. For each k0 = 0, TILE, 2*TILE, ... < n:
//     __syncthreads();            // everyone is done reading the previous tiles
//     Ablock[ty][tx] = A[row][k0 + tx];   Bblock[ty][tx] = B[k0 + ty][col];
//                                 // (0.0f instead where the index is past n: see below)
//     __syncthreads();            // the tiles are complete
//     sum += Ablock[ty][k] * Bblock[k][tx] for k = 0 .. TILE-1
// and at the end, if row < n and col < n, C[row * n + col] = sum.
// When n is not a multiple of TILE, the last tiles hang over the edge: load zeros there (they
// add nothing to the sum). Don't return early from threads outside C: every thread of the
// block must reach both __syncthreads, and their loads fill the tiles others need.
template <int TILE>
__global__ void tiled_kernel(const float *A, const float *B, float *C, int n)
{
}

template <int TILE>
static void launch_tiled(const float *A, const float *B, float *C, int n)
{
    // TODO 4: blocks of TILE × TILE threads, enough of them to cover C (rounded up, as in
    // TODO 2); launch tiled_kernel<TILE><<<grid, threads>>>(A, B, C, n); CUDA_CHECK_LAUNCH().
    LAB_TODO("compute the grid and launch tiled_kernel in launch_tiled");
}

// TILE sizes the shared arrays, so it must be known when compiling: each tile size the harness
// accepts is its own instance of the templates above.
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

// ---- 3. optional: as fast as you can ----------------------------------------------------------

void matmul_fast(const float *A, const float *B, float *C, int n)
{
    // Optional (handout, exploration 5, "The road to cuBLAS"): each thread computes several elements of C from
    // values it keeps in registers. Not graded; `--kernel fast` runs it.
    LAB_TODO("optional: write matmul_fast (handout, exploration 5: The road to cuBLAS)");
}

// ---- 4. optional: past cuBLAS, on the tensor cores ----------------------------------------------

void matmul_tensor(const float *A, const float *B, float *C, int n)
{
    // Optional (handout, exploration 7, "Past cuBLAS: tensor cores"): nvcuda::wmma fragments of
    // precision::tf32 (#include <mma.h>), each operand split into a TF32 value and a TF32
    // residual, three mma_sync per pair of fragments. Not graded; `--kernel tensor` runs it.
    LAB_TODO("optional: write matmul_tensor (handout, exploration 7: Past cuBLAS: tensor cores)");
}

void matmul_tensor_1xtf32(const float *A, const float *B, float *C, int n)
{
    // Optional, with matmul_tensor: the same kernel with one mma_sync of the operands rounded
    // to TF32 (wmma::__float_to_tf32), to see what the split buys. `--kernel tensor_1xtf32`.
    LAB_TODO("optional: write matmul_tensor_1xtf32 (handout, exploration 7: Past cuBLAS: tensor cores)");
}

// ---- explorations (handout, "Coalescing") -----------------------------------------------------

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
