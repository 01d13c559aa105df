#include "edge_list.h"

#include <cstring>

#include "binfile.h"
#include "lab_error.h"

static std::string num(long long value) { return std::to_string(value); }

EdgeList read_edge_list(const std::string &path)
{
    BinaryFile file(path);
    const std::string name = "input file '" + path + "'";
    if (file.size() < 8)
        throw LabError(name + " is truncated: it has " + num(file.size()) +
                       " bytes, but the header alone (int32 n, int32 m) needs 8");
    int32_t n = file.next_i32("n (the vertex count)");
    int32_t m = file.next_i32("m (the edge count)");
    if (n < 1 || n > kMaxVertices)
        throw LabError(name + ": n = " + num(n) + " vertices; it must be between 1 and " +
                       num(kMaxVertices) + " (is this an edge-list file? see handouts/bfs.md)");
    if (m < 0 || m > kMaxEdges)
        throw LabError(name + ": m = " + num(m) + " edges; it must be between 0 and " + num(kMaxEdges));
    size_t need = 8 * static_cast<size_t>(m);
    if (file.remaining() < need)
        throw LabError(name + " is truncated: its header says m = " + num(m) + " edges (" +
                       num(8 + need) + " bytes in all), but the file has " + num(file.size()) +
                       " bytes, room for " + num((file.size() - 8) / 8) + " whole edges");
    if (file.remaining() > need)
        throw LabError(name + " has " + num(file.remaining() - need) + " bytes after the m = " +
                       num(m) + " edges its header announces: is m right?");
    EdgeList graph;
    graph.n = n;
    graph.ends.resize(2 * static_cast<size_t>(m));
    if (m > 0)
        std::memcpy(graph.ends.data(), file.next_i32_array(2 * static_cast<size_t>(m), "the edges"), need);
    for (size_t i = 0; i < graph.ends.size(); ++i) {
        int32_t vertex = graph.ends[i];
        if (vertex < 0 || vertex >= n) {
            size_t e = i / 2;
            throw LabError(name + ": edge " + num(e) + " (" + num(graph.ends[2 * e]) + ", " +
                           num(graph.ends[2 * e + 1]) + ") names vertex " + num(vertex) +
                           ", out of range: the header says n = " + num(n) + ", so vertices are 0.." +
                           num(n - 1));
        }
    }
    return graph;
}

void write_edge_list(const std::string &path, const EdgeList &graph)
{
    std::vector<int32_t> words;
    words.reserve(2 + graph.ends.size());
    words.push_back(graph.n);
    words.push_back(graph.m());
    words.insert(words.end(), graph.ends.begin(), graph.ends.end());
    write_binary_file(path, words.data(), words.size() * sizeof(int32_t));
}

void check_source(const EdgeList &graph, long long source, const std::string &where)
{
    if (source < 0 || source >= graph.n)
        throw LabError("--source " + num(source) + " is out of range: " + where + " has n = " +
                       num(graph.n) + " vertices, numbered 0.." + num(graph.n - 1));
}
