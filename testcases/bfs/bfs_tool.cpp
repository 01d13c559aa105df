// The bfs lab's testcase maker, built with g++ by gen.py (python3 testcases/bfs/gen.py builds
// and runs it from the command line too). It shares the generators with the lab's --bench
// (labs/bfs/graph_gen.h) and nothing with the GPU code it helps to grade.
//
//   bfs_tool graph --graph KIND [graph options] --out FILE   write a generated graph
//   bfs_tool expected INPUT --source S --out FILE            the depths by a CPU queue BFS
#include <climits>
#include <cstdio>
#include <string>
#include <vector>

#include "binfile.h"
#include "cli.h"
#include "edge_list.h"
#include "exit_codes.h"
#include "graph_gen.h"
#include "lab_error.h"

static const char *kUsage =
    "bfs_tool graph --graph chain|star|grid|uniform|rmat|pieces [graph options] --out FILE\n"
    "       bfs_tool expected INPUT --source S --out FILE";

// The textbook BFS: adjacency lists by a counting sort, then a FIFO queue of vertices.
static std::vector<int32_t> queue_bfs(const EdgeList &graph, int32_t source)
{
    const int32_t n = graph.n;
    std::vector<int64_t> start(n + 1, 0);
    for (int32_t x : graph.ends)
        start[x + 1]++;
    for (int32_t v = 0; v < n; ++v)
        start[v + 1] += start[v];
    std::vector<int32_t> neighbours(graph.ends.size());
    std::vector<int64_t> cursor(start.begin(), start.end() - 1);
    for (size_t e = 0; e < graph.ends.size() / 2; ++e) {
        int32_t u = graph.ends[2 * e], v = graph.ends[2 * e + 1];
        neighbours[cursor[u]++] = v;
        neighbours[cursor[v]++] = u;
    }
    std::vector<int32_t> depth(n, -1), queue;
    queue.reserve(n);
    depth[source] = 0;
    queue.push_back(source);
    for (size_t head = 0; head < queue.size(); ++head) {
        int32_t v = queue[head];
        for (int64_t i = start[v]; i < start[v + 1]; ++i) {
            int32_t w = neighbours[i];
            if (depth[w] < 0) {
                depth[w] = depth[v] + 1;
                queue.push_back(w);
            }
        }
    }
    return depth;
}

static int tool_main(int argc, char **argv)
{
    Cli cli(argc, argv, {}, kUsage);
    const std::vector<std::string> &words = cli.positional();
    if (words.empty() || !cli.has("out"))
        throw LabError(std::string("usage: ") + kUsage);
    const std::string out = cli.str("out", "");
    if (words[0] == "graph" && words.size() == 1) {
        std::set<std::string> known = graph_option_names();
        known.insert("out");
        cli.allow_only(known);
        write_edge_list(out, make_graph(graph_spec_from(cli)));
        return LAB_EXIT_OK;
    }
    if (words[0] == "expected" && words.size() == 2 && cli.has("source")) {
        cli.allow_only({"source", "out"});
        EdgeList graph = read_edge_list(words[1]);
        long long source = cli.integer("source", 0, LLONG_MIN, LLONG_MAX);
        check_source(graph, source, "'" + words[1] + "'");
        std::vector<int32_t> depth = queue_bfs(graph, static_cast<int32_t>(source));
        write_binary_file(out, depth.data(), depth.size() * sizeof(int32_t));
        return LAB_EXIT_OK;
    }
    throw LabError(std::string("usage: ") + kUsage);
}

int main(int argc, char **argv) { return run_lab_main("bfs_tool", tool_main, argc, argv); }
