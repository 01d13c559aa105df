// cuSPARSE's CSR SpMV (cusparseSpMV, FP32, y = 1·A·x + 1·y): the library yardstick `spmv --bench`
// measures the reference's kernels against. Only the bench uses it, and students may not (lab.toml
// [symbols]); under the CPU emulator (EMU=1) there is no cuSPARSE, and creating one throws a
// LabError that says so.
#pragma once

#include <string>

class CusparseSpmv {
public:
    // The matrix's device arrays (rows + 1 offsets, nnz columns and values) and the vectors' sizes.
    CusparseSpmv(int rows, int cols, int nnz, const int *row_ptr, const int *col_idx, const float *values);
    ~CusparseSpmv();
    CusparseSpmv(const CusparseSpmv &) = delete;
    CusparseSpmv &operator=(const CusparseSpmv &) = delete;

    // y += A·x for device vectors; returns without waiting, like the kernels.
    void run(const float *x, float *y);
    std::string describe() const;

private:
    void *handle_ = nullptr, *matrix_ = nullptr, *buffer_ = nullptr;
    int rows_ = 0, cols_ = 0;
};
