// The apsp lab's testcase tool: makes seeded random inputs, and computes expected outputs by
// Dijkstra from every source, an algorithm independent of the Floyd-Warshall under test.
// gen.py builds it on demand (g++ -O2 -pthread) into build/tools/ and calls it.
//
//   apsp-oracle generate N M SEED CYCLE OUT   an input file (labs/apsp/random_graph.h; CYCLE 0/1)
//   apsp-oracle solve IN OUT [THREADS]        all-pairs distances of IN, written to OUT
//
// Dijkstra runs from every source on a pool of threads. A dense graph (m > n^2 / 16) uses the
// O(n^2) array version on a matrix of smallest weights, a sparse one a binary heap.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <queue>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "apsp_format.h"
#include "random_graph.h"

[[noreturn]] static void fail(const std::string &message)
{
    std::fprintf(stderr, "apsp-oracle: %s\n", message.c_str());
    std::exit(2);
}

static std::vector<int32_t> read_ints(const char *path)
{
    FILE *file = std::fopen(path, "rb");
    if (!file)
        fail(std::string("cannot open ") + path);
    std::fseek(file, 0, SEEK_END);
    long size = std::ftell(file);
    std::fseek(file, 0, SEEK_SET);
    std::vector<int32_t> ints(static_cast<size_t>(size) / 4);
    if (std::fread(ints.data(), 4, ints.size(), file) != ints.size() || size % 4 != 0)
        fail(std::string("cannot read ") + path);
    std::fclose(file);
    return ints;
}

static void write_bytes(const char *path, const void *data, size_t bytes)
{
    FILE *file = std::fopen(path, "wb");
    if (!file || std::fwrite(data, 1, bytes, file) != bytes || std::fclose(file) != 0)
        fail(std::string("cannot write ") + path);
}

struct Graph {
    int n = 0;
    std::vector<int64_t> first;  // CSR: the edges out of u are first[u] .. first[u + 1] - 1
    std::vector<int32_t> to, weight;
};

static Graph read_graph(const char *path)
{
    std::vector<int32_t> ints = read_ints(path);
    if (ints.size() < 2)
        fail(std::string(path) + " has no header");
    Graph g;
    g.n = ints[0];
    int64_t m = ints[1];
    if (g.n <= 0 || m < 0 || static_cast<int64_t>(ints.size()) != 2 + 3 * m)
        fail(std::string(path) + ": n, m and the file size disagree");
    const int32_t *edges = ints.data() + 2;
    g.first.assign(g.n + 1, 0);
    for (int64_t e = 0; e < m; ++e) {
        int32_t u = edges[3 * e], v = edges[3 * e + 1], w = edges[3 * e + 2];
        if (u < 0 || u >= g.n || v < 0 || v >= g.n || w < 0 || w > APSP_MAX_WEIGHT)
            fail(std::string(path) + ": edge " + std::to_string(e) + " is out of range");
        ++g.first[u + 1];
    }
    for (int u = 0; u < g.n; ++u)
        g.first[u + 1] += g.first[u];
    g.to.resize(m);
    g.weight.resize(m);
    std::vector<int64_t> next(g.first.begin(), g.first.end() - 1);
    for (int64_t e = 0; e < m; ++e) {
        int64_t slot = next[edges[3 * e]]++;
        g.to[slot] = edges[3 * e + 1];
        g.weight[slot] = edges[3 * e + 2];
    }
    return g;
}

// Distances from `source` into row[0..n-1], by Dijkstra with a binary heap (lazy deletion).
static void dijkstra_heap(const Graph &g, int source, int32_t *row)
{
    using Item = std::pair<int64_t, int32_t>;  // (distance, vertex)
    std::vector<int64_t> dist(g.n, INT64_MAX);
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    dist[source] = 0;
    heap.push({0, source});
    while (!heap.empty()) {
        auto [d, u] = heap.top();
        heap.pop();
        if (d != dist[u])
            continue;
        for (int64_t e = g.first[u]; e < g.first[u + 1]; ++e) {
            int64_t through = d + g.weight[e];
            if (through < dist[g.to[e]]) {
                dist[g.to[e]] = through;
                heap.push({through, g.to[e]});
            }
        }
    }
    for (int v = 0; v < g.n; ++v)
        row[v] = dist[v] == INT64_MAX ? APSP_INF : static_cast<int32_t>(dist[v]);
}

// The same with an O(n^2) scan for the nearest unfinished vertex, on a matrix of the smallest
// weight of each pair (APSP_INF where there is no edge): faster for dense graphs. Distances
// stay below 2^30 here (at most 1000 (n - 1)), so int32 sums cannot overflow.
static void dijkstra_dense(const std::vector<int32_t> &weights, int n, int source, int32_t *row)
{
    std::vector<int32_t> dist(n, APSP_INF);
    std::vector<int32_t> done(n, 0);  // 0 or -1, a mask
    dist[source] = 0;
    for (int u = source; u >= 0;) {
        done[u] = -1;
        const int32_t *out = weights.data() + static_cast<size_t>(u) * n;
        int32_t from_u = dist[u];
        for (int v = 0; v < n; ++v)  // relax every edge out of u (a loop the compiler vectorizes)
            dist[v] = std::min(dist[v], from_u + out[v]);
        int32_t nearest = APSP_INF;
        u = -1;
        for (int v = 0; v < n; ++v)
            if (!done[v] && dist[v] < nearest) {
                nearest = dist[v];
                u = v;
            }
    }
    std::copy(dist.begin(), dist.end(), row);
}

static int solve(const char *in, const char *out, int threads)
{
    Graph g = read_graph(in);
    int n = g.n;
    int64_t m = static_cast<int64_t>(g.to.size());
    bool dense = m > static_cast<int64_t>(n) * n / 16;
    std::vector<int32_t> weights;
    if (dense) {
        weights.assign(static_cast<size_t>(n) * n, APSP_INF);
        for (int u = 0; u < n; ++u)
            for (int64_t e = g.first[u]; e < g.first[u + 1]; ++e) {
                int32_t &w = weights[static_cast<size_t>(u) * n + g.to[e]];
                w = std::min(w, g.weight[e]);
            }
    }
    std::vector<int32_t> result(static_cast<size_t>(n) * n);
    std::atomic<int> next_source{0};
    auto worker = [&]() {
        for (int s; (s = next_source.fetch_add(1)) < n;) {
            int32_t *row = result.data() + static_cast<size_t>(s) * n;
            if (dense)
                dijkstra_dense(weights, n, s, row);
            else
                dijkstra_heap(g, s, row);
        }
    };
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back(worker);
    for (auto &thread : pool)
        thread.join();
    write_bytes(out, result.data(), result.size() * sizeof(int32_t));
    return 0;
}

static int generate(int n, int64_t m, uint64_t seed, bool cycle, const char *out)
{
    std::vector<int32_t> file = {n, static_cast<int32_t>(m)};
    std::vector<int32_t> edges = random_graph_edges(cycle, n, m, seed);
    file.insert(file.end(), edges.begin(), edges.end());
    write_bytes(out, file.data(), file.size() * sizeof(int32_t));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 7 && std::strcmp(argv[1], "generate") == 0)
        return generate(std::atoi(argv[2]), std::atoll(argv[3]), std::strtoull(argv[4], nullptr, 10),
                        std::atoi(argv[5]) != 0, argv[6]);
    if ((argc == 4 || argc == 5) && std::strcmp(argv[1], "solve") == 0) {
        int threads = argc == 5 ? std::atoi(argv[4]) : static_cast<int>(std::thread::hardware_concurrency());
        return solve(argv[2], argv[3], std::max(1, threads));
    }
    std::fprintf(stderr, "usage: apsp-oracle generate N M SEED CYCLE OUT\n"
                         "       apsp-oracle solve IN OUT [THREADS]\n");
    return 2;
}
