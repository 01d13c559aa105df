// Lab 4, program 2: my transcription of hw3-2 of the NTHU HW3 report ([HW3 APSP n.d.]):
// blocked Floyd-Warshall, blocking factor B = 64, blocks of dim3(32, 32) threads, each thread
// moving and updating four entries of a 64 x 64 block: (i, j), (i, j_B), (i_B, j), (i_B, j_B).
// Kept: N = n rounded up to a multiple of 64 with the padding vertices doing "empty work",
// phase_one (s[][], a __syncthreads() after the loads and after each k), phase_two (s, ver, hor
// updated together, one thread block per block of the pivot row and column), phase_three
// (self, a, b; no barrier inside the k loop), the launches and the copies as printed.
// Changed for the lab: the harness reads the file and gives an n x n matrix, so the padded
// N x N Dist is made here (0 on the diagonal, INF elsewhere, so the padding changes nothing);
// phase_two and phase_three skip the pivot block and the pivot row and column, which are
// already final (the report does not show those lines); every call is checked; times filled in.
#include <stdlib.h>

#include "apsp.h"

#define B 64
#define INF APSP_INF

__device__ int Min(int a, int b) { return a < b ? a : b; }

__global__ void phase_one(int *dst, int r, int N)
{
    __shared__ int s[B][B];
    int i = threadIdx.y, j = threadIdx.x;
    int i_B = i + 32, j_B = j + 32;
    int offset = r * B;
    int place = (offset + i) * N + offset + j;
    int place_right = (offset + i) * N + offset + j_B;
    int place_down = (offset + i_B) * N + offset + j;
    int place_down_right = (offset + i_B) * N + offset + j_B;

    s[i][j] = dst[place];
    s[i][j_B] = dst[place_right];
    s[i_B][j] = dst[place_down];
    s[i_B][j_B] = dst[place_down_right];
    __syncthreads();

    for (int k = 0; k < B; ++k) {
        s[i][j] = Min(s[i][k] + s[k][j], s[i][j]);
        s[i][j_B] = Min(s[i][k] + s[k][j_B], s[i][j_B]);
        s[i_B][j] = Min(s[i_B][k] + s[k][j], s[i_B][j]);
        s[i_B][j_B] = Min(s[i_B][k] + s[k][j_B], s[i_B][j_B]);
        __syncthreads();
    }
    dst[place] = s[i][j];
    dst[place_right] = s[i][j_B];
    dst[place_down] = s[i_B][j];
    dst[place_down_right] = s[i_B][j_B];
}

// Block b of the pivot column ("ver", block (b, r)) and of the pivot row ("hor", block (r, b)).
__global__ void phase_two(int *dst, int r, int N)
{
    int b = blockIdx.x;
    if (b == r)
        return;  // the pivot block itself: done in phase one
    __shared__ int s[B][B];
    __shared__ int ver[B][B];
    __shared__ int hor[B][B];
    int i = threadIdx.y, j = threadIdx.x;
    int i_B = i + 32, j_B = j + 32;
    int offset = r * B, other = b * B;
    int diagonal_place = (offset + i) * N + offset + j;
    int diagonal_place_right = (offset + i) * N + offset + j_B;
    int diagonal_place_down = (offset + i_B) * N + offset + j;
    int diagonal_place_down_right = (offset + i_B) * N + offset + j_B;
    int ver_place = (other + i) * N + offset + j;
    int ver_place_right = (other + i) * N + offset + j_B;
    int ver_place_down = (other + i_B) * N + offset + j;
    int ver_place_down_right = (other + i_B) * N + offset + j_B;
    int hor_place = (offset + i) * N + other + j;
    int hor_place_right = (offset + i) * N + other + j_B;
    int hor_place_down = (offset + i_B) * N + other + j;
    int hor_place_down_right = (offset + i_B) * N + other + j_B;

    s[i][j] = dst[diagonal_place];
    s[i][j_B] = dst[diagonal_place_right];
    s[i_B][j] = dst[diagonal_place_down];
    s[i_B][j_B] = dst[diagonal_place_down_right];
    ver[i][j] = dst[ver_place];
    ver[i][j_B] = dst[ver_place_right];
    ver[i_B][j] = dst[ver_place_down];
    ver[i_B][j_B] = dst[ver_place_down_right];
    hor[i][j] = dst[hor_place];
    hor[i][j_B] = dst[hor_place_right];
    hor[i_B][j] = dst[hor_place_down];
    hor[i_B][j_B] = dst[hor_place_down_right];
    __syncthreads();  // everyone has loaded

    for (int k = 0; k < B; ++k) {
        ver[i][j] = Min(ver[i][j], ver[i][k] + s[k][j]);
        ver[i][j_B] = Min(ver[i][j_B], ver[i][k] + s[k][j_B]);
        ver[i_B][j] = Min(ver[i_B][j], ver[i_B][k] + s[k][j]);
        ver[i_B][j_B] = Min(ver[i_B][j_B], ver[i_B][k] + s[k][j_B]);
        hor[i][j] = Min(hor[i][j], s[i][k] + hor[k][j]);
        hor[i][j_B] = Min(hor[i][j_B], s[i][k] + hor[k][j_B]);
        hor[i_B][j] = Min(hor[i_B][j], s[i_B][k] + hor[k][j]);
        hor[i_B][j_B] = Min(hor[i_B][j_B], s[i_B][k] + hor[k][j_B]);
        __syncthreads();
    }
    dst[ver_place] = ver[i][j];
    dst[ver_place_right] = ver[i][j_B];
    dst[ver_place_down] = ver[i_B][j];
    dst[ver_place_down_right] = ver[i_B][j_B];
    dst[hor_place] = hor[i][j];
    dst[hor_place_right] = hor[i][j_B];
    dst[hor_place_down] = hor[i_B][j];
    dst[hor_place_down_right] = hor[i_B][j_B];
}

// Block (block_y, blockIdx.x) through a = (block_y, r) and b = (r, blockIdx.x).
__global__ void phase_three(int *dst, int r, int N)
{
    int block_x = blockIdx.x, block_y = blockIdx.y;
    if (block_x == r || block_y == r)
        return;  // the pivot row and column: done in phase two
    __shared__ int self[B][B];
    __shared__ int a[B][B];
    __shared__ int b[B][B];
    int i = threadIdx.y, j = threadIdx.x;
    int i_B = i + 32, j_B = j + 32;
    int offset = r * B, row = block_y * B, col = block_x * B;
    int self_place = (row + i) * N + col + j;
    int self_place_right = (row + i) * N + col + j_B;
    int self_place_down = (row + i_B) * N + col + j;
    int self_place_down_right = (row + i_B) * N + col + j_B;
    int a_place = (row + i) * N + offset + j;
    int a_place_right = (row + i) * N + offset + j_B;
    int a_place_down = (row + i_B) * N + offset + j;
    int a_place_down_right = (row + i_B) * N + offset + j_B;
    int b_place = (offset + i) * N + col + j;
    int b_place_right = (offset + i) * N + col + j_B;
    int b_place_down = (offset + i_B) * N + col + j;
    int b_place_down_right = (offset + i_B) * N + col + j_B;

    self[i][j] = dst[self_place];
    self[i][j_B] = dst[self_place_right];
    self[i_B][j] = dst[self_place_down];
    self[i_B][j_B] = dst[self_place_down_right];
    a[i][j] = dst[a_place];
    a[i][j_B] = dst[a_place_right];
    a[i_B][j] = dst[a_place_down];
    a[i_B][j_B] = dst[a_place_down_right];
    b[i][j] = dst[b_place];
    b[i][j_B] = dst[b_place_right];
    b[i_B][j] = dst[b_place_down];
    b[i_B][j_B] = dst[b_place_down_right];
    __syncthreads();

    for (int k = 0; k < B; ++k) {
        self[i][j] = Min(a[i][k] + b[k][j], self[i][j]);
        self[i][j_B] = Min(a[i][k] + b[k][j_B], self[i][j_B]);
        self[i_B][j] = Min(a[i_B][k] + b[k][j], self[i_B][j]);
        self[i_B][j_B] = Min(a[i_B][k] + b[k][j_B], self[i_B][j_B]);
    }
    dst[self_place] = self[i][j];
    dst[self_place_right] = self[i][j_B];
    dst[self_place_down] = self[i_B][j];
    dst[self_place_down_right] = self[i_B][j_B];
}

void apsp_solve(int *dist, int n, ApspTimes *times)
{
    // Set N size
    int N;
    if (n % B) N = n + (B - n % B);
    else N = n;
    // malloc Dist size
    int *Dist = (int *)malloc((size_t)N * N * sizeof(int));
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j)
            Dist[i * N + j] = (i < n && j < n) ? dist[(size_t)i * n + j] : (i == j ? 0 : INF);

    GpuTimer timer;
    int *dst;
    timer.start();
    CUDA_CHECK(cudaMalloc(&dst, (size_t)N * N * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(dst, Dist, (size_t)N * N * sizeof(int), cudaMemcpyHostToDevice));
    timer.stop();
    times->copy_ms = timer.ms();

    int blocks = (N + B - 1) / B;
    int round = blocks;
    dim3 block_dim(32, 32);
    dim3 grid_dim(blocks, blocks);
    timer.start();
    for (int r = 0; r < round; ++r) {
        // phase 1
        phase_one<<<1, block_dim>>>(dst, r, N);
        CUDA_CHECK_LAUNCH();
        // phase 2
        phase_two<<<blocks, block_dim>>>(dst, r, N);
        CUDA_CHECK_LAUNCH();
        // phase 3
        phase_three<<<grid_dim, block_dim>>>(dst, r, N);
        CUDA_CHECK_LAUNCH();
    }
    timer.stop();
    times->compute_ms = timer.ms();

    timer.start();
    CUDA_CHECK(cudaMemcpy(Dist, dst, (size_t)N * N * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dst));
    timer.stop();
    times->copy_ms += timer.ms();
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            dist[(size_t)i * n + j] = Dist[i * N + j];
    free(Dist);
}
