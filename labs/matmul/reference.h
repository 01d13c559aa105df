// The float64 reference the harness checks C = A·B against, and the tolerance it allows.
//
// The bound. Any float32 computation of c_ij = sum_k a_ik b_kj that adds the n products in any
// order, with or without fused multiply-adds, satisfies
//     |c_ij - exact_ij| <= gamma_n * sum_k |a_ik| |b_kj|,   gamma_n = n u / (1 - n u),
// with u = 2^-24 the unit roundoff of float32 (Higham, Accuracy and Stability of Numerical
// Algorithms, 2nd ed., section 3.1): each product and each partial sum is rounded once, and
// no partial sum sits under more than n roundings. The harness allows (n + 2) u: gamma_n for
// n u < 1/64 plus the rounding of the reference itself to float32 (the grader compares with
// a float32 file), and so rejects any error a float32 sum cannot make. The bound grows with n
// because the error does: a longer sum suffers more roundings. The inputs are in [0, 1), so
// sum_k |a_ik||b_kj| is c_ij itself and the bound is a relative tolerance, rtol = (n + 2) u.
//
// Small matrices are checked everywhere. A float64 product costs n^3 multiply-adds on the
// CPU, so past n = 1024 the harness checks whole rows and whole columns of C instead: the
// first and last of each, plus rows and columns drawn from the seed, up to about 2^30
// multiply-adds. It says which ones it checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

// The tolerance factor: |error| <= matmul_rtol(n) * sum_k |a_ik||b_kj|.
double matmul_rtol(int n);

// The same for a product whose operands were rounded to TF32 first (matmul_tensor_1xtf32,
// cuBLAS's TF32 mode): each operand off by up to 2^-11 of itself (TF32 keeps 10 of FP32's 23
// mantissa bits), so each product by 2^-10 + 2^-22; and the tensor cores' FP32 sums truncate,
// so each addition may lose a whole unit in the last place, 2u: 2^-10 + 2^-22 + 2 (n + 2) u.
double tf32_rtol(int n);

// The float64 value of chosen entries of A·B, with the scale sum_k |a_ik||b_kj| of each.
struct Reference {
    int n = 0;
    bool every_entry = false;  // else: whole rows `rows` and whole columns `cols`
    std::vector<int> rows, cols;
    struct Entry {
        int row, col;
        double value, scale;
    };
    std::vector<Entry> entries;

    std::string describe() const;  // "all 10000 entries" or "rows 0, 17, ... and columns ..."
};

// A and B are n×n row-major; `seed` chooses the sampled rows and columns for large n.
Reference make_reference(const float *A, const float *B, int n, uint64_t seed);

struct CheckResult {
    size_t checked = 0, wrong = 0;
    size_t wrong_nan = 0;       // wrong entries that are NaN: never written (C starts as NaN)
    size_t wrong_interior = 0;  // wrong entries inside the first (n/nty)*nty rows and (n/ntx)*ntx columns
    int first_row = -1, first_col = -1;
    double first_got = 0, first_want = 0, first_allowed = 0;
    double worst = 0;  // largest |error| / allowed over the checked entries: <= 1 when right
    // |error| / |exact| over the checked entries whose exact value is not 0 (the bench's
    // error table): the largest, and the mean.
    double max_relative = 0, mean_relative = 0;
};

// Compares C with the reference. block_x/block_y: the launch's block size (for the hint that
// the grid left the edge uncovered), or 0 when it does not apply. rtol: the tolerance factor,
// matmul_rtol(n) unless the kernel computes in TF32.
CheckResult check_product(const Reference &reference, const float *C, int block_x, int block_y, double rtol);
inline CheckResult check_product(const Reference &reference, const float *C, int block_x, int block_y)
{
    return check_product(reference, C, block_x, block_y, matmul_rtol(reference.n));
}
