// The band's sweep (issue 19, third pass): phases 1 and 2 and band_kernel, which phase3_sweep.cu
// left at 22 ms of the reference's 315 at n = 16384 (its step 14), made cheaper or hidden. Steps
// 30 on; each the whole algorithm on one random matrix, checked entry for entry against the
// reference (solutions/apsp/gpu.c, which this file includes) and, for small n, the reference
// against a plain CPU Floyd-Warshall. Instructor tool, like phase3_sweep.cu:
//
//   nvcc -std=c++17 -arch=sm_90 -O3 -Xptxas -v -Ilabs/common -Ilabs/apsp \
//        labs/apsp/scripts/band_sweep.cu -o build/band_sweep && build/band_sweep 16384 4288 320 192 64
//
// The levers, largest predicted gain first (predictions written before the first run):
//   phase 1 in registers  the old phase 1 re-read and re-wrote every entry in shared memory at
//        every step (12 loads and 4 stores a thread a step, 32 warps: shared-memory bound, about
//        19 us a launch by that count); the reference's now keeps its 4 entries in registers
//        (4 loads a step). Predicted: about 14 us x 256 launches = 3.5 ms.
//   look-ahead  the next band's phases 1 and 2 on a second, higher-priority stream beside the rest
//        of phase 3 (gpu.c's run_rounds). Predicted: most of what the band costs beyond its own
//        arithmetic (about 8 ms of work at the min-plus ceiling), so 8 to 12 ms.
//   (a) phase 1 folded into phase 2: each phase-2 thread block closes the pivot block itself (64
//        threads, 8 x 8 entries each in registers), 256 single-block launches fewer. Predicted:
//        nothing, +-1 ms: the launch saved (about 5 us with the new phase 1) is paid back by a
//        closure on 64 threads instead of 1024.
//   (c) a CUDA graph of the whole solve: launch gaps shrink. Predicted: under 1 ms (832 launches,
//        queued back to back already: the gap is the GPU's, about 1 us each, not the host's).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../../../solutions/apsp/gpu.c"
#include "seeded.h"

// Step 30's phase 1, gpu.c's before this sweep: every step reads and writes every entry of the
// shared copy.
__global__ void phase1_shared_kernel(int *dist, int n_padded, int round)
{
    __shared__ int pivot[BLOCK][BLOCK];
    int i = threadIdx.y, j = threadIdx.x;
    int *block = dist + (size_t)round * BLOCK * n_padded + round * BLOCK;
    for (int di = 0; di < BLOCK; di += HALF)
        for (int dj = 0; dj < BLOCK; dj += HALF)
            pivot[i + di][j + dj] = block[(size_t)(i + di) * n_padded + j + dj];
    __syncthreads();
    for (int k = 0; k < BLOCK; ++k) {
        for (int di = 0; di < BLOCK; di += HALF)
            for (int dj = 0; dj < BLOCK; dj += HALF)
                pivot[i + di][j + dj] = relax(pivot[i + di][k], pivot[k][j + dj], pivot[i + di][j + dj]);
        __syncthreads();
    }
    for (int di = 0; di < BLOCK; di += HALF)
        for (int dj = 0; dj < BLOCK; dj += HALF)
            block[(size_t)(i + di) * n_padded + j + dj] = pivot[i + di][j + dj];
}

// gpu.c's phase 3 before this sweep (no parts; 128 registers without a second launch bound,
// where the part-aware kernel needs the bound and spills 40 bytes).
__global__ void __launch_bounds__(PHASE3_THREADS) phase3_whole_kernel(int *dist, int n_padded, int first, int pivots)
{
    int blocks = n_padded / BLOCK;
    int R = blockIdx.y;
    if (R >= first && R < first + pivots)
        return;
    __shared__ __align__(16) int column_t[BLOCK][BLOCK];
    __shared__ __align__(16) int row[PHASE3_GROUPS][BLOCK][BLOCK];
    int group = threadIdx.x / TILE_THREADS, thread = threadIdx.x % TILE_THREADS;
    int C = blockIdx.x * PHASE3_GROUPS + group;
    bool active = C < blocks && !(C >= first && C < first + pivots);
    int tx = thread % TILE_THREADS_SIDE, ty = thread / TILE_THREADS_SIDE;
    int *own = block_at(dist, n_padded, R, C);
    Tile d;
    for (int P = first; P < first + pivots; ++P) {
        if (P > first)
            __syncthreads();
        load_block_transposed(column_t, dist, n_padded, R, P, threadIdx.x, PHASE3_THREADS);
        if (C < blocks)
            load_block(row[group], dist, n_padded, P, C, thread, TILE_THREADS);
        __syncthreads();
        if (!active)
            continue;
        if (P == first)
            load_tile(d, own, n_padded, tx, ty);
        min_plus_tile(d, column_t, row[group], tx, ty);
    }
    if (active)
        store_tile(d, own, n_padded, tx, ty);
}

// (a): phase 2 with phase 1 folded in. Each thread block first closes the pivot block in shared
// memory, its 64 threads holding 8 x 8 entries each in registers: step k reads row k of `right`
// (the block as it is) and row k of `left_t` (transposed: column k), and the owners of row and
// column k + 1 write those back, into rows k + 1 of the two arrays, which step k does not read.
// The row part's thread block on the pivot (b == round) writes the closed block; the others
// read the pivot block while it may be written, and close it themselves either way: closing a
// matrix between a block and its closure gives that closure.
__global__ void __launch_bounds__(TILE_THREADS) phase2_folded_kernel(int *dist, int n_padded, int round)
{
    int b = blockIdx.x;
    bool in_pivot_row = blockIdx.y == 0;
    if (b == round && !in_pivot_row)
        return;
    __shared__ __align__(16) int left_t[BLOCK][BLOCK];
    __shared__ __align__(16) int right[BLOCK][BLOCK];
    int tx = threadIdx.x % TILE_THREADS_SIDE, ty = threadIdx.x / TILE_THREADS_SIDE;
    load_block(right, dist, n_padded, round, round, threadIdx.x, TILE_THREADS);
    load_block_transposed(left_t, dist, n_padded, round, round, threadIdx.x, TILE_THREADS);
    __syncthreads();
    auto row_of = [&](int x) { return (x / 4) * TILE_HALF + 4 * ty + x % 4; };
    auto column_of = [&](int y) { return (y / 4) * TILE_HALF + 4 * tx + y % 4; };
    Tile p;
    #pragma unroll
    for (int x = 0; x < TILE_SIDE; ++x)
        #pragma unroll
        for (int y = 0; y < TILE_SIDE; ++y)
            p[x][y] = right[row_of(x)][column_of(y)];
    for (int k = 0; k < BLOCK; ++k) {
        int4 a_lo = *(const int4 *)&left_t[k][4 * ty], a_hi = *(const int4 *)&left_t[k][TILE_HALF + 4 * ty];
        int4 b_lo = *(const int4 *)&right[k][4 * tx], b_hi = *(const int4 *)&right[k][TILE_HALF + 4 * tx];
        int a[TILE_SIDE] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
        int c[TILE_SIDE] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
        #pragma unroll
        for (int x = 0; x < TILE_SIDE; ++x)
            #pragma unroll
            for (int y = 0; y < TILE_SIDE; ++y) {
                p[x][y] = relax(a[x], c[y], p[x][y]);
                if (row_of(x) == k + 1)
                    right[k + 1][column_of(y)] = p[x][y];
                if (column_of(y) == k + 1)
                    left_t[k + 1][row_of(x)] = p[x][y];
            }
        __syncthreads();
    }
    if (b == round) {
        store_tile(p, block_at(dist, n_padded, round, round), n_padded, tx, ty);
        return;
    }
    int R = in_pivot_row ? round : b, C = in_pivot_row ? b : round;
    // The closed pivot into the operand it is, the other operand from device memory.
    #pragma unroll
    for (int x = 0; x < TILE_SIDE; ++x)
        #pragma unroll
        for (int y = 0; y < TILE_SIDE; ++y) {
            if (in_pivot_row)
                left_t[column_of(y)][row_of(x)] = p[x][y];
            else
                right[row_of(x)][column_of(y)] = p[x][y];
        }
    if (in_pivot_row)
        load_block(right, dist, n_padded, round, C, threadIdx.x, TILE_THREADS);
    else
        load_block_transposed(left_t, dist, n_padded, R, round, threadIdx.x, TILE_THREADS);
    __syncthreads();
    min_plus_into(dist, n_padded, R, C, left_t, right);
}

// The rounds on one stream, no look-ahead: gpu.c's before this sweep and its single steps.
enum Phase1Kind { kPhase1Shared, kPhase1Registers, kPhase1Folded };
enum Phase3Kind { kPhase3Whole, kPhase3Parts, kPhase3None };

static void rounds_one_stream(int *dist, int n, cudaStream_t s, Phase1Kind phase1, Phase3Kind phase3)
{
    int blocks = n / BLOCK;
    for (Span band = band_at(0, blocks); band.count > 0; band = band_at(band.first + band.count, blocks)) {
        for (int p = band.first; p < band.first + band.count; ++p) {
            if (phase1 == kPhase1Folded) {
                phase2_folded_kernel<<<dim3(blocks, 2), TILE_THREADS, 0, s>>>(dist, n, p);
                CUDA_CHECK_LAUNCH();
            } else {
                if (phase1 == kPhase1Shared)
                    phase1_shared_kernel<<<1, dim3(HALF, HALF), 0, s>>>(dist, n, p);
                else
                    phase1_kernel<<<1, dim3(HALF, HALF), 0, s>>>(dist, n, p);
                CUDA_CHECK_LAUNCH();
                phase2_kernel<<<dim3(blocks, 2), TILE_THREADS, 0, s>>>(dist, n, p);
                CUDA_CHECK_LAUNCH();
            }
            if (band.count > 1) {
                band_kernel<<<dim3(blocks, 2 * band.count), TILE_THREADS, 0, s>>>(dist, n, p, band.first, band.count);
                CUDA_CHECK_LAUNCH();
            }
        }
        Span none = {band.first + band.count, 0};
        if (phase3 == kPhase3Parts)
            run_phase3(dist, n, band, none, PHASE3_REST, s);
        if (phase3 == kPhase3Whole) {
            phase3_whole_kernel<<<dim3((blocks + PHASE3_GROUPS - 1) / PHASE3_GROUPS, blocks), PHASE3_THREADS, 0, s>>>(
                dist, n, band.first, band.count);
            CUDA_CHECK_LAUNCH();
        }
    }
}

__global__ void count_differences(const int *a, const int *b, size_t count, unsigned long long *differences)
{
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        mine += a[i] != b[i];
    if (mine)
        atomicAdd(differences, mine);
}

enum Driver { kLookAhead, kLookAheadEqual, kOneStream, kKernelAlone };
enum Alone { kAlonePhase1Shared, kAlonePhase1Registers, kAlonePhase2, kAloneFolded, kAloneBand, kAloneNone };

struct Variant {
    const char *name;
    Driver driver;
    Phase1Kind phase1 = kPhase1Registers;
    Phase3Kind phase3 = kPhase3Whole;
    bool graph = false;    // captured once into a CUDA graph, the graph's launches timed
    Alone alone = kAloneNone;  // kKernelAlone: one kernel, launched once a pivot, timed alone
    bool checked() const { return driver != kKernelAlone && phase3 != kPhase3None; }
};

static const Variant kVariants[] = {
    {"reference (gpu.c: look-ahead)", kLookAhead},
    {"30 before (13.94 in make bench)", kOneStream, kPhase1Shared, kPhase3Whole},
    {"30b before, band only (no phase 3)", kOneStream, kPhase1Shared, kPhase3None},
    {"31 phase 1 in registers", kOneStream, kPhase1Registers, kPhase3Whole},
    {"31b phase 1 in registers, band only", kOneStream, kPhase1Registers, kPhase3None},
    {"31c 31, gpu.c's part-aware phase 3", kOneStream, kPhase1Registers, kPhase3Parts},
    {"32 (c) 31 in a CUDA graph", kOneStream, kPhase1Registers, kPhase3Whole, true},
    {"32b (c) 31b in a CUDA graph", kOneStream, kPhase1Registers, kPhase3None, true},
    {"33 (a) phase 1 folded into phase 2", kOneStream, kPhase1Folded, kPhase3Whole},
    {"33b (a) folded, band only", kOneStream, kPhase1Folded, kPhase3None},
    {"34 look-ahead, equal priorities", kLookAheadEqual},
    {"35 (c) look-ahead in a CUDA graph", kLookAhead, kPhase1Registers, kPhase3Parts, true},
    {"phase 1 before, alone, a launch a pivot", kKernelAlone, kPhase1Registers, kPhase3Whole, false, kAlonePhase1Shared},
    {"phase 1 in registers, alone", kKernelAlone, kPhase1Registers, kPhase3Whole, false, kAlonePhase1Registers},
    {"phase 2, alone", kKernelAlone, kPhase1Registers, kPhase3Whole, false, kAlonePhase2},
    {"phase 2 with phase 1 folded, alone", kKernelAlone, kPhase1Registers, kPhase3Whole, false, kAloneFolded},
    {"band_kernel, alone", kKernelAlone, kPhase1Registers, kPhase3Whole, false, kAloneBand},
    {"reference again (the spread)", kLookAhead},
};

static Lanes lanes, lanes_equal;  // gpu.c's two streams; the same at one priority

static void kernel_alone(Alone which, int *dist, int n, cudaStream_t s)
{
    int blocks = n / BLOCK;
    for (int p = 0; p < blocks; ++p) {
        Span band = band_at(p / ROUND_BLOCKS * ROUND_BLOCKS, blocks);
        switch (which) {
        case kAlonePhase1Shared: phase1_shared_kernel<<<1, dim3(HALF, HALF), 0, s>>>(dist, n, p); break;
        case kAlonePhase1Registers: phase1_kernel<<<1, dim3(HALF, HALF), 0, s>>>(dist, n, p); break;
        case kAlonePhase2: phase2_kernel<<<dim3(blocks, 2), TILE_THREADS, 0, s>>>(dist, n, p); break;
        case kAloneFolded: phase2_folded_kernel<<<dim3(blocks, 2), TILE_THREADS, 0, s>>>(dist, n, p); break;
        case kAloneBand:
            band_kernel<<<dim3(blocks, 2 * band.count), TILE_THREADS, 0, s>>>(dist, n, p, band.first, band.count);
            break;
        case kAloneNone: break;
        }
        CUDA_CHECK_LAUNCH();
    }
}

// The variant's work, issued into lanes.main (and lanes.side), or the equal-priority pair.
static void issue(const Variant &v, int *dist, int n)
{
    switch (v.driver) {
    case kLookAhead: run_rounds(dist, n, &lanes); break;
    case kLookAheadEqual: run_rounds(dist, n, &lanes_equal); break;
    case kOneStream: rounds_one_stream(dist, n, lanes.main, v.phase1, v.phase3); break;
    case kKernelAlone: kernel_alone(v.alone, dist, n, lanes.main); break;
    }
}

// Plain Floyd-Warshall on the CPU, the check of the reference itself at small n.
static void cpu_floyd_warshall(std::vector<int> &d, int n)
{
    for (int k = 0; k < n; ++k)
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                d[(size_t)i * n + j] = std::min(d[(size_t)i * n + j], d[(size_t)i * n + k] + d[(size_t)k * n + j]);
}

static bool sweep(int n, bool timed)
{
    size_t count = (size_t)n * n, bytes = count * sizeof(int);
    std::vector<int> host(count);
    uint64_t state = 7 + n;
    for (size_t i = 0; i < count; ++i) {  // about 1 edge in 64 pairs; weights 0..1000, zeros too
        uint64_t r = splitmix64_next(&state);
        host[i] = (r & 63) == 0 ? (int)((r >> 8) % 1001) : APSP_INF;
    }
    for (int i = 0; i < n; ++i)
        host[(size_t)i * n + i] = 0;
    int *input, *work, *reference;
    unsigned long long *differences;
    CUDA_CHECK(cudaMalloc(&input, bytes));
    CUDA_CHECK(cudaMalloc(&work, bytes));
    CUDA_CHECK(cudaMalloc(&reference, bytes));
    CUDA_CHECK(cudaMalloc(&differences, sizeof *differences));
    CUDA_CHECK(cudaMemcpy(input, host.data(), bytes, cudaMemcpyHostToDevice));
    bool ok = true;
    double updates = (double)n * n * n;
    printf("n = %d, %d blocks a side\n%-42s %10s %14s %8s\n", n, n / BLOCK, "variant", "ms", "10^12 upd/s", "wrong");
    for (const Variant &v : kVariants) {
        cudaGraphExec_t exec = NULL;
        if (v.graph) {  // captured once; the graph's kernels keep `work` as their matrix
            cudaGraph_t graph;
            CUDA_CHECK(cudaStreamBeginCapture(lanes.main, cudaStreamCaptureModeThreadLocal));
            issue(v, work, n);
            CUDA_CHECK(cudaStreamEndCapture(lanes.main, &graph));
            CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
            CUDA_CHECK(cudaGraphDestroy(graph));
        }
        int reps = timed ? 5 : 1;  // the first run warms up; the median of the others
        std::vector<float> times;
        for (int rep = 0; rep < reps; ++rep) {
            CUDA_CHECK(cudaMemset(work, 0x7f, bytes));  // poison: an entry left unwritten shows
            CUDA_CHECK(cudaMemcpy(work, input, bytes, cudaMemcpyDeviceToDevice));
            CUDA_CHECK(cudaDeviceSynchronize());
            GpuTimer timer;
            timer.start(lanes.main);
            if (exec)
                CUDA_CHECK(cudaGraphLaunch(exec, lanes.main));
            else
                issue(v, work, n);
            timer.stop(lanes.main);
            times.push_back(timer.ms());
            CUDA_CHECK(cudaDeviceSynchronize());
        }
        if (exec)
            CUDA_CHECK(cudaGraphExecDestroy(exec));
        if (&v == &kVariants[0]) {
            CUDA_CHECK(cudaMemcpy(reference, work, bytes, cudaMemcpyDeviceToDevice));
            if (n <= 1024) {  // the reference against a plain Floyd-Warshall
                std::vector<int> expected = host, got(count);
                cpu_floyd_warshall(expected, n);
                CUDA_CHECK(cudaMemcpy(got.data(), reference, bytes, cudaMemcpyDeviceToHost));
                bool same = expected == got;
                printf("reference against CPU Floyd-Warshall: %s\n", same ? "equal" : "DIFFERENT");
                ok = ok && same;
            }
        }
        CUDA_CHECK(cudaMemset(differences, 0, sizeof *differences));
        count_differences<<<1024, 256>>>(work, reference, count, differences);
        CUDA_CHECK_LAUNCH();
        unsigned long long wrong = 0;
        CUDA_CHECK(cudaMemcpy(&wrong, differences, sizeof wrong, cudaMemcpyDeviceToHost));
        ok = ok && (wrong == 0 || !v.checked());
        std::vector<float> kept(times.begin() + (reps > 1), times.end());
        std::sort(kept.begin(), kept.end());
        float ms = kept[kept.size() / 2];
        if (v.checked())
            printf("%-42s %10.2f %14.3f %8llu\n", v.name, ms, updates / (ms * 1e-3) / 1e12, wrong);
        else if (v.driver == kKernelAlone)
            printf("%-42s %10.2f %11.2f us a launch\n", v.name, ms, ms * 1e3 / (n / BLOCK));
        else
            printf("%-42s %10.2f %14s %8s\n", v.name, ms, "-", "-");
    }
    CUDA_CHECK(cudaFree(input));
    CUDA_CHECK(cudaFree(work));
    CUDA_CHECK(cudaFree(reference));
    CUDA_CHECK(cudaFree(differences));
    return ok;
}

int main(int argc, char **argv)
{
    lanes_create(&lanes);
    lanes_create(&lanes_equal);
    int lowest = 0, highest = 0;
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
    CUDA_CHECK(cudaStreamDestroy(lanes_equal.side));  // step 34: the side stream at the main one's priority
    CUDA_CHECK(cudaStreamCreateWithPriority(&lanes_equal.side, cudaStreamDefault, lowest));
    bool ok = true;
    for (int a = 1; a < argc; ++a) {
        int n = atoi(argv[a]);
        if (n <= 0 || n % BLOCK != 0) {
            fprintf(stderr, "n must be a positive multiple of %d\n", BLOCK);
            return 2;
        }
        ok = sweep(n, a == 1) && ok;  // the first size is timed, the others only checked
    }
    lanes_destroy(&lanes);
    lanes_destroy(&lanes_equal);
    printf("%s\n", ok ? "all variants equal to the reference" : "SOME VARIANT DIFFERS");
    return ok ? 0 : 1;
}
