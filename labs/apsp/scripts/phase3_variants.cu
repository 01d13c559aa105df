// Phase-3 variants of the blocked Floyd-Warshall, one pivot block a round (phase3_sweep.cu has
// the steps after these: several pivots a round), timed side by side on one GPU: the numbers
// behind the reference's choice (handouts/apsp.md, "Going further"). Instructor tool: it
// includes the reference solution (solutions/apsp/gpu.c) for phases 1 and 2, and times phases
// 1 and 2 alone, the reference's phase 2 and the report's.
//
//   nvcc -std=c++17 -arch=sm_90 -O3 -Ilabs/common -Ilabs/apsp \
//        labs/apsp/scripts/phase3_variants.cu -o build/phase3_variants && build/phase3_variants 16384
//
// Every variant runs the whole algorithm (all rounds, phases 1 and 2 from the reference) on the
// same random matrix; the result must equal the reference's entry for entry.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../../../solutions/apsp/gpu.c"
#include "sweep_check.h"  // HALF: the seed's kernels below, HALF x HALF threads, four entries each

// The report's phase 2, k by k with a barrier each (the starter's way), to time against the
// reference's min-plus product.
__global__ void phase2_seed(int *dist, int n_padded, int round)
{
    int b = blockIdx.x;
    if (b == round)
        return;
    __shared__ int pivot[BLOCK][BLOCK], own[BLOCK][BLOCK];
    bool in_pivot_row = blockIdx.y == 0;
    int block_row = in_pivot_row ? round : b, block_col = in_pivot_row ? b : round;
    int i = threadIdx.y, j = threadIdx.x;
    const int *pivot_src = dist + (size_t)round * BLOCK * n_padded + round * BLOCK;
    int *block = dist + (size_t)block_row * BLOCK * n_padded + block_col * BLOCK;
    for (int di = 0; di < BLOCK; di += HALF)
        for (int dj = 0; dj < BLOCK; dj += HALF) {
            pivot[i + di][j + dj] = pivot_src[(size_t)(i + di) * n_padded + j + dj];
            own[i + di][j + dj] = block[(size_t)(i + di) * n_padded + j + dj];
        }
    __syncthreads();
    for (int k = 0; k < BLOCK; ++k) {
        for (int di = 0; di < BLOCK; di += HALF)
            for (int dj = 0; dj < BLOCK; dj += HALF) {
                int a = in_pivot_row ? pivot[i + di][k] : own[i + di][k];
                int c = in_pivot_row ? own[k][j + dj] : pivot[k][j + dj];
                own[i + di][j + dj] = relax(a, c, own[i + di][j + dj]);
            }
        __syncthreads();
    }
    for (int di = 0; di < BLOCK; di += HALF)
        for (int dj = 0; dj < BLOCK; dj += HALF)
            block[(size_t)(i + di) * n_padded + j + dj] = own[i + di][j + dj];
}

// Variant "seed": the report's phase 3, 32 x 32 threads, four entries each kept in registers.
template <bool kDpx>
__global__ void phase3_four_entries(int *dist, int n_padded, int round)
{
    int block_row = blockIdx.y, block_col = blockIdx.x;
    if (block_row == round || block_col == round)
        return;
    __shared__ int col[BLOCK][BLOCK], row[BLOCK][BLOCK];
    int i = threadIdx.y, j = threadIdx.x;
    const int *col_src = dist + (size_t)block_row * BLOCK * n_padded + round * BLOCK;
    const int *row_src = dist + (size_t)round * BLOCK * n_padded + block_col * BLOCK;
    int *own = dist + (size_t)block_row * BLOCK * n_padded + block_col * BLOCK;
    int d[2][2];
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
            size_t at = (size_t)(i + a * HALF) * n_padded + j + b * HALF;
            col[i + a * HALF][j + b * HALF] = col_src[at];
            row[i + a * HALF][j + b * HALF] = row_src[at];
            d[a][b] = own[at];
        }
    __syncthreads();
    #pragma unroll 8
    for (int k = 0; k < BLOCK; ++k)
        for (int a = 0; a < 2; ++a)
            for (int b = 0; b < 2; ++b) {
                int x = col[i + a * HALF][k], y = row[k][j + b * HALF];
                d[a][b] = kDpx ? __viaddmin_s32(x, y, d[a][b]) : min(x + y, d[a][b]);
            }
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b)
            own[(size_t)(i + a * HALF) * n_padded + j + b * HALF] = d[a][b];
}

// Variant "tile": THREADS_SIDE^2 threads, each an (64 / THREADS_SIDE)^2 tile in registers, the
// pivot column transposed in shared memory (the reference's layout, generalised).
template <int kSide, bool kDpx>
__global__ void __launch_bounds__(kSide * kSide) phase3_tiled(int *dist, int n_padded, int round)
{
    constexpr int kThreads = kSide * kSide, kTile = BLOCK / kSide, kQuads = kTile / 4;
    int block_row = blockIdx.y, block_col = blockIdx.x;
    if (block_row == round || block_col == round)
        return;
    __shared__ __align__(16) int col_t[BLOCK][BLOCK];
    __shared__ __align__(16) int row[BLOCK][BLOCK];
    int t = threadIdx.x, tx = t % kSide, ty = t / kSide;
    const int *col_src = dist + (size_t)block_row * BLOCK * n_padded + round * BLOCK;
    const int *row_src = dist + (size_t)round * BLOCK * n_padded + block_col * BLOCK;
    for (int q = t; q < BLOCK * BLOCK / 4; q += kThreads) {
        int r = q / (BLOCK / 4), c = q % (BLOCK / 4) * 4;
        *(int4 *)&row[r][c] = *(const int4 *)&row_src[(size_t)r * n_padded + c];
        int i = q % BLOCK, k = q / BLOCK * 4;
        int4 v = *(const int4 *)&col_src[(size_t)i * n_padded + k];
        col_t[k][i] = v.x; col_t[k + 1][i] = v.y; col_t[k + 2][i] = v.z; col_t[k + 3][i] = v.w;
    }
    // Thread rows: quad q at q * (BLOCK / kQuads) + 4 * ty; the same for columns with tx.
    int *own = dist + (size_t)block_row * BLOCK * n_padded + block_col * BLOCK;
    int d[kTile][kTile];
    #pragma unroll
    for (int a = 0; a < kTile; ++a) {
        int i = (a / 4) * (BLOCK / kQuads) + 4 * ty + a % 4;
        #pragma unroll
        for (int qb = 0; qb < kQuads; ++qb) {
            int4 v = *(const int4 *)&own[(size_t)i * n_padded + qb * (BLOCK / kQuads) + 4 * tx];
            d[a][4 * qb] = v.x; d[a][4 * qb + 1] = v.y; d[a][4 * qb + 2] = v.z; d[a][4 * qb + 3] = v.w;
        }
    }
    __syncthreads();
    #pragma unroll 4
    for (int k = 0; k < BLOCK; ++k) {
        int a[kTile], b[kTile];
        #pragma unroll
        for (int q = 0; q < kQuads; ++q) {
            int4 va = *(const int4 *)&col_t[k][q * (BLOCK / kQuads) + 4 * ty];
            int4 vb = *(const int4 *)&row[k][q * (BLOCK / kQuads) + 4 * tx];
            a[4 * q] = va.x; a[4 * q + 1] = va.y; a[4 * q + 2] = va.z; a[4 * q + 3] = va.w;
            b[4 * q] = vb.x; b[4 * q + 1] = vb.y; b[4 * q + 2] = vb.z; b[4 * q + 3] = vb.w;
        }
        #pragma unroll
        for (int x = 0; x < kTile; ++x)
            #pragma unroll
            for (int y = 0; y < kTile; ++y)
                d[x][y] = kDpx ? __viaddmin_s32(a[x], b[y], d[x][y]) : min(a[x] + b[y], d[x][y]);
    }
    #pragma unroll
    for (int a = 0; a < kTile; ++a) {
        int i = (a / 4) * (BLOCK / kQuads) + 4 * ty + a % 4;
        #pragma unroll
        for (int qb = 0; qb < kQuads; ++qb)
            *(int4 *)&own[(size_t)i * n_padded + qb * (BLOCK / kQuads) + 4 * tx] =
                make_int4(d[a][4 * qb], d[a][4 * qb + 1], d[a][4 * qb + 2], d[a][4 * qb + 3]);
    }
}

// Variant "super": a 128 x 128 output tile per thread block (2 x 2 blocks), 256 threads of
// 8 x 8 entries, so the pivot tiles read from L2 serve twice the updates. Blocks of the pivot
// row or column inside a tile are recomputed but not stored (phase 2 made them final).
__global__ void __launch_bounds__(256) phase3_super(int *dist, int n_padded, int round)
{
    extern __shared__ __align__(16) int smem[];
    int (*col_t)[128] = (int (*)[128])smem;               // [64][128]
    int (*row)[128] = (int (*)[128])(smem + BLOCK * 128); // [64][128]
    int t = threadIdx.x, tx = t % 16, ty = t / 16;
    int base_row = blockIdx.y * 128, base_col = blockIdx.x * 128;
    int pivot = round * BLOCK;
    for (int q = t; q < 128 * BLOCK / 4; q += 256) {
        int r = q / 32, c = q % 32 * 4;  // row: 64 rows of 128
        *(int4 *)&row[r][c] = *(const int4 *)&dist[(size_t)(pivot + r) * n_padded + base_col + c];
        int i = q % 128, k = q / 128 * 4;  // col: 128 rows of 64
        int4 v = *(const int4 *)&dist[(size_t)(base_row + i) * n_padded + pivot + k];
        col_t[k][i] = v.x; col_t[k + 1][i] = v.y; col_t[k + 2][i] = v.z; col_t[k + 3][i] = v.w;
    }
    int d[8][8];
    #pragma unroll
    for (int a = 0; a < 8; ++a) {
        int i = base_row + (a / 4) * 64 + 4 * ty + a % 4;
        int4 lo = *(const int4 *)&dist[(size_t)i * n_padded + base_col + 4 * tx];
        int4 hi = *(const int4 *)&dist[(size_t)i * n_padded + base_col + 64 + 4 * tx];
        d[a][0] = lo.x; d[a][1] = lo.y; d[a][2] = lo.z; d[a][3] = lo.w;
        d[a][4] = hi.x; d[a][5] = hi.y; d[a][6] = hi.z; d[a][7] = hi.w;
    }
    __syncthreads();
    #pragma unroll 4
    for (int k = 0; k < BLOCK; ++k) {
        int4 a0 = *(const int4 *)&col_t[k][4 * ty], a1 = *(const int4 *)&col_t[k][64 + 4 * ty];
        int4 b0 = *(const int4 *)&row[k][4 * tx], b1 = *(const int4 *)&row[k][64 + 4 * tx];
        int a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        int b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
        #pragma unroll
        for (int x = 0; x < 8; ++x)
            #pragma unroll
            for (int y = 0; y < 8; ++y)
                d[x][y] = __viaddmin_s32(a[x], b[y], d[x][y]);
    }
    #pragma unroll
    for (int a = 0; a < 8; ++a) {
        int i = base_row + (a / 4) * 64 + 4 * ty + a % 4;
        if (i / BLOCK == round)
            continue;
        int c0 = base_col + 4 * tx, c1 = base_col + 64 + 4 * tx;
        if (c0 / BLOCK != round)
            *(int4 *)&dist[(size_t)i * n_padded + c0] = make_int4(d[a][0], d[a][1], d[a][2], d[a][3]);
        if (c1 / BLOCK != round)
            *(int4 *)&dist[(size_t)i * n_padded + c1] = make_int4(d[a][4], d[a][5], d[a][6], d[a][7]);
    }
}

enum Phase3 { kReference, kSeedPlain, kSeedDpx, kTile8Plain, kTile8Dpx, kTile4Dpx, kSuper, kNone, kNoneSeedPhase2 };
static const char *kNames[] = {"gpu.c's phase3_kernel, 1 pivot a round", "seed: 32x32 thr, 4 entries, add+min",
                               "seed: 32x32 thr, 4 entries, DPX", "8x8 thr, 8x8 tile, add+min",
                               "8x8 thr, 8x8 tile, DPX", "16x16 thr, 4x4 tile, DPX",
                               "128x128 tile, 256 thr, 8x8, DPX", "phases 1+2 only",
                               "phases 1+2 only, phase 2 k by k (seed)"};

static void launch_phase3(Phase3 which, int *dist, int n_padded, int round)
{
    int blocks = n_padded / BLOCK;
    dim3 grid(blocks, blocks), seed_threads(HALF, HALF);
    switch (which) {
    case kReference:  // the reference's kernel, one pivot block a round (its rounds take four)
        phase3_kernel<<<dim3((blocks + PHASE3_GROUPS - 1) / PHASE3_GROUPS, blocks), PHASE3_THREADS>>>(dist, n_padded, round, 1);
        break;
    case kSeedPlain: phase3_four_entries<false><<<grid, seed_threads>>>(dist, n_padded, round); break;
    case kSeedDpx: phase3_four_entries<true><<<grid, seed_threads>>>(dist, n_padded, round); break;
    case kTile8Plain: phase3_tiled<8, false><<<grid, 64>>>(dist, n_padded, round); break;
    case kTile8Dpx: phase3_tiled<8, true><<<grid, 64>>>(dist, n_padded, round); break;
    case kTile4Dpx: phase3_tiled<16, true><<<grid, 256>>>(dist, n_padded, round); break;
    case kSuper: phase3_super<<<dim3(blocks / 2, blocks / 2), 256, 2 * 64 * 128 * 4>>>(dist, n_padded, round); break;
    case kNone: case kNoneSeedPhase2: break;
    }
    CUDA_CHECK_LAUNCH();
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16384;
    if (n % 128 != 0) {
        fprintf(stderr, "n must be a multiple of 128\n");
        return 2;
    }
    CUDA_CHECK(cudaFuncSetAttribute(phase3_super, cudaFuncAttributeMaxDynamicSharedMemorySize, 2 * 64 * 128 * 4));
    SweepMatrices m = sweep_matrices_create(n, 7);
    int *work = m.work;
    printf("n = %d, %d rounds\n%-36s %10s %14s %8s\n", n, n / BLOCK, "phase 3", "ms", "10^12 upd/s", "wrong");
    for (int v = kReference; v <= kNoneSeedPhase2; ++v) {
        for (int rep = 0; rep < (v == kReference ? 2 : 1); ++rep) {  // the first run warms up
            CUDA_CHECK(cudaMemcpy(work, m.input, m.bytes, cudaMemcpyDeviceToDevice));
            GpuTimer timer;
            timer.start();
            for (int round = 0; round < n / BLOCK; ++round) {
                phase1_kernel<<<1, dim3(PHASE1_THREADS, PHASE1_THREADS)>>>(work, n, round);
                if (v == kNoneSeedPhase2)
                    phase2_seed<<<dim3(n / BLOCK, 2), dim3(HALF, HALF)>>>(work, n, round);
                else
                    phase2_kernel<<<dim3((n / BLOCK + PHASE3_GROUPS - 1) / PHASE3_GROUPS, 2), PHASE3_THREADS>>>(work, n, round);
                launch_phase3((Phase3)v, work, n, round);
            }
            timer.stop();
            float ms = timer.ms();
            if (v == kReference)
                CUDA_CHECK(cudaMemcpy(m.reference, work, m.bytes, cudaMemcpyDeviceToDevice));
            unsigned long long wrong = count_wrong(work, m.reference, m.count, m.differences);
            if (rep == (v == kReference ? 1 : 0))
                printf("%-36s %10.2f %14.3f %8s\n", kNames[v], ms, tera_updates_per_s(n, ms),
                       v >= kNone ? "-" : std::to_string(wrong).c_str());
        }
    }
    return 0;
}
