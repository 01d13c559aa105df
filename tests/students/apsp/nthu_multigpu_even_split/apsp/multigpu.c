// Lab 4, program 3: my transcription of hw3-3 of the NTHU HW3 report ([HW3 APSP n.d.]):
// the same three phases on several GPUs, one OpenMP thread for each. Kept: dst[] shared by the
// threads, each thread cudaSetDevice(its number) and cudaMalloc(N*N) on it, start_offset and
// total_row (the block rows a GPU owns), dist_offset / total_byte_num / one_row_byte_num, only a
// GPU's own rows copied up, peer access enabled, a barrier before the rounds; each round the
// owner of block row r copies it (one_row_byte_num) to the others with cudaMemcpy, a barrier,
// phase_one and phase_two on every GPU, phase_three on a grid of (blocks, total_row) with the
// row offset, and each GPU's own rows copied back.
// Changed for the lab: the report is written for two GPUs (num_threads(2), the neighbour
// !cpu_thread_id, total_row = round / 2 with the odd block row to GPU 1); the grader runs on
// 2 and 3, so: as many threads as GPUs, each GPU round / gpus block rows (the report's
// round / 2), the pivot row copied to every other GPU. The report copies Dist up with
// cudaMemcpyDeviceToDevice although Dist is host memory: cudaMemcpyHostToDevice here. And a
// second barrier at the end of each round (after a cudaDeviceSynchronize): every GPU runs
// phase_two on the whole pivot column, so its stale copy of the next pivot row gets written
// too, and that write must be over before the owner sends the real row. The padded Dist is
// made here as in my gpu.c; every call is checked; times filled in.
#include <omp.h>
#include <stdlib.h>

#include "apsp.h"

#define MAX_GPUS 16

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

// Block (block_y, blockIdx.x) through a = (block_y, r) and b = (r, blockIdx.x); block_y is
// the row this thread block actually computes, blockIdx.y + row_offset.
__global__ void phase_three(int *dst, int r, int N, int row_offset)
{
    int block_x = blockIdx.x, block_y = blockIdx.y + row_offset;
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

    int blocks = (N + B - 1) / B;
    int round = blocks;
    dim3 block_dim(32, 32);
    int gpus;
    CUDA_CHECK(cudaGetDeviceCount(&gpus));
    if (gpus > MAX_GPUS) gpus = MAX_GPUS;
    if (gpus > round) gpus = round;  // every GPU owns at least one block row
    int *dst[MAX_GPUS];
    HostTimer timer;

    #pragma omp parallel num_threads(gpus)
    {
        // get thread number
        unsigned int cpu_thread_id = omp_get_thread_num();
        // thread set its device and malloc same memory in the device
        CUDA_CHECK(cudaSetDevice(cpu_thread_id));
        CUDA_CHECK(cudaMalloc(&dst[cpu_thread_id], (size_t)N * N * sizeof(int)));
        // the block rows this GPU is responsible for
        unsigned int start_offset = cpu_thread_id * (round / gpus);
        unsigned int total_row = round / gpus;
        // set grid dimension
        dim3 grid_dim(blocks, total_row);
        // where this GPU's rows start in dist, and their bytes
        size_t dist_offset = (size_t)start_offset * N * B;
        size_t total_byte_num = (size_t)total_row * N * B * sizeof(int);
        size_t one_row_byte_num = (size_t)B * N * sizeof(int);
        // copy this GPU's rows of Dist up
        CUDA_CHECK(cudaMemcpy(dst[cpu_thread_id] + dist_offset, Dist + dist_offset, total_byte_num, cudaMemcpyHostToDevice));
        // allow the other devices to copy data into this one
        for (int nei = 0; nei < gpus; ++nei) {
            int can = 0;
            if (nei != (int)cpu_thread_id)
                CUDA_CHECK(cudaDeviceCanAccessPeer(&can, cpu_thread_id, nei));
            if (can)
                CUDA_CHECK(cudaDeviceEnablePeerAccess(nei, 0));
        }
        #pragma omp barrier
        #pragma omp single
        {
            times->copy_ms = timer.ms();
            timer.restart();
        }

        for (int r = 0; r < round; ++r) {
            size_t start_offset_num = (size_t)r * B * N;
            if (r >= (int)start_offset && r < (int)(start_offset + total_row)) {
                for (int nei = 0; nei < gpus; ++nei)
                    if (nei != (int)cpu_thread_id)
                        CUDA_CHECK(cudaMemcpy(dst[nei] + start_offset_num, dst[cpu_thread_id] + start_offset_num,
                                              one_row_byte_num, cudaMemcpyDeviceToDevice));
            }
            // start computing only once the row has arrived
            #pragma omp barrier
            phase_one<<<1, block_dim>>>(dst[cpu_thread_id], r, N);
            CUDA_CHECK_LAUNCH();
            phase_two<<<blocks, block_dim>>>(dst[cpu_thread_id], r, N);
            CUDA_CHECK_LAUNCH();
            phase_three<<<grid_dim, block_dim>>>(dst[cpu_thread_id], r, N, start_offset);
            CUDA_CHECK_LAUNCH();
            CUDA_CHECK(cudaDeviceSynchronize());
            #pragma omp barrier
        }
        #pragma omp single
        {
            times->compute_ms = timer.ms();
            timer.restart();
        }
        // copy this GPU's rows back to Dist
        CUDA_CHECK(cudaMemcpy(Dist + dist_offset, dst[cpu_thread_id] + dist_offset, total_byte_num, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaFree(dst[cpu_thread_id]));
    }
    times->copy_ms += timer.ms();
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            dist[(size_t)i * n + j] = Dist[i * N + j];
    free(Dist);
}
