// The APSP files (docs/design.md, the NTHU HW3 format), read and written by the harness only.
//   input:  int32 n, int32 m, then m triples int32 (src, dst, w), 0 <= src, dst < n, 0 <= w <= 1000
//   output: n * n int32, row-major; APSP_INF (2^30 - 1) where there is no path
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "binfile.h"

// An n x n int matrix in host memory, allocated without touching it (the builder fills it).
class HostMatrix {
public:
    explicit HostMatrix(int n);
    ~HostMatrix();
    HostMatrix(const HostMatrix &) = delete;
    HostMatrix &operator=(const HostMatrix &) = delete;

    int n() const { return n_; }
    int *data() { return data_; }
    size_t bytes() const { return static_cast<size_t>(n_) * n_ * sizeof(int); }

private:
    int n_;
    int *data_;
};

// "3.4 GiB": a size in messages.
std::string gib(double bytes);

// Bytes an n x n int matrix needs; throws LabError when n is not positive or the matrix would
// not fit in this machine's memory (the message says how much it needs).
size_t matrix_bytes_or_throw(long long n, const std::string &where);

// The initial distance matrix: 0 on the diagonal, the smallest weight of each edge i -> j
// (self-loops never lower the 0), APSP_INF elsewhere. Threads fill their own rows.
void fill_distance_matrix(HostMatrix &matrix, const int32_t *triples, int64_t m);

// A checked input file: its n, its m edges (pointing into the file's bytes) and how long
// reading and checking took.
struct ApspInput {
    explicit ApspInput(const std::string &path) : file(path) {}
    BinaryFile file;
    int n = 0;
    int64_t m = 0;
    const int32_t *triples = nullptr;  // m (src, dst, w), inside file
    double read_ms = 0;
};

// Reads and checks an input file. Throws LabError naming the file and what is wrong: truncated,
// n <= 0 or too large, m inconsistent with the file size, an edge's vertex out of range or its
// weight negative or over 1000.
ApspInput read_apsp_input(const std::string &path);
