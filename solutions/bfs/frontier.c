// Lab 5 reference solution, the work-efficient BFS: each level touches only the frontier's
// edges, so a whole search is O(V + E) work instead of edge relaxation's O(V * E).
//
//   bfs_prepare  copies the edge list in and builds adjacency lists (CSR) on the GPU: degrees
//                by atomics, row starts by a scan, then each edge placed at both of its ends.
//   bfs_search   level by level, choosing for each step one of three kernels:
//     - one block, many levels (expand_small_frontiers): while the frontier is small, a single
//       block runs level after level with __syncthreads between them and never returns to the
//       host; a chain's 10^5 levels cost one launch instead of 10^5 launches and copies;
//     - top-down (expand_top_down): the frontier's edges shared evenly among threads (a scan of
//       the frontier's degrees says which vertex owns each edge), so a vertex with 10^5
//       neighbours is spread over many warps; a new vertex is claimed with atomicCAS and
//       appended to the next frontier with one atomicAdd a warp;
//     - bottom-up (expand_bottom_up, Beamer et al., "Direction-optimizing BFS", SC'12): when the
//       frontier holds much of the graph's remaining edges, each unvisited vertex looks for any
//       neighbour in the frontier and stops at the first, skipping most edges. The frontier is
//       then a bitmap, one bit a vertex (512 KB for 4M vertices: it stays in cache), and the
//       counts go to device memory once a block, not once a warp.
//
// Knobs for exploring (environment variables, read by bfs_prepare):
//   BFS_DIRECTION=top-down|bottom-up   always that direction (default: switch as Beamer et al.)
//   BFS_SMALL=0                        never the one-block kernel
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
#define BETA 24               // go back top-down when the frontier has < n / BETA vertices
#define FULL_MASK 0xffffffffu

enum Direction { SWITCHING, TOP_DOWN_ONLY, BOTTOM_UP_ONLY };

// What a step reports to the host: copied back once a step.
struct Status {
    unsigned next_count;   // vertices the step found: the next frontier's size
    unsigned next_edges;   // the sum of their degrees: the next frontier's edges
    unsigned found_edges;  // one-block kernel: the degrees of all it found, over all its levels
    int levels;            // one-block kernel: levels it expanded
    int depth;             // one-block kernel: depth of the frontier it leaves
    int queue;             // one-block kernel: which queue holds that frontier
    unsigned queued;       // bits_to_queue: vertices written to the queue so far
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
    unsigned bit_words;        // (n + 31) / 32
    int bottom_up_blocks;
    Status *status;            // device
    Status *status_host;       // pinned host memory, so the copy back is one small DMA
    int direction, use_small, trace;
};

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

// Places each edge in both ends' lists; cursor[v] starts at row_start[v].
__global__ void fill_adjacency(const int *edges, int m, unsigned *cursor, int *adjacency)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m)
        return;
    int u = edges[2 * e], v = edges[2 * e + 1];
    if (u != v) {
        adjacency[atomicAdd(&cursor[u], 1u)] = v;
        adjacency[atomicAdd(&cursor[v], 1u)] = u;
    }
}

// ---- the search ---------------------------------------------------------------------------

__global__ void init_search(int *depth, int n, int source, int *frontier)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n)
        depth[v] = (v == source) ? 0 : -1;
    if (v == source)
        frontier[0] = source;
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
                                int *depth, int next_depth, int *next_frontier, Status *status)
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
            // Read first: most neighbours are already visited, and a read is cheaper than an atomic.
            if (depth[w] == -1 && atomicCAS(&depth[w], -1, next_depth) == -1)
                found = w;
        }
        append_found(found, row_start, next_frontier, status);
    }
}

// Bottom-up: each unvisited vertex looks for a neighbour in the frontier (a bit set in
// frontier_bits) and stops at the first. A vertex found here gets frontier_depth + 1. Each warp
// takes 32 consecutive vertices, one word of the bitmaps, so the ballot of the vertices it
// found is the next frontier's word as it stands: a plain store, no atomics. The counts are
// summed in the block and added to the Status once a block: with a warp's atomics all on one
// address, they would queue up behind each other.
__global__ void expand_bottom_up(int n, unsigned words, const unsigned *row_start, const int *adjacency,
                                 int *depth, int frontier_depth, const unsigned *frontier_bits,
                                 unsigned *next_bits, Status *status)
{
    __shared__ unsigned block_count, block_edges;
    if (threadIdx.x == 0)
        block_count = block_edges = 0;
    __syncthreads();
    unsigned lane = threadIdx.x & 31;
    unsigned warps = gridDim.x * (blockDim.x / 32);
    unsigned count = 0, edges = 0;
    for (unsigned word = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; word < words; word += warps) {
        int v = (int)(word * 32 + lane);
        bool found = false;
        if (v < n && depth[v] == -1) {
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
            count += __popc(ballot);
        }
    }
    for (int offset = 16; offset > 0; offset >>= 1)
        edges += __shfl_xor_sync(FULL_MASK, edges, offset);
    if (lane == 0 && (count || edges)) {
        atomicAdd(&block_count, count);
        atomicAdd(&block_edges, edges);
    }
    __syncthreads();
    if (threadIdx.x == 0 && block_count) {
        atomicAdd(&status->next_count, block_count);
        atomicAdd(&status->next_edges, block_edges);
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
expand_small_frontiers(const unsigned *row_start, const int *adjacency, int *depth, int *queue0,
                       int *queue1, int queue, int frontier_depth, unsigned count, Status *status)
{
    __shared__ unsigned edge_end[SMALL_MAX_COUNT];  // inclusive scan of the frontier's degrees
    __shared__ unsigned warp_totals[32];
    __shared__ unsigned next_count, next_edges;
    unsigned t = threadIdx.x;
    unsigned found_edges = 0, level_edges = 0;
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
            if (depth[w] == -1 && atomicCAS(&depth[w], -1, frontier_depth + 1) == -1) {
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
        fill_adjacency<<<blocks_for(m, BLOCK_SIZE), BLOCK_SIZE>>>(device_edges, m, g->edge_end, g->adjacency);
        CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaFree(device_edges));  // the adjacency lists hold everything the search needs

    CUDA_CHECK(cudaMalloc((void **)&g->depth, (size_t)n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&g->queue[0], (size_t)n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&g->queue[1], (size_t)n * sizeof(int)));
    g->bit_words = (unsigned)(((size_t)n + 31) / 32);
    CUDA_CHECK(cudaMalloc((void **)&g->frontier_bits[0], g->bit_words * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&g->frontier_bits[1], g->bit_words * sizeof(unsigned)));
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    unsigned bottom_up_blocks = blocks_for(g->bit_words, BLOCK_SIZE / 32);
    g->bottom_up_blocks = (int)(bottom_up_blocks < (unsigned)(sms * BOTTOM_UP_BLOCKS_PER_SM)
                                    ? bottom_up_blocks : (unsigned)(sms * BOTTOM_UP_BLOCKS_PER_SM));
    if (g->bottom_up_blocks < 1)
        g->bottom_up_blocks = 1;
    CUDA_CHECK(cudaMalloc((void **)&g->status, sizeof(Status)));
    CUDA_CHECK(cudaMallocHost((void **)&g->status_host, sizeof(Status)));
    CUDA_CHECK(cudaDeviceSynchronize());
    return g;
}

// Copies the step's Status back (waiting for the step's kernels).
static Status read_status(BfsGraph *g)
{
    CUDA_CHECK(cudaMemcpyAsync(g->status_host, g->status, sizeof(Status), cudaMemcpyDeviceToHost, 0));
    CUDA_CHECK(cudaStreamSynchronize(0));
    return *g->status_host;
}

int bfs_search(BfsGraph *g, int source)
{
    init_search<<<blocks_for(g->n, BLOCK_SIZE), BLOCK_SIZE>>>(g->depth, g->n, source, g->queue[0]);
    CUDA_CHECK_LAUNCH();
    unsigned source_rows[2];
    CUDA_CHECK(cudaMemcpy(source_rows, g->row_start + source, sizeof(source_rows), cudaMemcpyDeviceToHost));

    unsigned count = 1;                                 // the frontier's vertices ...
    unsigned edges = source_rows[1] - source_rows[0];   // ... and the sum of their degrees
    unsigned long long unexplored = g->adjacency_count - edges;  // degrees of unvisited vertices
    int depth = 0, queue = 0, iterations = 0, bottom_up = g->direction == BOTTOM_UP_ONLY;
    int in_bits = 0, bits = 0;  // the frontier is in g->queue[queue], or (in_bits) in g->frontier_bits[bits]
    unsigned previous_count = 0;
    HostTimer clock;
    while (count > 0) {
        clock.restart();
        const char *kind;
        if (g->direction == SWITCHING) {
            // Beamer et al.: bottom-up once the frontier's edges outweigh a share of the unexplored
            // ones and the frontier grows; top-down again once the frontier is small and shrinking.
            if (!bottom_up && edges > unexplored / ALPHA && count > previous_count)
                bottom_up = 1;
            else if (bottom_up && count < (unsigned)g->n / BETA && count < previous_count)
                bottom_up = 0;
        }
        previous_count = count;
        if (!bottom_up && in_bits) {  // top-down steps read the frontier from a queue
            CUDA_CHECK(cudaMemsetAsync(g->status, 0, sizeof(Status), 0));
            bits_to_queue<<<blocks_for(g->bit_words, BLOCK_SIZE), BLOCK_SIZE>>>(g->frontier_bits[bits], g->bit_words,
                                                                                g->queue[queue], g->status);
            CUDA_CHECK_LAUNCH();
            in_bits = 0;
        }
        if (!bottom_up && g->use_small && count <= SMALL_MAX_COUNT && edges <= SMALL_MAX_EDGES) {
            kind = "one block";
            expand_small_frontiers<<<1, SMALL_THREADS>>>(g->row_start, g->adjacency, g->depth, g->queue[0],
                                                         g->queue[1], queue, depth, count, g->status);
            CUDA_CHECK_LAUNCH();
            Status s = read_status(g);
            iterations += s.levels;
            depth = s.depth;
            queue = s.queue;
            count = s.next_count;
            edges = s.next_edges;
            unexplored -= s.found_edges;
        } else {
            CUDA_CHECK(cudaMemsetAsync(g->status, 0, sizeof(Status), 0));
            if (bottom_up) {
                kind = "bottom-up";
                if (!in_bits) {  // bottom-up steps read the frontier from a bitmap
                    CUDA_CHECK(cudaMemsetAsync(g->frontier_bits[bits], 0, g->bit_words * sizeof(unsigned), 0));
                    queue_to_bits<<<blocks_for(count, BLOCK_SIZE), BLOCK_SIZE>>>(g->queue[queue], count,
                                                                                 g->frontier_bits[bits]);
                    CUDA_CHECK_LAUNCH();
                    in_bits = 1;
                }
                expand_bottom_up<<<g->bottom_up_blocks, BLOCK_SIZE>>>(
                    g->n, g->bit_words, g->row_start, g->adjacency, g->depth, depth, g->frontier_bits[bits],
                    g->frontier_bits[bits ^ 1], g->status);
                CUDA_CHECK_LAUNCH();
                bits ^= 1;
            } else {
                kind = "top-down";
                scan_inclusive(g->edge_end, count, g->scan_scratch, g->queue[queue], g->row_start);
                if (edges > 0) {
                    expand_top_down<<<blocks_for(edges, BLOCK_SIZE * EDGES_PER_THREAD), BLOCK_SIZE>>>(
                        g->queue[queue], count, g->edge_end, edges, g->row_start, g->adjacency, g->depth,
                        depth + 1, g->queue[queue ^ 1], g->status);
                    CUDA_CHECK_LAUNCH();
                }
                queue ^= 1;
            }
            Status s = read_status(g);
            iterations += 1;
            depth += 1;
            count = s.next_count;
            edges = s.next_edges;
            unexplored -= s.next_edges;
        }
        if (g->trace)
            fprintf(stderr, "bfs trace: %-9s -> depth %d: next frontier %u vertices, %u edges; %.3f ms\n",
                    kind, depth, count, edges, clock.ms());
    }
    return iterations;
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
    CUDA_CHECK(cudaFree(g->status));
    CUDA_CHECK(cudaFreeHost(g->status_host));
    free(g);
}
