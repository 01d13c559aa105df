// Lab 2: C = A·B, my transcription of Baden's Lab #2 slides ([Baden & Unat 2010]).
//
// naive: the "Device Kernel Function" slide's matMul as printed, I = blockIdx.x*bx + tx (the
//   row) and J = blockIdx.y*by + ty (the column): float _c, a and b loaded one by one,
//   C[I * N + J] = _c.
// tiled: the "Synchronization" / "Pseudo-code" slides: Ablock and Bblock of BLOCKDIM_Y x
//   BLOCKDIM_X in shared memory, __syncthreads() before and after reading a tile, the loads of
//   the coalesced slide (Ablock[ty][tx] = A[I*N+k*by+tx], Bblock[ty][tx] = B[J+N*(k*bx+ty)]).
// uncoalesced (explorations): the slides' matMul as printed (I from the .x indices) and the
//   "Naively Blocked" slide.
// Changed for the lab: N comes in as n instead of blockDim.y*gridDim.y ("Assume a square
// matrix" that the grid covers exactly), the grid is rounded up instead of n / threads.x, and
// tiles past the edge load zeros, since n need not be a multiple of the block. Launches are
// checked with CUDA_CHECK_LAUNCH and the harness does the cudaThreadSynchronize's waiting.
#include "matmul.h"

// ---- 1. naive ---------------------------------------------------------------------------------

__global__ void matMul(float *C, const float *A, const float *B, int N)
{
    int I = blockIdx.x * blockDim.x + threadIdx.x;
    int J = blockIdx.y * blockDim.y + threadIdx.y;

    if ((I < N) && (J < N)) {
        float _c = 0;
        for (unsigned int k = 0; k < N; k++) {  // perform dot product
            float a = A[I * N + k];
            float b = B[k * N + J];
            _c += a * b;
        }
        C[I * N + J] = _c;
    }
}

void matmul_naive(const float *A, const float *B, float *C, int n, int ntx, int nty)
{
    // setup execution configurations
    dim3 threads(ntx, nty, 1);
    dim3 grid((n + threads.x - 1) / threads.x, (n + threads.y - 1) / threads.y);
    // launch the kernel
    matMul<<<grid, threads>>>(C, A, B, n);
    CUDA_CHECK_LAUNCH();
}

// ---- 2. tiled ---------------------------------------------------------------------------------

template <int BLOCKDIM>
__global__ void matMulTiled(float *C, const float *A, const float *B, int N)
{
    __shared__ float Ablock[BLOCKDIM][BLOCKDIM];
    __shared__ float Bblock[BLOCKDIM][BLOCKDIM];

    // compute global indices from thread id and block ids
    int tx = threadIdx.x, ty = threadIdx.y;
    int bx = BLOCKDIM, by = BLOCKDIM;
    int I = blockIdx.y * by + ty;
    int J = blockIdx.x * bx + tx;

    float c = 0;
    for (int k = 0; k < (N + BLOCKDIM - 1) / BLOCKDIM; k++) {  // for each N/BLOCKDIM_X
        __syncthreads();
        // read an element of a block in A and one of B into shared memory
        Ablock[ty][tx] = (I < N && k * by + tx < N) ? A[I * N + k * by + tx] : 0.0f;
        Bblock[ty][tx] = (J < N && k * bx + ty < N) ? B[J + N * (k * bx + ty)] : 0.0f;
        __syncthreads();

        for (int kk = 0; kk < BLOCKDIM; kk++)  // for each element in a block
            c += Ablock[ty][kk] * Bblock[kk][tx];
    }
    if (I < N && J < N)
        C[I * N + J] = c;  // store c in global memory
}

template <int BLOCKDIM>
static void launch_tiled(const float *A, const float *B, float *C, int n)
{
    dim3 threads(BLOCKDIM, BLOCKDIM, 1);
    dim3 grid((n + BLOCKDIM - 1) / BLOCKDIM, (n + BLOCKDIM - 1) / BLOCKDIM);
    matMulTiled<BLOCKDIM><<<grid, threads>>>(C, A, B, n);
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

// ---- 3. optional ------------------------------------------------------------------------------

void matmul_fast(const float *A, const float *B, float *C, int n)
{
    // Optional (handout, "Chasing cuBLAS"): each thread computes several elements of C from
    // values it keeps in registers. Not graded; `--kernel fast` runs it.
    LAB_TODO("optional: write matmul_fast (handout, section Chasing cuBLAS)");
}

// ---- explorations: the slides' own, uncoalesced, indices --------------------------------------

// The "Device Kernel Function" slide as printed: I (the row) from the .x indices.
__global__ void matMulUncoalesced(float *C, const float *A, const float *B, int N)
{
    int I = blockIdx.x * blockDim.x + threadIdx.x;
    int J = blockIdx.y * blockDim.y + threadIdx.y;

    if ((I < N) && (J < N)) {
        float _c = 0;
        for (unsigned int k = 0; k < N; k++) {
            float a = A[I * N + k];
            float b = B[k * N + J];
            _c += a * b;
        }
        C[I * N + J] = _c;
    }
}

void matmul_naive_uncoalesced(const float *A, const float *B, float *C, int n, int ntx, int nty)
{
    dim3 threads(ntx, nty, 1);
    dim3 grid((n + threads.x - 1) / threads.x, (n + threads.y - 1) / threads.y);
    matMulUncoalesced<<<grid, threads>>>(C, A, B, n);
    CUDA_CHECK_LAUNCH();
}

// The "Naively Blocked" slide: I = blockIdx.x*bx + tx, J = blockIdx.y*by + ty,
// a[tx][ty] = A[I*N+k*by+ty], b[ty][tx] = B[J+N*(k*bx+tx)].
template <int BLOCKDIM>
__global__ void matMulNaivelyBlocked(float *C, const float *A, const float *B, int N)
{
    __shared__ float a[BLOCKDIM][BLOCKDIM];
    __shared__ float b[BLOCKDIM][BLOCKDIM];
    int tx = threadIdx.x, ty = threadIdx.y;
    int bx = BLOCKDIM, by = BLOCKDIM;
    int I = blockIdx.x * bx + tx;
    int J = blockIdx.y * by + ty;

    float c = 0;
    for (int k = 0; k < (N + BLOCKDIM - 1) / BLOCKDIM; k++) {
        __syncthreads();
        a[tx][ty] = (I < N && k * by + ty < N) ? A[I * N + k * by + ty] : 0.0f;
        b[ty][tx] = (J < N && k * bx + tx < N) ? B[J + N * (k * bx + tx)] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < BLOCKDIM; kk++)
            c += a[tx][kk] * b[ty][kk];
    }
    if (I < N && J < N)
        C[I * N + J] = c;
}

template <int BLOCKDIM>
static void launch_naively_blocked(const float *A, const float *B, float *C, int n)
{
    dim3 threads(BLOCKDIM, BLOCKDIM, 1);
    dim3 grid((n + BLOCKDIM - 1) / BLOCKDIM, (n + BLOCKDIM - 1) / BLOCKDIM);
    matMulNaivelyBlocked<BLOCKDIM><<<grid, threads>>>(C, A, B, n);
    CUDA_CHECK_LAUNCH();
}

void matmul_tiled_uncoalesced(const float *A, const float *B, float *C, int n, int tile)
{
    switch (tile) {
    case 4: launch_naively_blocked<4>(A, B, C, n); break;
    case 8: launch_naively_blocked<8>(A, B, C, n); break;
    case 16: launch_naively_blocked<16>(A, B, C, n); break;
    case 32: launch_naively_blocked<32>(A, B, C, n); break;
    default: fprintf(stderr, "matmul_tiled_uncoalesced: tile %d is not 4, 8, 16 or 32\n", tile); exit(LAB_EXIT_USAGE);
    }
}
