#include "dijkstra.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <utility>
#include <vector>

namespace {

struct Arc {
    int to, weight;
};

// Out-arcs of every vertex, read off M_0 (the diagonal's zeros are not arcs).
std::vector<std::vector<Arc>> arcs_of(const Graph &graph)
{
    std::vector<std::vector<Arc>> arcs(graph.n);
    for (int i = 0; i < graph.n; ++i)
        for (int j = 0; j < graph.n; ++j) {
            int w = graph.matrix[static_cast<size_t>(i) * graph.padded + j];
            if (i != j && w != INT_MAX)
                arcs[i].push_back({j, w});
        }
    return arcs;
}

void dijkstra(const std::vector<std::vector<Arc>> &arcs, int source, std::vector<long long> &dist)
{
    using Item = std::pair<long long, int>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    std::fill(dist.begin(), dist.end(), -1);
    dist[source] = 0;
    heap.push({0, source});
    while (!heap.empty()) {
        auto [d, u] = heap.top();
        heap.pop();
        if (d > dist[u])
            continue;
        for (const Arc &arc : arcs[u]) {
            long long nd = d + arc.weight;
            if (dist[arc.to] < 0 || nd < dist[arc.to]) {
                dist[arc.to] = nd;
                heap.push({nd, arc.to});
            }
        }
    }
}

}  // namespace

Mismatch check_against_dijkstra(const Graph &graph, const int *result, int stride)
{
    std::vector<std::vector<Arc>> arcs = arcs_of(graph);
    int workers = static_cast<int>(std::max(1u, std::min(std::thread::hardware_concurrency(), 64u)));
    workers = std::min(workers, graph.n);
    Mismatch first;
    std::mutex lock;
    auto work = [&](int worker) {
        std::vector<long long> dist(graph.n);
        for (int source = worker; source < graph.n; source += workers) {
            dijkstra(arcs, source, dist);
            const int *row = result + static_cast<size_t>(source) * stride;
            for (int j = 0; j < graph.n; ++j) {
                long long got = row[j] == INT_MAX ? -1 : row[j];
                if (got != dist[j]) {
                    std::lock_guard<std::mutex> guard(lock);
                    if (!first.found || source < first.from) {
                        first.found = true;
                        first.from = source;
                        first.to = j;
                        first.expected = dist[j];
                        first.got = got;
                    }
                    break;
                }
            }
        }
    };
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w)
        threads.emplace_back(work, w);
    for (std::thread &t : threads)
        t.join();
    return first;
}
