// Phase-3 sweep of the blocked Floyd-Warshall (issue 19): the steps tried after the variants of
// phase3_variants.cu, each the whole algorithm on one random matrix, checked entry for entry
// against the reference (solutions/apsp/gpu.c) and, for small n, against a plain CPU
// Floyd-Warshall. Instructor tool, like phase3_variants.cu:
//
//   nvcc -std=c++17 -arch=sm_90 -O3 -Xptxas -v -Ilabs/common -Ilabs/apsp \
//        labs/apsp/scripts/phase3_sweep.cu -o build/phase3_sweep && build/phase3_sweep 16384 4288 320 192
//
// Three knobs, each a template parameter of one phase-3 kernel:
//   width   pivot blocks a round (W): phase 3 runs once per W blocks of the diagonal, its k loop
//           over W * 64 values, the thread's 8 x 8 tile kept in registers all the while. Every
//           entry is read and written once a round, so device-memory traffic falls by W
//           (550 GB at n = 16384 and W = 1). The band (the W pivot block rows and columns) is
//           first finished by the reference's phases 1 and 2 and its band_kernel.
// The reference (gpu.c) took the winner, W = 4 with two groups; "W1 g1 own-late" is the
// reference before it (one pivot block a round, one output block a thread block).
// The figures below were taken with gpu.c's phases 1 and 2 and band_kernel of that day; since
// band_sweep.cu (steps 30-40) every variant here runs gpu.c's newer ones, about 3 ms faster.
//   own     the thread's own 8 x 8 entries loaded before the pivot pieces, so that their
//           device-memory latency overlaps the pivot pieces' loads from L2.
//   groups  output blocks a thread block (64 threads each), sharing the pivot-column piece.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cuda_pipeline.h>

#include "../../../solutions/apsp/gpu.c"
#include "sweep_check.h"

template <int kUnroll, int kThreads>
__device__ __forceinline__ void load_piece(int (*block)[BLOCK], const int *src, int n_padded, int t)
{
    #pragma unroll kUnroll
    for (int q = t; q < BLOCK * BLOCK / 4; q += kThreads) {
        int r = q / (BLOCK / 4), c = q % (BLOCK / 4) * 4;
        *(int4 *)&block[r][c] = *(const int4 *)&src[(size_t)r * n_padded + c];
    }
}

template <int kUnroll, int kThreads>
__device__ __forceinline__ void load_piece_transposed(int (*block_t)[BLOCK], const int *src, int n_padded, int t)
{
    #pragma unroll kUnroll
    for (int q = t; q < BLOCK * BLOCK / 4; q += kThreads) {
        int i = q % BLOCK, k = q / BLOCK * 4;
        int4 v = *(const int4 *)&src[(size_t)i * n_padded + k];
        block_t[k][i] = v.x; block_t[k + 1][i] = v.y; block_t[k + 2][i] = v.z; block_t[k + 3][i] = v.w;
    }
}

// Phase 3 of a round of `pivots` pivot blocks starting at `first`: block (R, C), C of this
// thread block's group, through (R, P) and (P, C) for each pivot P. Grid (ceil(blocks / kGroups), blocks).
template <int kGroups, bool kOwnFirst, int kUnroll>
__global__ void __launch_bounds__(TILE_THREADS * kGroups) phase3_sweep(int *dist, int n_padded, int first, int pivots)
{
    constexpr int kThreads = TILE_THREADS * kGroups;
    int blocks = n_padded / BLOCK;
    int R = blockIdx.y;
    if (R >= first && R < first + pivots)
        return;
    __shared__ __align__(16) int column_t[BLOCK][BLOCK];
    __shared__ __align__(16) int row[kGroups][BLOCK][BLOCK];
    int g = threadIdx.x / TILE_THREADS, lt = threadIdx.x % TILE_THREADS;
    int C = blockIdx.x * kGroups + g;
    bool active = C < blocks && !(C >= first && C < first + pivots);
    int tx = lt % TILE_THREADS_SIDE, ty = lt / TILE_THREADS_SIDE;
    int *own = dist + (size_t)R * BLOCK * n_padded + (size_t)C * BLOCK;
    int d[TILE_SIDE][TILE_SIDE];
    auto load_own = [&]() {
        #pragma unroll
        for (int a = 0; a < TILE_SIDE; ++a) {
            int i = (a / 4) * TILE_HALF + 4 * ty + a % 4;
            int4 lo = *(const int4 *)&own[(size_t)i * n_padded + 4 * tx];
            int4 hi = *(const int4 *)&own[(size_t)i * n_padded + TILE_HALF + 4 * tx];
            d[a][0] = lo.x; d[a][1] = lo.y; d[a][2] = lo.z; d[a][3] = lo.w;
            d[a][4] = hi.x; d[a][5] = hi.y; d[a][6] = hi.z; d[a][7] = hi.w;
        }
    };
    if (kOwnFirst && active)
        load_own();
    for (int c = 0; c < pivots; ++c) {
        int P = first + c;
        if (c > 0)
            __syncthreads();  // every thread is done with the previous pieces
        load_piece_transposed<kUnroll, kThreads>(column_t, dist + (size_t)R * BLOCK * n_padded + (size_t)P * BLOCK,
                                                 n_padded, threadIdx.x);
        if (C < blocks)
            load_piece<kUnroll, TILE_THREADS>(row[g], dist + (size_t)P * BLOCK * n_padded + (size_t)C * BLOCK,
                                              n_padded, lt);
        __syncthreads();
        if (!kOwnFirst && c == 0 && active)
            load_own();
        if (active) {
            #pragma unroll 4
            for (int k = 0; k < BLOCK; ++k) {
                int4 a_lo = *(const int4 *)&column_t[k][4 * ty], a_hi = *(const int4 *)&column_t[k][TILE_HALF + 4 * ty];
                int4 b_lo = *(const int4 *)&row[g][k][4 * tx], b_hi = *(const int4 *)&row[g][k][TILE_HALF + 4 * tx];
                int a[TILE_SIDE] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
                int b[TILE_SIDE] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
                #pragma unroll
                for (int x = 0; x < TILE_SIDE; ++x)
                    #pragma unroll
                    for (int y = 0; y < TILE_SIDE; ++y)
                        d[x][y] = relax(a[x], b[y], d[x][y]);
            }
        }
    }
    if (!active)
        return;
    #pragma unroll
    for (int a = 0; a < TILE_SIDE; ++a) {
        int i = (a / 4) * TILE_HALF + 4 * ty + a % 4;
        *(int4 *)&own[(size_t)i * n_padded + 4 * tx] = make_int4(d[a][0], d[a][1], d[a][2], d[a][3]);
        *(int4 *)&own[(size_t)i * n_padded + TILE_HALF + 4 * tx] = make_int4(d[a][4], d[a][5], d[a][6], d[a][7]);
    }
}

// Issue 19, second pass (steps 14 on): the same phase 3 with its shared memory dynamic, so that
// a thread block may hold more than 48 KB:
//   groups  4 or 8 output blocks a thread block (80 and 144 KB), the pivot-column piece shared
//           by all of them; 128 registers a thread still give 16 warps a multiprocessor.
//   async   the pivot pieces copied straight into shared memory (cp.async through
//           __pipeline_memcpy_async): no registers hold them on the way, so every load of a
//           piece is in flight at once. The column piece is then stored as it is, rows padded
//           to BLOCK + 4 ints, and read four values of k at a time; a thread's tile rows are
//           ty, ty + 8, ..., ty + 56 so that a warp's four ty read four different bank groups.
//   stages  2: the next pivot's pieces are copied while this pivot's are used (two barriers a
//           pivot instead of a wait for the loads).
// Measured 2026-11-24 on an NVIDIA H100 80GB HBM3, n = 16384, ms and 10^12 updates/s (every
// result equal to the reference's at 16384, 4288, 320 and 192):
//   reference (gpu.c) 315.6 / 13.94 and again 315.6 / 13.94; its twin "W4 g2 own-late unroll4"
//   313.1 / 14.05 (twice; the same design, 0.8% faster for a reason not found: unrolling
//   gpu.c's load_block loops by 4 changed nothing, 315.5 / 13.94);
//   14 band only (phases 1, 2 and band_kernel, no phase 3) 22.1: 7% of the run, so phase 3
//      alone runs at about 15.0 (0.90 of the min-plus ceiling); the rest of the gap is there;
//   15 g4 dyn 328.8 / 13.38; 16 g8 dyn 342.2 / 12.85; 29 W6 g4 dyn 329.9 / 13.33: more groups
//      lose (fewer, larger thread blocks wait longer at each barrier);
//   17 g2 async 316.0 / 13.92; 17b k two at a time 316.2 / 13.91; 18 g4 async 319.3 / 13.78
//      (24 bytes of spills at 128 registers); 18b 315.9 / 13.92: the copies straight into shared
//      memory gain nothing, the other warps already hide the loads;
//   two stages: 19 g1 355.2 / 12.38; 20 g2 326.1 / 13.49; 21 g4 333.6 / 13.18; 21b 343.2 /
//      12.82: the second stage halves the thread blocks a multiprocessor, which costs more;
//   W with g4 async: 22 W3 320.9 / 13.71, 23 W5 319.2 / 13.78, 24 W6 318.1 / 13.83, 25 W8
//      318.4 / 13.82, 25b W3 (k two) 316.3 / 13.91, 25c W6 (k two) 315.6 / 13.94; with g2 two
//      stages: 26 W3 337.6 / 13.03, 27 W6 324.2 / 13.57, 28 W8 324.1 / 13.57.
// None beats the reference by more than the spread, so gpu.c keeps W4 g2.
#define SWEEP_COLUMN_PITCH (BLOCK + 4)

template <bool kAsync>
__host__ __device__ constexpr int sweep_column_ints() { return kAsync ? BLOCK * SWEEP_COLUMN_PITCH : BLOCK * BLOCK; }

template <int kGroups, bool kAsync, int kStages>
__host__ __device__ constexpr size_t sweep_shared_bytes()
{
    return (size_t)kStages * (sweep_column_ints<kAsync>() + kGroups * BLOCK * BLOCK) * sizeof(int);
}

// Thread blocks a multiprocessor: 16 warps' worth, or fewer if shared memory (227 KB, 1 KB of it
// reserved a block) allows fewer. The launch bound caps the registers so that they allow as many.
template <int kGroups, bool kAsync, int kStages>
__host__ __device__ constexpr int sweep_min_blocks()
{
    int by_warps = 16 * 32 / (TILE_THREADS * kGroups);
    int by_shared = (int)(227 * 1024 / (sweep_shared_bytes<kGroups, kAsync, kStages>() + 1024));
    return by_warps < by_shared ? by_warps : by_shared;
}

template <int kGroups, bool kAsync, int kStages, int kKStep = 4>
__global__ void __launch_bounds__(TILE_THREADS * kGroups, (sweep_min_blocks<kGroups, kAsync, kStages>()))
    phase3_dyn(int *dist, int n_padded, int first, int pivots)
{
    static_assert(kAsync || kStages == 1, "two stages need the asynchronous copies");
    constexpr int kThreads = TILE_THREADS * kGroups;
    constexpr int kColumnInts = sweep_column_ints<kAsync>();
    constexpr int kStageInts = kColumnInts + kGroups * BLOCK * BLOCK;
    extern __shared__ __align__(16) int shared[];
    int blocks = n_padded / BLOCK;
    int R = blockIdx.y;
    if (R >= first && R < first + pivots)
        return;
    int g = threadIdx.x / TILE_THREADS, lt = threadIdx.x % TILE_THREADS;
    int C = blockIdx.x * kGroups + g;
    bool active = C < blocks && !(C >= first && C < first + pivots);
    int tx = lt % TILE_THREADS_SIDE, ty = lt / TILE_THREADS_SIDE;
    int *own = dist + (size_t)R * BLOCK * n_padded + (size_t)C * BLOCK;
    // Tile row x of the thread: the reference's rows, or ty + 8x for the padded column piece.
    auto tile_row = [&](int x) { return kAsync ? ty + TILE_THREADS_SIDE * x : (x / 4) * TILE_HALF + 4 * ty + x % 4; };
    int d[TILE_SIDE][TILE_SIDE];
    auto column_of = [&](int s) { return shared + s * kStageInts; };
    auto row_of = [&](int s) { return (int (*)[BLOCK])(shared + s * kStageInts + kColumnInts + g * BLOCK * BLOCK); };
    auto load_pieces = [&](int s, int P) {
        const int *column_src = dist + (size_t)R * BLOCK * n_padded + (size_t)P * BLOCK;
        const int *row_src = dist + (size_t)P * BLOCK * n_padded + (size_t)C * BLOCK;
        if (kAsync) {
            int *column = column_of(s);
            for (int q = threadIdx.x; q < BLOCK * BLOCK / 4; q += kThreads) {
                int r = q / (BLOCK / 4), c = q % (BLOCK / 4) * 4;
                __pipeline_memcpy_async(&column[r * SWEEP_COLUMN_PITCH + c], &column_src[(size_t)r * n_padded + c], 16);
            }
            if (C < blocks) {
                int (*row)[BLOCK] = row_of(s);
                for (int q = lt; q < BLOCK * BLOCK / 4; q += TILE_THREADS) {
                    int r = q / (BLOCK / 4), c = q % (BLOCK / 4) * 4;
                    __pipeline_memcpy_async(&row[r][c], &row_src[(size_t)r * n_padded + c], 16);
                }
            }
            __pipeline_commit();
        } else {
            load_piece_transposed<4, kThreads>((int (*)[BLOCK])column_of(s), column_src, n_padded, threadIdx.x);
            if (C < blocks)
                load_piece<4, TILE_THREADS>(row_of(s), row_src, n_padded, lt);
        }
    };
    auto load_own = [&]() {
        #pragma unroll
        for (int a = 0; a < TILE_SIDE; ++a) {
            int i = tile_row(a);
            int4 lo = *(const int4 *)&own[(size_t)i * n_padded + 4 * tx];
            int4 hi = *(const int4 *)&own[(size_t)i * n_padded + TILE_HALF + 4 * tx];
            d[a][0] = lo.x; d[a][1] = lo.y; d[a][2] = lo.z; d[a][3] = lo.w;
            d[a][4] = hi.x; d[a][5] = hi.y; d[a][6] = hi.z; d[a][7] = hi.w;
        }
    };
    auto compute = [&](int s) {
        const int *column = column_of(s);
        const int (*row)[BLOCK] = row_of(s);
        if (kAsync) {
            #pragma unroll 1
            for (int k0 = 0; k0 < BLOCK; k0 += kKStep) {
                int a_k[TILE_SIDE][kKStep];  // column(tile_row(x), k0 + kk), one 16- or 8-byte load a row
                #pragma unroll
                for (int x = 0; x < TILE_SIDE; ++x) {
                    const int *src = &column[tile_row(x) * SWEEP_COLUMN_PITCH + k0];
                    if (kKStep == 4) {
                        int4 v = *(const int4 *)src;
                        a_k[x][0] = v.x; a_k[x][1 % kKStep] = v.y; a_k[x][2 % kKStep] = v.z; a_k[x][3 % kKStep] = v.w;
                    } else {
                        int2 v = *(const int2 *)src;
                        a_k[x][0] = v.x; a_k[x][1] = v.y;
                    }
                }
                #pragma unroll
                for (int kk = 0; kk < kKStep; ++kk) {
                    int4 b_lo = *(const int4 *)&row[k0 + kk][4 * tx], b_hi = *(const int4 *)&row[k0 + kk][TILE_HALF + 4 * tx];
                    int b[TILE_SIDE] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
                    #pragma unroll
                    for (int x = 0; x < TILE_SIDE; ++x)
                        #pragma unroll
                        for (int y = 0; y < TILE_SIDE; ++y)
                            d[x][y] = relax(a_k[x][kk], b[y], d[x][y]);
                }
            }
        } else {
            min_plus_tile(d, (const int (*)[BLOCK])column, row, tx, ty);
        }
    };
    if (kStages == 1) {
        for (int c = 0; c < pivots; ++c) {
            if (c > 0)
                __syncthreads();  // every thread is done with the previous pieces
            load_pieces(0, first + c);
            if (kAsync && c == 0 && active)
                load_own();  // overlaps the copies in flight
            if (kAsync)
                __pipeline_wait_prior(0);
            __syncthreads();
            if (!kAsync && c == 0 && active)
                load_own();
            if (active)
                compute(0);
        }
    } else {
        load_pieces(0, first);
        if (active)
            load_own();
        for (int c = 0; c < pivots; ++c) {
            if (c + 1 < pivots) {
                load_pieces((c + 1) % 2, first + c + 1);  // its stage was freed by the last barrier
                __pipeline_wait_prior(1);
            } else {
                __pipeline_wait_prior(0);
            }
            __syncthreads();  // pivot c's pieces are in, from every thread's copies
            if (active)
                compute(c % 2);
            __syncthreads();  // every thread is done with stage c % 2 before it is refilled
        }
    }
    if (!active)
        return;
    #pragma unroll
    for (int a = 0; a < TILE_SIDE; ++a) {
        int i = tile_row(a);
        *(int4 *)&own[(size_t)i * n_padded + 4 * tx] = make_int4(d[a][0], d[a][1], d[a][2], d[a][3]);
        *(int4 *)&own[(size_t)i * n_padded + TILE_HALF + 4 * tx] = make_int4(d[a][4], d[a][5], d[a][6], d[a][7]);
    }
}

typedef void (*Phase3Fn)(int *, int, int, int);
struct Variant {
    const char *name;
    int width, groups;
    Phase3Fn kernel;    // NULL: the reference's own rounds (gpu.c's run_round)
    size_t shared = 0;  // dynamic shared memory a thread block (phase3_dyn)
    bool checked = true;  // false: not the whole algorithm (its result is not compared)
};

// The rounds without phase 3: the time outside it (phases 1 and 2 and band_kernel).
__global__ void phase3_none(int *, int, int, int) {}

#define DYN(name, width, groups, async, stages) \
    {name, width, groups, phase3_dyn<groups, async, stages>, sweep_shared_bytes<groups, async, stages>()}
#define DYN2(name, width, groups, async, stages) \
    {name, width, groups, phase3_dyn<groups, async, stages, 2>, sweep_shared_bytes<groups, async, stages>()}

static const Variant kVariants[] = {
    {"reference (gpu.c: W4 g2 own-late)", 4, 2, NULL},
    {"W1 g1 own-late  unroll4 (= reference)", 1, 1, phase3_sweep<1, false, 4>},
    {"W1 g1 own-first unroll4", 1, 1, phase3_sweep<1, true, 4>},
    {"W1 g1 own-first unroll8", 1, 1, phase3_sweep<1, true, 8>},
    {"W1 g2 own-first unroll4", 1, 2, phase3_sweep<2, true, 4>},
    {"W2 g1 own-late  unroll4", 2, 1, phase3_sweep<1, false, 4>},
    {"W2 g1 own-first unroll4", 2, 1, phase3_sweep<1, true, 4>},
    {"W2 g2 own-first unroll4", 2, 2, phase3_sweep<2, true, 4>},
    {"W4 g1 own-late  unroll4", 4, 1, phase3_sweep<1, false, 4>},
    {"W4 g1 own-first unroll4", 4, 1, phase3_sweep<1, true, 4>},
    {"W4 g2 own-first unroll4", 4, 2, phase3_sweep<2, true, 4>},
    {"W8 g2 own-first unroll4", 8, 2, phase3_sweep<2, true, 4>},
    {"W16 g2 own-first unroll4", 16, 2, phase3_sweep<2, true, 4>},
    {"W4 g2 own-late  unroll4", 4, 2, phase3_sweep<2, false, 4>},
    // The second pass (issue 19 again): dynamic shared memory, cp.async, two stages.
    {"14 W4 band only (no phase 3)", 4, 2, phase3_none, 0, false},
    DYN("15 W4 g4 dyn", 4, 4, false, 1),
    DYN("16 W4 g8 dyn", 4, 8, false, 1),
    DYN("17 W4 g2 async", 4, 2, true, 1),
    DYN("18 W4 g4 async", 4, 4, true, 1),
    DYN2("17b W4 g2 async, k two at a time", 4, 2, true, 1),
    DYN2("18b W4 g4 async, k two at a time", 4, 4, true, 1),
    DYN("19 W4 g1 async 2 stages", 4, 1, true, 2),
    DYN("20 W4 g2 async 2 stages", 4, 2, true, 2),
    DYN("21 W4 g4 async 2 stages", 4, 4, true, 2),
    DYN2("21b W4 g4 async 2 stages, k two at a time", 4, 4, true, 2),
    DYN("22 W3 g4 async", 3, 4, true, 1),
    DYN("23 W5 g4 async", 5, 4, true, 1),
    DYN("24 W6 g4 async", 6, 4, true, 1),
    DYN("25 W8 g4 async", 8, 4, true, 1),
    DYN2("25b W3 g4 async, k two at a time", 3, 4, true, 1),
    DYN2("25c W6 g4 async, k two at a time", 6, 4, true, 1),
    DYN("26 W3 g2 async 2 stages", 3, 2, true, 2),
    DYN("27 W6 g2 async 2 stages", 6, 2, true, 2),
    DYN("28 W8 g2 async 2 stages", 8, 2, true, 2),
    DYN("29 W6 g4 dyn", 6, 4, false, 1),
    {"reference again (the spread)", 4, 2, NULL},
};

static void run_variant(const Variant &v, int *dist, int n)
{
    int blocks = n / BLOCK, pairs = (blocks + PHASE3_GROUPS - 1) / PHASE3_GROUPS;
    if (!v.kernel) {
        for (int first = 0; first < blocks; first += ROUND_BLOCKS)
            run_round(dist, n, first, std::min(ROUND_BLOCKS, blocks - first));
        return;
    }
    for (int first = 0; first < blocks; first += v.width) {
        int pivots = std::min(v.width, blocks - first);
        for (int p = first; p < first + pivots; ++p) {
            phase1_kernel<<<1, dim3(PHASE1_THREADS, PHASE1_THREADS)>>>(dist, n, p);
            CUDA_CHECK_LAUNCH();
            phase2_kernel<<<dim3(pairs, 2), PHASE3_THREADS>>>(dist, n, p);
            CUDA_CHECK_LAUNCH();
            if (pivots > 1) {
                band_kernel<<<dim3(pairs, 2 * pivots), PHASE3_THREADS>>>(dist, n, p, first, pivots);
                CUDA_CHECK_LAUNCH();
            }
        }
        v.kernel<<<dim3((blocks + v.groups - 1) / v.groups, blocks), TILE_THREADS * v.groups, v.shared>>>(dist, n, first,
                                                                                                      pivots);
        CUDA_CHECK_LAUNCH();
    }
}

static bool sweep(int n, bool timed)
{
    SweepMatrices m = sweep_matrices_create(n, 7 + n);
    bool ok = true;
    printf("n = %d, %d blocks a side\n%-40s %10s %14s %8s\n", n, n / BLOCK, "phase 3", "ms", "10^12 upd/s", "wrong");
    for (const Variant &v : kVariants) {
        int reps = timed ? 3 : 1;  // the first run warms up; the median of the other two (the slower)
        float ms = median_after_warm_up(variant_times(&m, reps, [&] { run_variant(v, m.work, n); }));
        unsigned long long wrong = variant_wrong(&m, n, &v == &kVariants[0], &ok);  // [0]: the reference
        ok = ok && (wrong == 0 || !v.checked);
        print_variant_row(40, v.name, n, ms, v.checked, wrong);
    }
    sweep_matrices_destroy(&m);
    return ok;
}

int main(int argc, char **argv)
{
    for (const Variant &v : kVariants)
        if (v.kernel && v.shared > 48 * 1024)
            CUDA_CHECK(cudaFuncSetAttribute((const void *)v.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int)v.shared));
    return sweep_sizes(argc, argv, sweep);
}
