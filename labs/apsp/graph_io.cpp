#include "graph_io.h"

#include <algorithm>
#include <cstdio>
#include <new>

#include <sys/mman.h>
#include <unistd.h>

#include "apsp.h"
#include "host_timer.h"
#include "lab_error.h"

HostMatrix::HostMatrix(int n) : n_(n)
{
    void *p = mmap(nullptr, bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        throw std::bad_alloc();
    // 2 MB pages where the kernel has them: a thousandth of the page faults when the builder
    // first touches the matrix, and of the work to unmap it at the end.
    madvise(p, bytes(), MADV_HUGEPAGE);
    data_ = static_cast<int *>(p);
}

HostMatrix::~HostMatrix() { munmap(data_, bytes()); }

std::string gib(double bytes)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
    return text;
}

size_t matrix_bytes_or_throw(long long n, const std::string &where)
{
    if (n <= 0)
        throw LabError(where + ": n = " + std::to_string(n) + " vertices; n must be at least 1");
    double need = static_cast<double>(n) * static_cast<double>(n) * sizeof(int);
    double have = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
    if (have > 0 && need > have)
        throw LabError(where + ": n = " + std::to_string(n) + " vertices needs an n x n distance matrix of " +
                       gib(need) + " (n * n * 4 bytes), more than this machine's " + gib(have) +
                       " of memory; use a smaller graph or a machine with more memory");
    return static_cast<size_t>(need);
}

void fill_distance_matrix(HostMatrix &matrix, const int32_t *triples, int64_t m)
{
    int n = matrix.n();
    int *dist = matrix.data();
    // Threads fill their own rows: the first touch of each page is where its time goes.
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) {
        int *row = dist + static_cast<size_t>(i) * n;
        std::fill(row, row + n, APSP_INF);
        row[i] = 0;
    }
    for (int64_t e = 0; e < m; ++e) {
        int src = triples[3 * e], dst = triples[3 * e + 1], weight = triples[3 * e + 2];
        int &entry = dist[static_cast<size_t>(src) * n + dst];
        if (src != dst && weight < entry)
            entry = weight;
    }
}

// Throws for the first edge with a vertex out of range or a weight outside 0..1000; the message
// is made only then (making it for every edge would cost seconds on millions of edges).
static void check_edges(const std::string &path, int n, const int32_t *triples, int64_t m)
{
    for (int64_t e = 0; e < m; ++e) {
        const int32_t *edge = triples + 3 * e;
        if (edge[0] >= 0 && edge[0] < n && edge[1] >= 0 && edge[1] < n && edge[2] >= 0 &&
            edge[2] <= APSP_MAX_WEIGHT)
            continue;
        std::string where = "input file '" + path + "': edge " + std::to_string(e) + " of " +
                            std::to_string(m) + " (bytes " + std::to_string(8 + 12 * e) + ".." +
                            std::to_string(8 + 12 * e + 11) + ", (src, dst, w) = (" +
                            std::to_string(edge[0]) + ", " + std::to_string(edge[1]) + ", " +
                            std::to_string(edge[2]) + "))";
        for (int end = 0; end < 2; ++end)
            if (edge[end] < 0 || edge[end] >= n)
                throw LabError(where + ": " + (end ? "dst" : "src") + " = " + std::to_string(edge[end]) +
                               " is not a vertex; with n = " + std::to_string(n) +
                               " vertices are 0.." + std::to_string(n - 1));
        if (edge[2] < 0)
            throw LabError(where + ": the weight " + std::to_string(edge[2]) +
                           " is negative; weights are 0.." + std::to_string(APSP_MAX_WEIGHT));
        throw LabError(where + ": the weight " + std::to_string(edge[2]) + " is over " +
                       std::to_string(APSP_MAX_WEIGHT) + ", the format's largest");
    }
}

ApspInput read_apsp_input(const std::string &path)
{
    HostTimer timer;
    ApspInput input(path);
    BinaryFile &file = input.file;
    std::string where = "input file '" + path + "'";
    long long n = file.next_i32("the header's n");
    long long m = file.next_i32("the header's m");
    matrix_bytes_or_throw(n, where);
    if (m < 0)
        throw LabError(where + ": m = " + std::to_string(m) + " edges; m must be at least 0");
    long long want = 8 + 12 * m;
    long long have = static_cast<long long>(file.size());
    if (have < want)
        throw LabError(where + " is truncated: its header says m = " + std::to_string(m) +
                       " edges, which take 8 + 12 * m = " + std::to_string(want) +
                       " bytes, but the file has " + std::to_string(have) + " bytes (" +
                       std::to_string((have - 8) / 12) + " whole edges)");
    if (have > want)
        throw LabError(where + " has " + std::to_string(have) + " bytes, but its header's m = " +
                       std::to_string(m) + " edges take 8 + 12 * m = " + std::to_string(want) +
                       ": m is inconsistent with the file size (" + std::to_string(have - want) +
                       " bytes past the last edge)");
    input.triples = file.next_i32_array(3 * static_cast<size_t>(m), "the edges");
    check_edges(path, static_cast<int>(n), input.triples, m);
    input.n = static_cast<int>(n);
    input.m = m;
    input.read_ms = timer.ms();  // the file and its checks
    return input;
}
