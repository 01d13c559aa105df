// The spmv lab's matrix on the host: compressed sparse row (CSR), read from either of the lab's
// two formats, and the one binary form the kit writes.
//
// Binary CSR (.csr), little-endian:
//   int32 rows, int32 nnz, int32 cols        (rows and nonzeros first, as the edge list's n, m)
//   int32 row_ptr[rows + 1]                   row_ptr[0] = 0, non-decreasing, row_ptr[rows] = nnz
//   int32 col_idx[nnz]                        each in 0..cols-1; within a row in any order
//   float32 values[nnz]
// Matrix Market (.mtx, as the SuiteSparse collection ships it): "%%MatrixMarket matrix
// coordinate real|integer|pattern general|symmetric", comment lines, "rows cols entries", then
// one "i j [value]" a line, 1-based. A symmetric file lists the lower triangle: each entry off
// the diagonal stands for itself and its mirror. A pattern file's values are all 1.
// A file is read as Matrix Market when it opens with "%%MatrixMarket", else as binary CSR.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

// The programs index rows, columns and nonzeros with int, one thread each.
constexpr int32_t kMaxRows = (1 << 30) - 1;
constexpr int32_t kMaxNonzeros = (1 << 30) - 1;

struct CsrMatrix {
    int32_t rows = 0, cols = 0;
    std::vector<int32_t> row_ptr{0};  // rows + 1 offsets into col_idx and values
    std::vector<int32_t> col_idx;
    std::vector<float> values;

    int32_t nnz() const { return static_cast<int32_t>(col_idx.size()); }
    int32_t row_length(int32_t row) const { return row_ptr[row + 1] - row_ptr[row]; }
};

// Reads either format (see above); throws LabError naming the file, the line or field, and
// what is wrong.
CsrMatrix read_matrix(const std::string &path);

// Writes `matrix` in the binary CSR form; throws LabError on failure.
void write_csr(const std::string &path, const CsrMatrix &matrix);

// Checks the invariants above (sizes, offsets, column range); throws LabError naming `where`.
void check_csr(const CsrMatrix &matrix, const std::string &where);

// Builds CSR from coordinate triples (0-based), rows in order, each row's entries in the order
// given; repeated (i, j) entries stay separate nonzeros (their products add up the same).
CsrMatrix csr_from_triples(int32_t rows, int32_t cols, const std::vector<int32_t> &row_of,
                           const std::vector<int32_t> &col_of, const std::vector<float> &value_of);
