// Lab 5 reference solution, the work-efficient BFS: each level touches only the frontier's
// edges, so a whole search is O(V + E) work instead of edge relaxation's O(V * E).
//
//   bfs_prepare  copies the edge list in and builds adjacency lists (CSR) on the GPU: degrees
//                by atomics, row starts by a scan, then each edge placed at both of its ends,
//                the neighbours of highest degree first (see "hubs first" below). It also
//                marks, one bit a vertex, which vertices have an edge at all.
//   bfs_search   level by level, choosing for each step one of three kernels:
//     - one block, many levels (expand_small_frontiers): while the frontier is small, a single
//       block runs level after level with __syncthreads between them and never returns to the
//       host; a chain's 10^5 levels cost one launch instead of 10^5 launches and copies;
//     - top-down (expand_top_down): the frontier's edges shared evenly among threads (a scan of
//       the frontier's degrees says which vertex owns each edge), so a vertex with 10^5
//       neighbours is spread over many warps; a new vertex is claimed by clearing its bit in
//       the unvisited bitmap with atomicAnd, and appended to the next frontier with one
//       atomicAdd a warp;
//     - bottom-up (expand_bottom_up, Beamer et al., "Direction-optimizing BFS", SC'12): when the
//       frontier holds much of the graph's remaining edges, each unvisited vertex looks for any
//       neighbour in the frontier and stops at the first, skipping most edges. The frontier is
//       then a bitmap, one bit a vertex (512 KB for 4M vertices: it stays in cache), and the
//       counts go to device memory once a block, not once a warp.
//   Three things make the bottom-up steps cheap (labs/bfs/scripts/frontier_steps.sh measures
//   each): the unvisited bitmap, whose words let a warp skip 32 visited (or edgeless) vertices
//   with one read; hubs first in every adjacency list, so that a vertex next to the frontier
//   usually finds it at its first neighbour; and several bottom-up steps launched at once, each
//   deciding on the device from the step before whether the search still wants it, so the host
//   waits once for all of them instead of once a level.
//
// Knobs for exploring (environment variables, read by bfs_prepare):
//   BFS_DIRECTION=top-down|bottom-up   always that direction (default: switch as Beamer et al.)
//   BFS_SMALL=0                        never the one-block kernel
//   BFS_ORDER=placed                   adjacency lists in the order the edges came, not hubs first
//   BFS_SKIP=depth                     bottom-up reads each vertex's depth, not the unvisited bitmap
//   BFS_BATCH=B                        bottom-up steps launched before the host looks (1..8; 8)
//   BFS_BETA=K                         back to top-down once the frontier is under n/K and
//                                      shrinking (Beamer et al.: 24); 0 (the default): once
//                                      bottom-up, bottom-up to the end
//   BFS_TRACE=1                        one line per step on stderr: kind, frontier, time
#include "bfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_timer.h"

#define BLOCK_SIZE 256
#define BOTTOM_UP_BLOCKS_PER_SM 8  // bottom-up: a full machine of warps, looping over the vertices
#define SCAN_TILE 1024        // a scan block's elements, one per thread
#define EDGES_PER_THREAD 4    // top-down: consecutive frontier edges a thread handles
#define SMALL_THREADS 1024    // the one-block kernel's threads ...
#define SMALL_ITEMS 8         // ... and frontier vertices per thread there
#define SMALL_MAX_COUNT (SMALL_THREADS * SMALL_ITEMS)
#define SMALL_MAX_EDGES (16 * SMALL_THREADS)
#define ALPHA 14              // go bottom-up when the frontier's edges > unexplored edges / ALPHA
#define BETA 0                // go back top-down when the frontier has < n / BETA vertices (0: never)
#define MAX_BATCH 8           // bottom-up steps launched before the host reads their counts ...
#define BATCH 8               // ... by default: R-MAT's bottom-up levels all in one batch
#define FULL_MASK 0xffffffffu

// Hubs first: fill_adjacency places the edges in passes, neighbours of degree >= 4096 first,
// then >= 256, >= 16, the rest. R-MAT's hubs join the frontier in its first levels, so a
// bottom-up step mostly finds its answer at the first neighbour it reads.
static const unsigned kDegreeBands[] = {4096, 256, 16, 0};
#define DEGREE_BANDS (sizeof(kDegreeBands) / sizeof(kDegreeBands[0]))

enum Direction { SWITCHING, TOP_DOWN_ONLY, BOTTOM_UP_ONLY };

// What a step reports to the host: copied back once a step (once a batch of bottom-up steps).
struct Status {
    unsigned next_count;   // vertices the step found: the next frontier's size
    unsigned next_edges;   // the sum of their degrees: the next frontier's edges
    unsigned found_edges;  // one-block kernel: the degrees of all it found, over all its levels
    unsigned start_edges;  // one-block kernel: the degrees of the frontier it started from
    int levels;            // one-block kernel: levels it expanded
    int depth;             // one-block kernel: depth of the frontier it leaves
    int queue;             // one-block kernel: which queue holds that frontier
    unsigned queued;       // bits_to_queue: vertices written to the queue so far
    int skipped;           // a batched bottom-up step that found the search no longer wants it
};

struct BfsGraph {
    int n;
    unsigned adjacency_count;  // 2m less self-loops: at most 2^31, fits an unsigned
    unsigned *row_start;       // n + 1: vertex v's neighbours are adjacency[row_start[v] .. row_start[v+1])
    int *adjacency;
    int *depth;
    int *queue[2];             // the frontier and the next one, n entries each
    unsigned *edge_end;        // top-down: inclusive scan of the frontier's degrees (n entries)
    unsigned *scan_scratch;    // the scan's tile totals, level after level
    unsigned *frontier_bits[2];  // bottom-up: the frontier, bit v%32 of word v/32, and the next one
    unsigned *unvisited;       // bit v set: v has an edge and no depth yet (claims clear it)
    unsigned *has_edge;        // bit v set: v has an edge; unvisited starts as a copy, less the source
    unsigned bit_words;        // (n + 31) / 32
    int bottom_up_blocks;
    Status *status;            // device, MAX_BATCH of them: one a step of a batch
    Status *status_host;       // pinned host memory, so the copy back is one small DMA
    int direction, use_small, trace, hubs_first, skip_by_bits, batch, beta;
};

// Beamer et al.'s way back: top-down again once the frontier is small (under n / beta) and
// shrinking. The host and the batched bottom-up steps on the device both decide by it. Off by
// default (beta 0): with the unvisited bitmap a bottom-up step on R-MAT's last levels costs a
// few microseconds inside a batch, less than a wait on the host and a one-block launch (on
// H100, R-MAT scale 20 and 22; at scale 24 Beamer's way back was 10% faster). A graph with a
// long thin tail after a dense core would pay a bottom-up step per level: BFS_BETA=24 there.
__host__ __device__ static bool back_to_top_down(unsigned count, unsigned previous_count, int n, int beta)
{
    return beta > 0 && count < (unsigned)n / (unsigned)beta && count < previous_count;
}

// ---- scans (inclusive, unsigned, in place) --------------------------------------------------

// Inclusive scan across a block of exactly SCAN_TILE threads: warps by shuffles, then the
// warps' totals by warp 0. `warp_totals` is 32 words of shared memory.
__device__ unsigned block_inclusive_scan(unsigned x, unsigned *warp_totals)
{
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int d = 1; d < 32; d <<= 1) {
        unsigned y = __shfl_up_sync(FULL_MASK, x, d);
        if (lane >= (unsigned)d)
            x += y;
    }
    if (lane == 31)
        warp_totals[warp] = x;
    __syncthreads();
    if (warp == 0) {
        unsigned total = warp_totals[lane];
        for (int d = 1; d < 32; d <<= 1) {
            unsigned y = __shfl_up_sync(FULL_MASK, total, d);
            if (lane >= (unsigned)d)
                total += y;
        }
        warp_totals[lane] = total;
    }
    __syncthreads();
    unsigned before = warp > 0 ? warp_totals[warp - 1] : 0;
    __syncthreads();  // warp_totals may be reused as soon as this returns
    return x + before;
}

// Scans each tile of SCAN_TILE elements and writes each tile's total. The values are data[i],
// or, given a frontier, the degree of frontier[i] (the top-down step's first pass).
__global__ void scan_tiles(unsigned *data, unsigned count, unsigned *tile_totals, const int *frontier,
                           const unsigned *row_start)
{
    __shared__ unsigned warp_totals[32];
    unsigned i = blockIdx.x * SCAN_TILE + threadIdx.x;
    unsigned x = 0;
    if (i < count) {
        if (frontier) {
            int v = frontier[i];
            x = row_start[v + 1] - row_start[v];
        } else {
            x = data[i];
        }
    }
    x = block_inclusive_scan(x, warp_totals);
    if (i < count)
        data[i] = x;
    if (tile_totals && threadIdx.x == SCAN_TILE - 1)
        tile_totals[blockIdx.x] = x;
}

// Adds to every tile but the first the scanned total of the tiles before it.
__global__ void add_tile_offsets(unsigned *data, unsigned count, const unsigned *scanned_totals)
{
    unsigned i = (blockIdx.x + 1) * SCAN_TILE + threadIdx.x;
    if (i < count)
        data[i] += scanned_totals[blockIdx.x];
}

// data[i] = the sum of values 0..i; tiles, then their totals scanned the same way, then added.
static void scan_inclusive(unsigned *data, unsigned count, unsigned *scratch, const int *frontier,
                           const unsigned *row_start)
{
    unsigned tiles = (count + SCAN_TILE - 1) / SCAN_TILE;
    scan_tiles<<<tiles, SCAN_TILE>>>(data, count, tiles > 1 ? scratch : NULL, frontier, row_start);
    CUDA_CHECK_LAUNCH();
    if (tiles > 1) {
        scan_inclusive(scratch, tiles, scratch + tiles, NULL, NULL);
        add_tile_offsets<<<tiles - 1, SCAN_TILE>>>(data, count, scratch);
        CUDA_CHECK_LAUNCH();
    }
}

// ---- building the adjacency lists -------------------------------------------------------------

// degree of v goes to row_start[v + 1], so that an inclusive scan gives the row starts.
__global__ void count_degrees(const int *edges, int m, unsigned *row_start)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m)
        return;
    int u = edges[2 * e], v = edges[2 * e + 1];
    if (u != v) {  // a self-loop never changes a depth: leave it out
        atomicAdd(&row_start[u + 1], 1u);
        atomicAdd(&row_start[v + 1], 1u);
    }
}

__device__ unsigned degree_of(const unsigned *row_start, int v)
{
    return row_start[v + 1] - row_start[v];
}

// Places each edge in both ends' lists, but only at an end whose other end's degree lies in
// [min_degree, below_degree): one pass of the hubs-first order. cursor[v] starts at row_start[v].
__global__ void fill_adjacency(const int *edges, int m, const unsigned *row_start, unsigned min_degree,
                               unsigned below_degree, unsigned *cursor, int *adjacency)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m)
        return;
    int u = edges[2 * e], v = edges[2 * e + 1];
    if (u == v)
        return;
    unsigned degree_u = degree_of(row_start, u), degree_v = degree_of(row_start, v);
    if (degree_v >= min_degree && degree_v < below_degree)
        adjacency[atomicAdd(&cursor[u], 1u)] = v;
    if (degree_u >= min_degree && degree_u < below_degree)
        adjacency[atomicAdd(&cursor[v], 1u)] = u;
}

// Bit v of has_edge: v has a neighbour. One warp a word: the ballot is the word.
__global__ void mark_has_edge(const unsigned *row_start, int n, unsigned words, unsigned *has_edge)
{
    unsigned index = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (int)index;
    bool edge = v < n && degree_of(row_start, v) > 0;
    unsigned ballot = __ballot_sync(FULL_MASK, edge);
    if ((threadIdx.x & 31) == 0 && index / 32 < words)
        has_edge[index / 32] = ballot;
}

// ---- the search ---------------------------------------------------------------------------

// The source's part of a fresh search (the host has set every depth to -1 and unvisited to
// has_edge): depth 0, visited, alone in the first frontier.
__global__ void init_source(int *depth, unsigned *unvisited, int source, int *frontier)
{
    depth[source] = 0;
    unvisited[source >> 5] &= ~(1u << (source & 31));
    frontier[0] = source;
}

// Claims w for the caller if no one has: clears w's bit in the unvisited bitmap, and returns
// true to exactly one of the threads that try. Reads first: most neighbours are already
// visited, and a read is cheaper than an atomic.
__device__ bool claim(unsigned *unvisited, int w)
{
    unsigned bit = 1u << (w & 31);
    if (!(unvisited[w >> 5] & bit))
        return false;
    return (atomicAnd(&unvisited[w >> 5], ~bit) & bit) != 0;
}

// Appends the vertices its lanes found (found >= 0) to the next frontier with one atomicAdd for
// the whole warp, and adds their degrees to the next frontier's edge count. Every lane of the
// warp must call it together.
__device__ void append_found(int found, const unsigned *row_start, int *next_frontier, Status *status)
{
    unsigned ballot = __ballot_sync(FULL_MASK, found >= 0);
    if (ballot == 0)
        return;
    unsigned lane = threadIdx.x & 31;
    unsigned leader = __ffs(ballot) - 1;
    unsigned base = 0;
    if (lane == leader)
        base = atomicAdd(&status->next_count, (unsigned)__popc(ballot));
    base = __shfl_sync(FULL_MASK, base, leader);
    unsigned degree = 0;
    if (found >= 0) {
        next_frontier[base + __popc(ballot & ((1u << lane) - 1))] = found;
        degree = row_start[found + 1] - row_start[found];
    }
    for (int offset = 16; offset > 0; offset >>= 1)
        degree += __shfl_xor_sync(FULL_MASK, degree, offset);
    if (lane == leader)
        atomicAdd(&status->next_edges, degree);
}

// Top-down: thread t takes frontier edges [t*K, t*K + K); edge_end (the inclusive scan of the
// frontier's degrees) says which frontier vertex owns an edge: the first i with edge_end[i] > e.
__global__ void expand_top_down(const int *frontier, unsigned count, const unsigned *edge_end,
                                unsigned total_edges, const unsigned *row_start, const int *adjacency,
                                int *depth, unsigned *unvisited, int next_depth, int *next_frontier,
                                Status *status)
{
    unsigned long long first =
        ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) * EDGES_PER_THREAD;
    unsigned owner = 0, owner_begin = 0, owner_end = 0, row = 0;
    if (first < total_edges) {
        unsigned lo = 0, hi = count - 1;
        while (lo < hi) {
            unsigned mid = (lo + hi) / 2;
            if (edge_end[mid] > first)
                hi = mid;
            else
                lo = mid + 1;
        }
        owner = lo;
        owner_begin = owner > 0 ? edge_end[owner - 1] : 0;
        owner_end = edge_end[owner];
        row = row_start[frontier[owner]];
    }
    // No early exit: append_found needs every lane of the warp.
    for (int k = 0; k < EDGES_PER_THREAD; ++k) {
        unsigned long long e = first + k;
        int found = -1;
        if (e < total_edges) {
            while (e >= owner_end) {  // the next frontier vertex (degree-0 ones own no edge)
                ++owner;
                owner_begin = owner_end;
                owner_end = edge_end[owner];
                row = row_start[frontier[owner]];
            }
            int w = adjacency[row + (unsigned)(e - owner_begin)];
            if (claim(unvisited, w)) {
                depth[w] = next_depth;
                found = w;
            }
        }
        append_found(found, row_start, next_frontier, status);
    }
}

// Bottom-up: each unvisited vertex looks for a neighbour in the frontier (a bit set in
// frontier_bits) and stops at the first. A vertex found here gets frontier_depth + 1. Each warp
// takes 32 consecutive vertices, one word of the bitmaps, so the ballot of the vertices it
// found is the next frontier's word as it stands, and its unvisited word less those: plain
// stores, no atomics (no other thread touches these words in this step). A word with no
// unvisited vertex costs the warp one read. With skip_by_bits off, each lane reads its vertex's
// depth instead, as a first bottom-up kernel would (and works on edgeless vertices too).
//
// The counts are summed in the block (each warp's in its own slot of shared memory, then warp 0
// adds them up) and added to the Status once a block: with a warp's atomics all on one address,
// they would queue up behind each other.
//
// Batched (step > 0 of a batch): the host launched this step before it knew the last one's
// counts, so the step reads them and does nothing (skipped) if the search is over or wants a
// top-down step now. Every thread of the grid reads the same counts and decides alike.
__global__ void expand_bottom_up(int n, unsigned words, const unsigned *row_start, const int *adjacency,
                                 int *depth, unsigned *unvisited, bool skip_by_bits, int frontier_depth,
                                 const unsigned *frontier_bits, unsigned *next_bits, Status *batch,
                                 int step, unsigned count_before, int beta)
{
    if (step > 0) {
        const Status *last = &batch[step - 1];
        unsigned previous_count = step > 1 ? batch[step - 2].next_count : count_before;
        if (last->skipped || last->next_count == 0 ||
            back_to_top_down(last->next_count, previous_count, n, beta)) {
            if (blockIdx.x == 0 && threadIdx.x == 0)
                batch[step].skipped = 1;
            return;
        }
    }
    __shared__ unsigned warp_count[BLOCK_SIZE / 32], warp_edges[BLOCK_SIZE / 32];
    unsigned lane = threadIdx.x & 31;
    unsigned warps = gridDim.x * (blockDim.x / 32);
    unsigned count = 0, edges = 0;
    for (unsigned word = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; word < words; word += warps) {
        int v = (int)(word * 32 + lane);
        unsigned todo;
        if (skip_by_bits)
            todo = unvisited[word];
        else
            todo = __ballot_sync(FULL_MASK, v < n && depth[v] == -1);
        bool found = false;
        if (todo & (1u << lane)) {
            unsigned begin = row_start[v], end = row_start[v + 1];
            for (unsigned p = begin; p < end; ++p) {
                int w = adjacency[p];
                if (frontier_bits[w >> 5] & (1u << (w & 31))) {
                    found = true;
                    break;
                }
            }
            if (found) {
                depth[v] = frontier_depth + 1;
                edges += end - begin;
            }
        }
        unsigned ballot = __ballot_sync(FULL_MASK, found);
        if (lane == 0) {
            next_bits[word] = ballot;
            if (ballot) {
                unvisited[word] &= ~ballot;
                count += __popc(ballot);
            }
        }
    }
    for (int offset = 16; offset > 0; offset >>= 1)
        edges += __shfl_xor_sync(FULL_MASK, edges, offset);
    if (lane == 0) {
        warp_count[threadIdx.x / 32] = count;
        warp_edges[threadIdx.x / 32] = edges;
    }
    __syncthreads();
    if (threadIdx.x < 32) {  // warp 0 sums the block's warps and adds once for the block
        bool mine = lane < blockDim.x / 32;
        count = mine ? warp_count[lane] : 0;
        edges = mine ? warp_edges[lane] : 0;
        for (int offset = 16; offset > 0; offset >>= 1) {
            count += __shfl_xor_sync(FULL_MASK, count, offset);
            edges += __shfl_xor_sync(FULL_MASK, edges, offset);
        }
        if (lane == 0 && count) {
            atomicAdd(&batch[step].next_count, count);
            atomicAdd(&batch[step].next_edges, edges);
        }
    }
}

// The frontier from the queue into the bitmap (zeroed before), for a first bottom-up step.
__global__ void queue_to_bits(const int *frontier, unsigned count, unsigned *bits)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        int v = frontier[i];
        atomicOr(&bits[v >> 5], 1u << (v & 31));
    }
}

// The frontier from the bitmap into a queue, for a top-down step after bottom-up ones: one
// thread a word; a warp scan of the words' bit counts gives each its slots, one atomicAdd a warp.
__global__ void bits_to_queue(const unsigned *bits, unsigned words, int *frontier, Status *status)
{
    unsigned index = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned word = index < words ? bits[index] : 0;
    unsigned lane = threadIdx.x & 31;
    unsigned ones = __popc(word), upto = ones;
    for (int d = 1; d < 32; d <<= 1) {
        unsigned y = __shfl_up_sync(FULL_MASK, upto, d);
        if (lane >= (unsigned)d)
            upto += y;
    }
    unsigned base = 0;
    if (lane == 31 && upto > 0)
        base = atomicAdd(&status->queued, upto);
    unsigned slot = __shfl_sync(FULL_MASK, base, 31) + upto - ones;
    for (; word; word &= word - 1)
        frontier[slot++] = (int)(index * 32 + __ffs(word) - 1);
}

// One block, many levels: expands the frontier in queues[queue] (count <= SMALL_MAX_COUNT
// vertices), then the next, and so on, until a frontier is empty or too big for one block.
__global__ void __launch_bounds__(SMALL_THREADS)
expand_small_frontiers(const unsigned *row_start, const int *adjacency, int *depth, unsigned *unvisited,
                       int *queue0, int *queue1, int queue, int frontier_depth, unsigned count, Status *status)
{
    __shared__ unsigned edge_end[SMALL_MAX_COUNT];  // inclusive scan of the frontier's degrees
    __shared__ unsigned warp_totals[32];
    __shared__ unsigned next_count, next_edges;
    unsigned t = threadIdx.x;
    unsigned found_edges = 0, level_edges = 0, start_edges = 0;
    int levels = 0;
    for (;;) {
        const int *frontier = queue ? queue1 : queue0;
        int *next = queue ? queue0 : queue1;
        // The degrees of this thread's SMALL_ITEMS frontier vertices, then the block's scan.
        unsigned local[SMALL_ITEMS], sum = 0;
        for (int j = 0; j < SMALL_ITEMS; ++j) {
            unsigned i = t * SMALL_ITEMS + j;
            if (i < count) {
                int v = frontier[i];
                sum += row_start[v + 1] - row_start[v];
            }
            local[j] = sum;
        }
        unsigned before = block_inclusive_scan(sum, warp_totals) - sum;
        for (int j = 0; j < SMALL_ITEMS; ++j)
            if (t * SMALL_ITEMS + j < count)
                edge_end[t * SMALL_ITEMS + j] = before + local[j];
        if (t == 0)
            next_count = next_edges = 0;
        __syncthreads();

        unsigned total = edge_end[count - 1];
        if (levels == 0)
            start_edges = total;
        for (unsigned e = t; e < total; e += SMALL_THREADS) {
            unsigned lo = 0, hi = count - 1;
            while (lo < hi) {
                unsigned mid = (lo + hi) / 2;
                if (edge_end[mid] > e)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            unsigned begin = lo > 0 ? edge_end[lo - 1] : 0;
            int w = adjacency[row_start[frontier[lo]] + (e - begin)];
            if (claim(unvisited, w)) {
                depth[w] = frontier_depth + 1;
                next[atomicAdd(&next_count, 1u)] = w;
                atomicAdd(&next_edges, row_start[w + 1] - row_start[w]);
            }
        }
        __syncthreads();
        count = next_count;
        level_edges = next_edges;
        found_edges += level_edges;
        ++levels;
        ++frontier_depth;
        queue ^= 1;
        if (count == 0 || count > SMALL_MAX_COUNT || level_edges > SMALL_MAX_EDGES)
            break;
        __syncthreads();  // all have read next_count before thread 0 clears it
    }
    if (t == 0) {
        status->next_count = count;
        status->next_edges = level_edges;
        status->found_edges = found_edges;
        status->start_edges = start_edges;
        status->levels = levels;
        status->depth = frontier_depth;
        status->queue = queue;
    }
}

// ---- host side ------------------------------------------------------------------------------

static unsigned blocks_for(unsigned long long threads, unsigned block)
{
    return (unsigned)((threads + block - 1) / block);
}

static int env_int(const char *name, int fallback)
{
    const char *value = getenv(name);
    return value && *value ? atoi(value) : fallback;
}

BfsGraph *bfs_prepare(int n, int m, const int *edges)
{
    BfsGraph *g = (BfsGraph *)calloc(1, sizeof(BfsGraph));
    g->n = n;
    const char *direction = getenv("BFS_DIRECTION");
    g->direction = !direction ? SWITCHING
                   : strcmp(direction, "top-down") == 0 ? TOP_DOWN_ONLY
                   : strcmp(direction, "bottom-up") == 0 ? BOTTOM_UP_ONLY : SWITCHING;
    g->use_small = env_int("BFS_SMALL", 1);
    g->trace = env_int("BFS_TRACE", 0);
    const char *order = getenv("BFS_ORDER"), *skip = getenv("BFS_SKIP");
    g->hubs_first = !(order && strcmp(order, "placed") == 0);
    g->skip_by_bits = !(skip && strcmp(skip, "depth") == 0);
    g->batch = env_int("BFS_BATCH", BATCH);
    g->batch = g->batch < 1 ? 1 : g->batch > MAX_BATCH ? MAX_BATCH : g->batch;
    g->beta = env_int("BFS_BETA", BETA);

    int *device_edges;
    size_t edge_bytes = 2 * (size_t)m * sizeof(int);
    CUDA_CHECK(cudaMalloc((void **)&device_edges, edge_bytes > 0 ? edge_bytes : sizeof(int)));
    CUDA_CHECK(cudaMemcpy(device_edges, edges, edge_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMalloc((void **)&g->row_start, ((size_t)n + 1) * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&g->edge_end, (size_t)n * sizeof(unsigned)));
    size_t scratch = (size_t)n / (SCAN_TILE - 1) + 16;  // tile totals of every scan level
    CUDA_CHECK(cudaMalloc((void **)&g->scan_scratch, scratch * sizeof(unsigned)));

    // Degrees, then row starts by a scan: row_start[0] = 0, row_start[v + 1] = row_start[v] + degree.
    CUDA_CHECK(cudaMemset(g->row_start, 0, ((size_t)n + 1) * sizeof(unsigned)));
    if (m > 0) {
        count_degrees<<<blocks_for(m, BLOCK_SIZE), BLOCK_SIZE>>>(device_edges, m, g->row_start);
        CUDA_CHECK_LAUNCH();
    }
    scan_inclusive(g->row_start, n + 1, g->scan_scratch, NULL, NULL);
    CUDA_CHECK(cudaMemcpy(&g->adjacency_count, g->row_start + n, sizeof(unsigned), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMalloc((void **)&g->adjacency, ((size_t)g->adjacency_count + 1) * sizeof(int)));
    if (m > 0) {
        CUDA_CHECK(cudaMemcpy(g->edge_end, g->row_start, (size_t)n * sizeof(unsigned), cudaMemcpyDeviceToDevice));
        // Hubs first: one pass a band of degrees, highest first (all in one pass when placed).
        unsigned below = 0xffffffffu;
        for (size_t band = 0; band < DEGREE_BANDS; ++band) {
            unsigned least = g->hubs_first ? kDegreeBands[band] : 0;
            fill_adjacency<<<blocks_for(m, BLOCK_SIZE), BLOCK_SIZE>>>(device_edges, m, g->row_start, least, below,
                                                                      g->edge_end, g->adjacency);
            CUDA_CHECK_LAUNCH();
            if (least == 0)
                break;
            below = least;
        }
    }
    CUDA_CHECK(cudaFree(device_edges));  // the adjacency lists hold everything the search needs

    CUDA_CHECK(cudaMalloc((void **)&g->depth, (size_t)n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&g->queue[0], (size_t)n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&g->queue[1], (size_t)n * sizeof(int)));
    g->bit_words = (unsigned)(((size_t)n + 31) / 32);
    CUDA_CHECK(cudaMalloc((void **)&g->frontier_bits[0], g->bit_words * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&g->frontier_bits[1], g->bit_words * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&g->unvisited, g->bit_words * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&g->has_edge, g->bit_words * sizeof(unsigned)));
    mark_has_edge<<<blocks_for((unsigned long long)g->bit_words * 32, BLOCK_SIZE), BLOCK_SIZE>>>(
        g->row_start, n, g->bit_words, g->has_edge);
    CUDA_CHECK_LAUNCH();
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    unsigned bottom_up_blocks = blocks_for(g->bit_words, BLOCK_SIZE / 32);
    g->bottom_up_blocks = (int)(bottom_up_blocks < (unsigned)(sms * BOTTOM_UP_BLOCKS_PER_SM)
                                    ? bottom_up_blocks : (unsigned)(sms * BOTTOM_UP_BLOCKS_PER_SM));
    if (g->bottom_up_blocks < 1)
        g->bottom_up_blocks = 1;
    CUDA_CHECK(cudaMalloc((void **)&g->status, MAX_BATCH * sizeof(Status)));
    CUDA_CHECK(cudaMallocHost((void **)&g->status_host, MAX_BATCH * sizeof(Status)));
    CUDA_CHECK(cudaDeviceSynchronize());
    return g;
}

// Copies the first `steps` Status back (waiting for the steps' kernels).
static const Status *read_status(BfsGraph *g, int steps)
{
    CUDA_CHECK(cudaMemcpyAsync(g->status_host, g->status, steps * sizeof(Status), cudaMemcpyDeviceToHost, 0));
    CUDA_CHECK(cudaStreamSynchronize(0));
    return g->status_host;
}

// Where a search stands between steps, on the host.
struct Search {
    unsigned count;                // the frontier's vertices ...
    unsigned edges;                // ... and the sum of their degrees
    unsigned previous_count;       // the frontier's size a step before
    unsigned long long unexplored; // the degrees of the vertices not yet visited
    int depth;                     // the frontier's depth
    int iterations;                // levels expanded so far
    int queue;                     // the frontier is in g->queue[queue] ...
    int in_bits, bits;             // ... or (in_bits) in g->frontier_bits[bits]
};

static void trace_step(const BfsGraph *g, const char *kind, const Search &s, double ms)
{
    if (g->trace)
        fprintf(stderr, "bfs trace: %-9s -> depth %d: next frontier %u vertices, %u edges; %.3f ms\n", kind,
                s.depth, s.count, s.edges, ms);
}

// One block, as many levels as stay small. The first step of a search needs no count from the
// host (the source alone, whatever its degree): the kernel reports the source's degree too.
static void step_small(BfsGraph *g, Search &s, bool first)
{
    expand_small_frontiers<<<1, SMALL_THREADS>>>(g->row_start, g->adjacency, g->depth, g->unvisited, g->queue[0],
                                                 g->queue[1], s.queue, s.depth, s.count, g->status);
    CUDA_CHECK_LAUNCH();
    const Status *status = read_status(g, 1);
    if (first)
        s.unexplored -= status->start_edges;
    s.iterations += status->levels;
    s.depth = status->depth;
    s.queue = status->queue;
    s.previous_count = s.count;
    s.count = status->next_count;
    s.edges = status->next_edges;
    s.unexplored -= status->found_edges;
}

static void step_top_down(BfsGraph *g, Search &s)
{
    CUDA_CHECK(cudaMemsetAsync(g->status, 0, sizeof(Status), 0));
    scan_inclusive(g->edge_end, s.count, g->scan_scratch, g->queue[s.queue], g->row_start);
    if (s.edges > 0) {
        expand_top_down<<<blocks_for(s.edges, BLOCK_SIZE * EDGES_PER_THREAD), BLOCK_SIZE>>>(
            g->queue[s.queue], s.count, g->edge_end, s.edges, g->row_start, g->adjacency, g->depth, g->unvisited,
            s.depth + 1, g->queue[s.queue ^ 1], g->status);
        CUDA_CHECK_LAUNCH();
    }
    const Status *status = read_status(g, 1);
    s.queue ^= 1;
    s.iterations += 1;
    s.depth += 1;
    s.previous_count = s.count;
    s.count = status->next_count;
    s.edges = status->next_edges;
    s.unexplored -= s.edges;
}

// g->batch bottom-up steps launched back to back, then one wait for all their counts. Step i
// reads frontier_bits[bits ^ (i & 1)] and writes the other; a step the device skipped found
// the search over or wanting a top-down step, and so did every step after it.
static void steps_bottom_up(BfsGraph *g, Search &s, int beta, HostTimer &clock)
{
    if (!s.in_bits) {  // bottom-up steps read the frontier from a bitmap
        CUDA_CHECK(cudaMemsetAsync(g->frontier_bits[s.bits], 0, g->bit_words * sizeof(unsigned), 0));
        queue_to_bits<<<blocks_for(s.count, BLOCK_SIZE), BLOCK_SIZE>>>(g->queue[s.queue], s.count,
                                                                       g->frontier_bits[s.bits]);
        CUDA_CHECK_LAUNCH();
        s.in_bits = 1;
    }
    CUDA_CHECK(cudaMemsetAsync(g->status, 0, g->batch * sizeof(Status), 0));
    for (int i = 0; i < g->batch; ++i) {
        int bits = s.bits ^ (i & 1);
        expand_bottom_up<<<g->bottom_up_blocks, BLOCK_SIZE>>>(
            g->n, g->bit_words, g->row_start, g->adjacency, g->depth, g->unvisited, g->skip_by_bits != 0,
            s.depth + i, g->frontier_bits[bits], g->frontier_bits[bits ^ 1], g->status, i, s.count, beta);
        CUDA_CHECK_LAUNCH();
    }
    const Status *status = read_status(g, g->batch);
    double ms = clock.ms();  // the whole batch: the steps ran back to back
    for (int i = 0; i < g->batch && !status[i].skipped; ++i) {
        s.bits ^= 1;
        s.iterations += 1;
        s.depth += 1;
        s.previous_count = s.count;
        s.count = status[i].next_count;
        s.edges = status[i].next_edges;
        s.unexplored -= s.edges;
        trace_step(g, "bottom-up", s, ms);
    }
}

int bfs_search(BfsGraph *g, int source)
{
    // A fresh search: every depth -1 (each byte 0xff), every vertex with an edge unvisited.
    CUDA_CHECK(cudaMemsetAsync(g->depth, 0xff, (size_t)g->n * sizeof(int), 0));
    CUDA_CHECK(cudaMemcpyAsync(g->unvisited, g->has_edge, g->bit_words * sizeof(unsigned), cudaMemcpyDeviceToDevice, 0));
    init_source<<<1, 1>>>(g->depth, g->unvisited, source, g->queue[0]);
    CUDA_CHECK_LAUNCH();

    Search s;
    memset(&s, 0, sizeof(s));
    s.count = 1;
    s.unexplored = g->adjacency_count;
    int beta = g->direction == SWITCHING ? g->beta : 0;
    int bottom_up = g->direction == BOTTOM_UP_ONLY;
    HostTimer clock;
    if (g->use_small && !bottom_up) {
        step_small(g, s, true);
        trace_step(g, "one block", s, clock.ms());
    } else {  // the source's degree, for the first step's direction and size
        unsigned source_rows[2];
        CUDA_CHECK(cudaMemcpy(source_rows, g->row_start + source, sizeof(source_rows), cudaMemcpyDeviceToHost));
        s.edges = source_rows[1] - source_rows[0];
        s.unexplored -= s.edges;
    }
    while (s.count > 0) {
        clock.restart();
        if (g->direction == SWITCHING) {
            // Beamer et al.: bottom-up once the frontier's edges outweigh a share of the unexplored
            // ones and the frontier grows; top-down again once the frontier is small and shrinking.
            if (!bottom_up && s.edges > s.unexplored / ALPHA && s.count > s.previous_count)
                bottom_up = 1;
            else if (bottom_up && back_to_top_down(s.count, s.previous_count, g->n, beta))
                bottom_up = 0;
        }
        if (bottom_up) {
            steps_bottom_up(g, s, beta, clock);
            continue;
        }
        if (s.in_bits) {  // top-down steps read the frontier from a queue
            CUDA_CHECK(cudaMemsetAsync(g->status, 0, sizeof(Status), 0));
            bits_to_queue<<<blocks_for(g->bit_words, BLOCK_SIZE), BLOCK_SIZE>>>(g->frontier_bits[s.bits],
                                                                                g->bit_words, g->queue[s.queue],
                                                                                g->status);
            CUDA_CHECK_LAUNCH();
            s.in_bits = 0;
        }
        if (g->use_small && s.count <= SMALL_MAX_COUNT && s.edges <= SMALL_MAX_EDGES) {
            step_small(g, s, false);
            trace_step(g, "one block", s, clock.ms());
        } else {
            step_top_down(g, s);
            trace_step(g, "top-down", s, clock.ms());
        }
    }
    return s.iterations;
}

void bfs_copy_depths(BfsGraph *g, int *depth)
{
    CUDA_CHECK(cudaMemcpy(depth, g->depth, (size_t)g->n * sizeof(int), cudaMemcpyDeviceToHost));
}

void bfs_release(BfsGraph *g)
{
    CUDA_CHECK(cudaFree(g->row_start));
    CUDA_CHECK(cudaFree(g->adjacency));
    CUDA_CHECK(cudaFree(g->depth));
    CUDA_CHECK(cudaFree(g->queue[0]));
    CUDA_CHECK(cudaFree(g->queue[1]));
    CUDA_CHECK(cudaFree(g->edge_end));
    CUDA_CHECK(cudaFree(g->scan_scratch));
    CUDA_CHECK(cudaFree(g->frontier_bits[0]));
    CUDA_CHECK(cudaFree(g->frontier_bits[1]));
    CUDA_CHECK(cudaFree(g->unvisited));
    CUDA_CHECK(cudaFree(g->has_edge));
    CUDA_CHECK(cudaFree(g->status));
    CUDA_CHECK(cudaFreeHost(g->status_host));
    free(g);
}
