#include "reference.h"

#include <algorithm>
#include <cmath>

#include "seeded.h"

static const double kUnitRoundoff = 1.0 / 16777216.0;  // 2^-24

void make_vectors(int32_t rows, int32_t cols, uint64_t seed, std::vector<float> &x, std::vector<float> &y)
{
    std::vector<float> both(static_cast<size_t>(cols) + rows);
    seeded_uniform_floats(both.data(), both.size(), seed);
    x.assign(both.begin(), both.begin() + cols);
    y.assign(both.begin() + cols, both.end());
}

double spmv_rtol(int32_t length) { return (length + 2.0) * kUnitRoundoff; }

SpmvCheck check_result(const CsrMatrix &A, const std::vector<float> &x, const std::vector<float> &y0, const float *y)
{
    SpmvCheck check;
    for (int32_t i = 0; i < A.rows; ++i) {
        double want = y0[i], scale = std::fabs(static_cast<double>(y0[i]));
        for (int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
            double product = static_cast<double>(A.values[k]) * x[A.col_idx[k]];
            want += product;
            scale += std::fabs(product);
        }
        double allowed = spmv_rtol(A.row_length(i)) * scale;
        double error = std::fabs(y[i] - want);
        bool right = !std::isnan(y[i]) && error <= allowed;
        if (allowed > 0)
            check.worst = std::max(check.worst, std::isnan(y[i]) ? INFINITY : error / allowed);
        if (right)
            continue;
        if (check.wrong++ == 0) {
            check.first_row = i;
            check.first_got = y[i];
            check.first_want = want;
            check.first_allowed = allowed;
        }
        check.wrong_nan += std::isnan(y[i]) ? 1 : 0;
    }
    return check;
}

int32_t bell_garland_line(const CsrMatrix &A)
{
    int32_t longest = 0;
    for (int32_t i = 0; i < A.rows; ++i)
        longest = std::max(longest, A.row_length(i));
    std::vector<int64_t> rows_of_length(static_cast<size_t>(longest) + 1, 0);
    for (int32_t i = 0; i < A.rows; ++i)
        ++rows_of_length[A.row_length(i)];
    // at_least = the rows with K or more nonzeros; K grows while a third of the rows have K + 1.
    int64_t at_least = A.rows;
    int32_t line = 0;
    while (line < longest) {
        int64_t next = at_least - rows_of_length[line];
        if (3 * next < A.rows)
            break;
        at_least = next;
        ++line;
    }
    return line;
}

int64_t nonzeros_past(const CsrMatrix &A, int32_t line)
{
    int64_t past = 0;
    for (int32_t i = 0; i < A.rows; ++i)
        past += std::max(0, A.row_length(i) - line);
    return past;
}
