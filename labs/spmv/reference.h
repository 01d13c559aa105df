// What the spmv harness checks y against, and the hybrid's line by Bell and Garland's rule.
//
// The vectors. x (cols entries) and the starting y (rows entries) come from one seeded stream:
// x is its first cols values, y the next rows, all in [0, 1) (labs/common/seeded.h).
//
// The bound. Row i of y += A·x adds len_i products to y_i. Any float32 evaluation of that sum,
// in any order (one thread's loop, a segmented scan's tree, a hybrid's two parts), with or
// without fused multiply-adds, is within gamma_{len_i + 1} * scale_i of the exact value, where
// scale_i = |y_i| + sum_j |a_ij x_j| (Higham, Accuracy and Stability of Numerical Algorithms,
// 2nd ed., section 3.1), and the grader compares with the exact value rounded to float32: one
// more u. The harness allows (len_i + 2) u * scale_i, u = 2^-24, row by row: the conditioning
// of each row sets its own tolerance. A dropped nonzero, or a partial sum carried across a row's
// end, moves y_i by a whole product, far past it (tests/spmv/test_spmv_programs.py shows both).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "csr.h"

// x, then the starting y, from `seed`.
void make_vectors(int32_t rows, int32_t cols, uint64_t seed, std::vector<float> &x, std::vector<float> &y);

// The tolerance factor of a row of `length` nonzeros: |error| <= spmv_rtol(length) * scale.
double spmv_rtol(int32_t length);

struct SpmvCheck {
    int32_t wrong = 0;
    int32_t wrong_nan = 0;        // wrong entries that are NaN (a never-written or poisoned y)
    int32_t first_row = -1;
    double first_got = 0, first_want = 0, first_allowed = 0;
    double worst = 0;             // the largest |error| / allowed: <= 1 when right
};

// Compares y (after one y += A·x from y0) with the float64 product, row by row.
SpmvCheck check_result(const CsrMatrix &A, const std::vector<float> &x, const std::vector<float> &y0,
                       const float *y);

// Bell and Garland's line for the hybrid: the largest K such that at least a third of the rows
// have K or more nonzeros ([Bell & Garland 2009]; [cs344 n.d.], "Hybrid Approach"). The
// per-row part takes each row's first K nonzeros; the per-element part the rest.
int32_t bell_garland_line(const CsrMatrix &A);

// The nonzeros past the line: sum over rows of max(0, length - line).
int64_t nonzeros_past(const CsrMatrix &A, int32_t line);
