#include "graph_text.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include <strings.h>
#include <sys/stat.h>

#include "lab_error.h"
#include "seeded.h"

static const char *const kEnd = "--END--";
static const char *const kFormat =
    "a graph file has one edge 'V W l' a line (two vertex names and a length) and ends with "
    "the line '--END--'";

namespace {

struct Edge {
    int from, to;
    long long weight;
    int line;
};

class Reader {
public:
    Reader(const std::string &source, int alignment) : source_(source), alignment_(alignment) {}

    [[noreturn]] void fail(int line, const std::string &what) const
    {
        throw LabError(source_ + ":" + std::to_string(line) + ": " + what);
    }

    // One line's fields; refuses bytes that are not printable ASCII or whitespace.
    std::vector<std::string> fields(const char *begin, const char *end, int line) const
    {
        std::vector<std::string> out;
        std::string field;
        for (const char *p = begin; p < end; ++p) {
            unsigned char c = static_cast<unsigned char>(*p);
            int column = static_cast<int>(p - begin) + 1;
            if (c >= 0x80) {
                bool bom = line == 1 && column == 1 && end - begin >= 3 &&
                           std::memcmp(begin, "\xEF\xBB\xBF", 3) == 0;
                char hex[8];
                std::snprintf(hex, sizeof hex, "0x%02X", c);
                fail(line, std::string("byte ") + hex + " at column " + std::to_string(column) +
                               " is not ASCII" +
                               (bom ? " (a UTF-8 byte-order mark: save the file as plain ASCII)"
                                    : ": vertex names and lengths are plain ASCII"));
            }
            bool space = c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
            if (!space && (c < 0x20 || c == 0x7f)) {
                char hex[8];
                std::snprintf(hex, sizeof hex, "0x%02X", c);
                fail(line, std::string("control character ") + hex + " at column " +
                               std::to_string(column) + ": names are printable ASCII");
            }
            if (space) {
                if (!field.empty())
                    out.push_back(field);
                field.clear();
            } else {
                field += static_cast<char>(c);
            }
        }
        if (!field.empty())
            out.push_back(field);
        return out;
    }

    // The third field: a non-negative whole number no distance overflows with.
    long long weight(const std::string &text, int line) const
    {
        size_t digits_from = (text[0] == '+' || text[0] == '-') ? 1 : 0;
        bool whole = text.size() > digits_from &&
                     std::all_of(text.begin() + digits_from, text.end(),
                                 [](char c) { return c >= '0' && c <= '9'; });
        if (!whole)
            fail(line, "length '" + text + "' is not a whole number: the third field of an edge "
                       "is its length, a non-negative integer");
        bool zero = std::all_of(text.begin() + digits_from, text.end(), [](char c) { return c == '0'; });
        if (text[0] == '-' && !zero)
            fail(line, "length " + text + " is negative: Floyd-Warshall here needs lengths of 0 "
                       "or more (the module assumes non-negative integer weights)");
        long long value = 0;
        for (size_t i = digits_from; i < text.size(); ++i) {
            value = value * 10 + (text[i] - '0');
            if (value > FW_MAX_DISTANCE)
                fail(line, "length " + text + " is too large: no distance may reach 1073741823 "
                           "(the output's 'no path'); lengths are at most " +
                           std::to_string(FW_MAX_DISTANCE));
        }
        return value;
    }

    int vertex(const std::string &name, int line)
    {
        if (name == kEnd)
            fail(line, "'--END--' ends the file and cannot name a vertex");
        auto found = number_.find(name);
        if (found != number_.end())
            return found->second;
        int id = static_cast<int>(names_.size());
        number_.emplace(name, id);
        names_.push_back(name);
        return id;
    }

    Graph read(const std::string &text)
    {
        if (text.find_first_not_of(" \t\r\n\v\f") == std::string::npos)
            throw LabError("'" + source_ + "' is empty: " + kFormat);
        std::vector<Edge> edges;
        int line = 0, end_line = 0;
        size_t pos = 0;
        while (pos < text.size()) {
            size_t eol = text.find('\n', pos);
            if (eol == std::string::npos)
                eol = text.size();
            ++line;
            std::vector<std::string> f = fields(text.data() + pos, text.data() + eol, line);
            pos = eol + 1;
            if (f.empty())
                continue;
            if (end_line)
                fail(line, "text after the line '--END--' (line " + std::to_string(end_line) +
                               "): edges go before it");
            if (f[0] == kEnd) {
                if (f.size() != 1)
                    fail(line, "'--END--' must be alone on its line");
                end_line = line;
                continue;
            }
            if (f.size() != 3) {
                std::string shown;
                for (const std::string &field : f)
                    shown += (shown.empty() ? "" : " ") + field;
                if (shown.size() > 60)
                    shown = shown.substr(0, 57) + "...";
                std::string what = "expected an edge 'V W l' (two vertex names and a length), found " +
                                   std::to_string(f.size()) + (f.size() == 1 ? " field" : " fields") +
                                   ": '" + shown + "'";
                if (f.size() == 1 && strcasecmp(f[0].c_str(), kEnd) == 0)
                    what += " (the last line must be exactly '--END--', in capitals)";
                fail(line, what);
            }
            int from = vertex(f[0], line);
            int to = vertex(f[1], line);
            edges.push_back({from, to, weight(f[2], line), line});
        }
        if (!end_line)
            throw LabError(source_ + ": the file ends after line " + std::to_string(line) +
                           " without the closing line '--END--' (" + kFormat + ")");
        if (edges.empty())
            throw LabError(source_ + ": the graph has no edges: '--END--' (line " +
                           std::to_string(end_line) + ") comes before any 'V W l' line");
        return build(edges);
    }

private:
    Graph build(const std::vector<Edge> &edges)
    {
        Graph graph;
        graph.source = source_;
        graph.n = static_cast<int>(names_.size());
        if (graph.n > max_vertices(alignment_))
            throw LabError(source_ + ": the graph has " + std::to_string(graph.n) +
                           " vertices; this lab handles at most " +
                           std::to_string(max_vertices(alignment_)) +
                           " (the N x Na matrix is indexed with an int)");
        graph.padded = alignment_ * ((graph.n + alignment_ - 1) / alignment_);
        graph.names = names_;
        size_t stride = static_cast<size_t>(graph.padded);
        graph.matrix.assign(stride * graph.n, INT_MAX);
        for (int v = 0; v < graph.n; ++v)
            graph.matrix[v * stride + v] = 0;
        for (const Edge &e : edges)  // in file order, so a repeated edge keeps its last length
            if (e.from != e.to)
                graph.matrix[e.from * stride + e.to] = static_cast<int>(e.weight);

        // A shortest path has at most N-1 edges; it must stay below "no path". The longest edge
        // that counts is one whose length survived (not overwritten, not a self-loop).
        const Edge *longest = nullptr;
        for (auto e = edges.rbegin(); e != edges.rend(); ++e)
            if (e->from != e->to && graph.matrix[e->from * stride + e->to] == e->weight &&
                (!longest || e->weight > longest->weight))
                longest = &*e;
        long long hops = graph.n - 1;
        if (longest && hops * longest->weight > FW_MAX_DISTANCE)
            fail(longest->line,
                 "length " + std::to_string(longest->weight) + " is too large for a graph of " +
                     std::to_string(graph.n) + " vertices: a shortest path of " +
                     std::to_string(hops) + " such edges would be " +
                     std::to_string(hops * longest->weight) + ", past " +
                     std::to_string(FW_MAX_DISTANCE) +
                     ", the largest distance the kit holds (1073741823 means 'no path'); keep "
                     "lengths at most " + std::to_string(FW_MAX_DISTANCE / hops));
        return graph;
    }

    std::string source_;
    int alignment_;
    std::unordered_map<std::string, int> number_;
    std::vector<std::string> names_;
};

}  // namespace

int max_vertices(int alignment)
{
    long long n = 46341;  // 46341^2 > INT_MAX already
    while (n * (alignment * ((n + alignment - 1) / alignment)) > INT_MAX)
        --n;
    return static_cast<int>(n);
}

Graph parse_graph_text(const std::string &text, const std::string &source, int alignment)
{
    return Reader(source, alignment).read(text);
}

Graph read_graph_file(const std::string &path, int alignment)
{
    FILE *file = std::fopen(path.c_str(), "rb");
    if (!file)
        throw LabError("cannot open graph file '" + path + "': " + std::strerror(errno));
    struct stat info;
    if (fstat(fileno(file), &info) != 0 || !S_ISREG(info.st_mode)) {
        std::fclose(file);
        throw LabError("cannot read graph file '" + path + "': not a regular file");
    }
    std::string text(static_cast<size_t>(info.st_size), '\0');
    size_t got = text.empty() ? 0 : std::fread(&text[0], 1, text.size(), file);
    std::fclose(file);
    if (got != text.size())
        throw LabError("cannot read graph file '" + path + "': read " + std::to_string(got) +
                       " of " + std::to_string(text.size()) + " bytes");
    return parse_graph_text(text, path, alignment);
}

std::string random_graph_text(int n, int degree, int max_weight, uint64_t seed)
{
    uint64_t state = seed;
    std::string text;
    text.reserve(static_cast<size_t>(n) * degree * 16 + 8);
    char line[64];
    for (int i = 0; i < n; ++i)
        for (int e = 0; e < degree; ++e) {
            uint64_t target = splitmix64_next(&state) % static_cast<uint64_t>(n);
            uint64_t weight = 1 + splitmix64_next(&state) % static_cast<uint64_t>(max_weight);
            std::snprintf(line, sizeof line, "v%d v%llu %llu\n", i, (unsigned long long)target,
                          (unsigned long long)weight);
            text += line;
        }
    return text + kEnd + "\n";
}

std::string format_table(const Graph &graph, const std::function<std::string(int, int)> &cell)
{
    std::vector<int> shown;
    for (int v = 0; v < graph.n && v < 10; ++v)
        shown.push_back(v);
    // The module walks its map<string, int>: names in byte order, "10" before "9".
    std::sort(shown.begin(), shown.end(),
              [&](int a, int b) { return graph.names[a] < graph.names[b]; });
    std::string text;
    for (int v : shown)
        text += "\t" + graph.names[v];
    text += "\n";
    for (int i : shown) {
        text += graph.names[i] + "\t";
        for (int j : shown)
            text += cell(i, j) + "\t";
        text += "\n";
    }
    return text;
}

std::string format_array(const Graph &graph, const int *matrix, int stride)
{
    return format_table(graph, [&](int i, int j) {
        int d = matrix[static_cast<size_t>(i) * stride + j];
        return d == INT_MAX ? std::string("--") : std::to_string(d);
    });
}
