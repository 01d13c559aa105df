// Seeded random graphs in the APSP input format: the benchmark's inputs (main.cpp) and the
// generated testcases (testcases/apsp/oracle.cpp builds them with this same header, so a case
// is made on demand from its parameters and checked against the SHA-256 in cases.toml).
#pragma once

#include <cstdint>
#include <vector>

#include "apsp_format.h"
#include "seeded.h"

// Uniform in 0..bound-1 (the modulo's bias is far below anything a testcase could notice).
static inline int32_t random_below(uint64_t *state, uint64_t bound)
{
    return static_cast<int32_t>(splitmix64_next(state) % bound);
}

// m edges as (src, dst, weight) triples, weights uniform in 0..1000, endpoints uniform in
// 0..n-1 (self-loops and repeated edges come with it). With `cycle`, the first min(n, m) edges
// are instead a directed cycle through all n vertices in a random order, so that every pair is
// connected and many shortest paths cross many blocks.
static inline std::vector<int32_t> random_graph_edges(bool cycle, int n, int64_t m, uint64_t seed)
{
    std::vector<int32_t> triples(3 * static_cast<size_t>(m));
    uint64_t state = seed;
    int64_t e = 0;
    if (cycle) {
        std::vector<int32_t> order(n);
        for (int i = 0; i < n; ++i)
            order[i] = i;
        for (int i = n - 1; i > 0; --i) {  // Fisher-Yates
            int j = random_below(&state, static_cast<uint64_t>(i) + 1);
            int32_t held = order[i];
            order[i] = order[j];
            order[j] = held;
        }
        for (; e < n && e < m; ++e) {
            triples[3 * e] = order[e];
            triples[3 * e + 1] = order[(e + 1) % n];
            triples[3 * e + 2] = random_below(&state, APSP_MAX_WEIGHT + 1);
        }
    }
    for (; e < m; ++e) {
        triples[3 * e] = random_below(&state, n);
        triples[3 * e + 1] = random_below(&state, n);
        triples[3 * e + 2] = random_below(&state, APSP_MAX_WEIGHT + 1);
    }
    return triples;
}
