#include "graph_gen.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "cli.h"
#include "lab_error.h"
#include "seeded.h"

namespace {

// A stream of draws. Each stream starts from a hashed state, so streams made from nearby
// numbers (edge 7 and edge 8) share no draws.
class Draws {
public:
    Draws(uint64_t seed, uint64_t stream)
    {
        uint64_t mixed = seed ^ (stream * 0xD1B54A32D192ED03ull);
        state_ = splitmix64_next(&mixed);
    }
    uint64_t next() { return splitmix64_next(&state_); }
    // Uniform in [0, bound) for bound <= 2^32, by multiply-shift (Lemire): no division.
    uint32_t below(uint64_t bound) { return static_cast<uint32_t>(((next() >> 32) * bound) >> 32); }

private:
    uint64_t state_;
};

// Streams of one seed, one per purpose; the generators' per-edge streams are kEdgeStreams + e.
enum : uint64_t { kPermuteStream = 1, kSelfLoopStream, kDuplicateStream, kShuffleStream,
                  kPiecesStream, kSourceStream, kEdgeStreams = 1ull << 40 };

// Runs body(begin, end) over [0, count) in contiguous chunks on all cores. Each edge's draws
// depend only on its index, so the result is the same for any number of threads.
template <typename Body>
void parallel_for(long long count, Body body)
{
    long long threads = std::max(1u, std::thread::hardware_concurrency());
    threads = std::min(threads, std::max(1LL, count / 100000));
    std::vector<std::thread> pool;
    for (long long t = 0; t < threads; ++t)
        pool.emplace_back(body, count * t / threads, count * (t + 1) / threads);
    for (auto &thread : pool)
        thread.join();
}

void need(bool ok, const std::string &message)
{
    if (!ok)
        throw LabError(message);
}

// Probability p as a threshold on a 32-bit draw: draw < threshold with probability p.
uint64_t threshold32(double p) { return static_cast<uint64_t>(p * 4294967296.0); }

void make_rmat(const GraphSpec &spec, EdgeList &graph)
{
    // Graph500's Kronecker generator (kronecker_generator.m): one bit of each end per level,
    // the row bit with P(1) = 1 - (a + b), the column bit with P(1) = b/(a+b) after a row 0 and
    // d/(c+d) after a row 1. Two 32-bit halves of one draw give the two bits.
    const double a = 0.57, b = 0.19, c = 0.19, d = 1 - a - b - c;
    const uint64_t row_zero = threshold32(a + b);
    const uint64_t col_zero_after_row0 = threshold32(a / (a + b));
    const uint64_t col_zero_after_row1 = threshold32(c / (c + d));
    const int scale = static_cast<int>(spec.scale);
    int32_t *ends = graph.ends.data();
    parallel_for(graph.m(), [&](long long begin, long long end) {
        for (long long e = begin; e < end; ++e) {
            Draws draws(spec.seed, kEdgeStreams + e);
            uint32_t u = 0, v = 0;
            for (int level = 0; level < scale; ++level) {
                uint64_t r = draws.next();
                uint32_t row_bit = (r >> 32) >= row_zero;
                uint32_t col_bit = (r & 0xffffffffull) >= (row_bit ? col_zero_after_row1 : col_zero_after_row0);
                u |= row_bit << level;
                v |= col_bit << level;
            }
            ends[2 * e] = static_cast<int32_t>(u);
            ends[2 * e + 1] = static_cast<int32_t>(v);
        }
    });
}

void make_uniform(const GraphSpec &spec, EdgeList &graph)
{
    int32_t *ends = graph.ends.data();
    parallel_for(graph.m(), [&](long long begin, long long end) {
        for (long long e = begin; e < end; ++e) {
            Draws draws(spec.seed, kEdgeStreams + e);
            ends[2 * e] = static_cast<int32_t>(draws.below(spec.n));
            ends[2 * e + 1] = static_cast<int32_t>(draws.below(spec.n));
        }
    });
}

// `pieces` components of near-equal size over consecutive vertex numbers: each a random tree
// (vertex i joins a random earlier vertex of its piece) plus size/2 random chords inside it.
void make_pieces(const GraphSpec &spec, EdgeList &graph)
{
    Draws draws(spec.seed, kPiecesStream);
    graph.ends.clear();
    for (long long p = 0; p < spec.pieces; ++p) {
        long long first = spec.n * p / spec.pieces, size = spec.n * (p + 1) / spec.pieces - first;
        for (long long i = 1; i < size; ++i) {
            graph.ends.push_back(static_cast<int32_t>(first + i));
            graph.ends.push_back(static_cast<int32_t>(first + draws.below(i)));
        }
        for (long long k = 0; k < size / 2; ++k) {
            graph.ends.push_back(static_cast<int32_t>(first + draws.below(size)));
            graph.ends.push_back(static_cast<int32_t>(first + draws.below(size)));
        }
    }
}

long long edges_of(const GraphSpec &spec)
{
    const std::string &kind = spec.kind;
    if (kind == "chain" || kind == "star")
        return spec.n - 1;
    if (kind == "grid")
        return spec.rows * (spec.cols - 1) + spec.cols * (spec.rows - 1);
    if (kind == "uniform")
        return spec.m;
    if (kind == "rmat")
        return spec.edge_factor << spec.scale;
    // pieces: a tree and size/2 chords in each piece
    long long edges = 0;
    for (long long p = 0; p < spec.pieces; ++p) {
        long long size = spec.n * (p + 1) / spec.pieces - spec.n * p / spec.pieces;
        edges += size - 1 + size / 2;
    }
    return edges;
}

void check_spec(const GraphSpec &spec)
{
    const std::string &kind = spec.kind;
    need(kind == "chain" || kind == "star" || kind == "grid" || kind == "uniform" || kind == "rmat" ||
             kind == "pieces",
         "--graph " + kind + " is not a generator; choose chain, star, grid, uniform, rmat or pieces");
    if (kind == "grid") {
        need(spec.rows >= 1 && spec.cols >= 1, "--graph grid needs --rows R and --cols C, both at least 1");
        need(spec.rows * spec.cols <= kMaxVertices, "--rows x --cols is over the lab's limit of " +
                                                        std::to_string(kMaxVertices) + " vertices");
    } else if (kind == "rmat") {
        need(spec.scale >= 1 && spec.scale <= 30, "--graph rmat needs --scale S with 1 <= S <= 30");
        need(spec.edge_factor >= 1 && spec.edge_factor <= 1024, "--edge-factor must be between 1 and 1024");
    } else {
        need(spec.n >= 1 && spec.n <= kMaxVertices,
             "--graph " + kind + " needs --n N with 1 <= N <= " + std::to_string(kMaxVertices));
    }
    if (kind == "uniform")
        need(spec.m >= 0, "--graph uniform needs --m M, the number of edges");
    if (kind == "pieces")
        need(spec.pieces >= 1 && spec.pieces <= spec.n, "--graph pieces needs --pieces P with 1 <= P <= n");
    need(spec.isolated >= 0 && spec.self_loops >= 0 && spec.duplicates >= 0,
         "--isolated, --self-loops and --duplicates must not be negative");
    long long vertices = (kind == "grid" ? spec.rows * spec.cols : kind == "rmat" ? 1LL << spec.scale : spec.n);
    need(vertices + spec.isolated <= kMaxVertices,
         "the graph would have more than " + std::to_string(kMaxVertices) + " vertices");
    long long edges = edges_of(spec);
    need(edges + spec.self_loops + spec.duplicates <= kMaxEdges,
         "the graph would have more than " + std::to_string(kMaxEdges) + " edges");
    need(spec.duplicates == 0 || edges > 0, "--duplicates needs a graph that has edges to copy");
}

}  // namespace

const std::set<std::string> &graph_option_names()
{
    static const std::set<std::string> names = {"graph", "n", "m", "rows", "cols", "scale", "edge-factor",
                                                "pieces", "isolated", "self-loops", "duplicates",
                                                "permute", "shuffle", "seed"};
    return names;
}

GraphSpec graph_spec_from(const Cli &cli)
{
    GraphSpec spec;
    spec.kind = cli.str("graph", "");
    need(!spec.kind.empty(), "say which graph: --graph chain|star|grid|uniform|rmat|pieces");
    const long long big = 1LL << 40;
    spec.n = cli.integer("n", 0, 0, big);
    spec.m = cli.integer("m", -1, 0, big);
    spec.rows = cli.integer("rows", 0, 0, big);
    spec.cols = cli.integer("cols", 0, 0, big);
    spec.scale = cli.integer("scale", 0, 0, 40);
    spec.edge_factor = cli.integer("edge-factor", 16, 0, big);
    spec.pieces = cli.integer("pieces", 0, 0, big);
    spec.isolated = cli.integer("isolated", 0, 0, big);
    spec.self_loops = cli.integer("self-loops", 0, 0, big);
    spec.duplicates = cli.integer("duplicates", 0, 0, big);
    bool permute_by_default = spec.kind == "rmat" || spec.kind == "pieces";
    spec.permute = cli.integer("permute", permute_by_default ? 1 : 0, 0, 1) == 1;
    spec.shuffle = cli.integer("shuffle", 0, 0, 1) == 1;
    spec.seed = static_cast<uint64_t>(cli.integer("seed", 1, 0, 1LL << 62));
    check_spec(spec);
    return spec;
}

std::string describe(const GraphSpec &spec)
{
    std::string text;
    const std::string &kind = spec.kind;
    if (kind == "grid")
        text = "grid " + std::to_string(spec.rows) + " x " + std::to_string(spec.cols);
    else if (kind == "rmat")
        text = "rmat scale " + std::to_string(spec.scale) + ", edge factor " + std::to_string(spec.edge_factor);
    else if (kind == "uniform")
        text = "uniform n = " + std::to_string(spec.n) + ", m = " + std::to_string(spec.m);
    else if (kind == "pieces")
        text = "pieces n = " + std::to_string(spec.n) + " in " + std::to_string(spec.pieces);
    else
        text = kind + " n = " + std::to_string(spec.n);
    if (spec.isolated)
        text += ", " + std::to_string(spec.isolated) + " isolated";
    if (spec.self_loops)
        text += ", " + std::to_string(spec.self_loops) + " self-loops";
    if (spec.duplicates)
        text += ", " + std::to_string(spec.duplicates) + " duplicates";
    return text + (spec.permute ? ", permuted" : "") + (spec.shuffle ? ", shuffled" : "") +
           " (seed " + std::to_string(spec.seed) + ")";
}

std::string short_name(const GraphSpec &spec)
{
    if (spec.kind == "grid")
        return "grid-" + std::to_string(spec.rows) + "x" + std::to_string(spec.cols);
    if (spec.kind == "rmat")
        return "rmat-" + std::to_string(spec.scale);
    return spec.kind + "-" + std::to_string(spec.n);
}

EdgeList make_graph(const GraphSpec &spec)
{
    check_spec(spec);
    EdgeList graph;
    const std::string &kind = spec.kind;
    graph.n = static_cast<int32_t>(kind == "grid" ? spec.rows * spec.cols
                                   : kind == "rmat" ? 1LL << spec.scale
                                                    : spec.n);
    graph.ends.resize(2 * static_cast<size_t>(edges_of(spec)));
    int32_t *ends = graph.ends.data();
    if (kind == "chain" || kind == "star") {
        for (int32_t i = 1; i < graph.n; ++i) {
            ends[2 * (i - 1)] = kind == "chain" ? i - 1 : 0;
            ends[2 * (i - 1) + 1] = i;
        }
    } else if (kind == "grid") {
        size_t e = 0;
        for (long long r = 0; r < spec.rows; ++r)
            for (long long c = 0; c < spec.cols; ++c) {
                int32_t v = static_cast<int32_t>(r * spec.cols + c);
                if (c + 1 < spec.cols) {
                    ends[e++] = v;
                    ends[e++] = v + 1;
                }
                if (r + 1 < spec.rows) {
                    ends[e++] = v;
                    ends[e++] = static_cast<int32_t>(v + spec.cols);
                }
            }
    } else if (kind == "uniform") {
        make_uniform(spec, graph);
    } else if (kind == "rmat") {
        make_rmat(spec, graph);
    } else {
        make_pieces(spec, graph);
    }

    graph.n += static_cast<int32_t>(spec.isolated);  // the new vertices are the last ones, with no edge
    if (spec.self_loops) {
        Draws draws(spec.seed, kSelfLoopStream);
        for (long long k = 0; k < spec.self_loops; ++k) {
            int32_t v = static_cast<int32_t>(draws.below(graph.n));
            graph.ends.push_back(v);
            graph.ends.push_back(v);
        }
    }
    if (spec.duplicates) {
        Draws draws(spec.seed, kDuplicateStream);
        uint32_t originals = static_cast<uint32_t>(graph.m());
        for (long long k = 0; k < spec.duplicates; ++k) {
            uint32_t e = draws.below(originals);
            bool reverse = draws.next() & 1;
            int32_t u = graph.ends[2 * e], v = graph.ends[2 * e + 1];
            graph.ends.push_back(reverse ? v : u);
            graph.ends.push_back(reverse ? u : v);
        }
    }
    if (spec.permute) {
        // Fisher-Yates: label[v] is vertex v's new number.
        Draws draws(spec.seed, kPermuteStream);
        std::vector<int32_t> label(graph.n);
        for (int32_t v = 0; v < graph.n; ++v)
            label[v] = v;
        for (int32_t v = graph.n - 1; v > 0; --v)
            std::swap(label[v], label[draws.below(static_cast<uint64_t>(v) + 1)]);
        int32_t *all = graph.ends.data();
        parallel_for(static_cast<long long>(graph.ends.size()), [&](long long begin, long long end) {
            for (long long i = begin; i < end; ++i)
                all[i] = label[all[i]];
        });
    }
    if (spec.shuffle) {
        Draws draws(spec.seed, kShuffleStream);
        for (int32_t e = graph.m() - 1; e >= 0; --e) {
            uint32_t other = draws.below(static_cast<uint64_t>(e) + 1);
            std::swap(graph.ends[2 * e], graph.ends[2 * other]);
            std::swap(graph.ends[2 * e + 1], graph.ends[2 * other + 1]);
            if (draws.next() & 1)
                std::swap(graph.ends[2 * e], graph.ends[2 * e + 1]);
        }
    }
    return graph;
}

int32_t pick_source(const EdgeList &graph, uint64_t seed)
{
    std::vector<unsigned char> has_edge(graph.n, 0);
    for (int32_t e = 0; e < graph.m(); ++e)
        if (graph.ends[2 * e] != graph.ends[2 * e + 1])
            has_edge[graph.ends[2 * e]] = has_edge[graph.ends[2 * e + 1]] = 1;
    Draws draws(seed, kSourceStream);
    for (int attempt = 0; attempt < 1000; ++attempt) {
        int32_t v = static_cast<int32_t>(draws.below(graph.n));
        if (has_edge[v])
            return v;
    }
    for (int32_t v = 0; v < graph.n; ++v)
        if (has_edge[v])
            return v;
    return 0;
}
