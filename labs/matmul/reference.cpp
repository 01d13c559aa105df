#include "reference.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "seeded.h"

static const double kUnitRoundoff = 1.0 / 16777216.0;  // 2^-24
static const double kFullCheckWork = 1073741824.0;     // 2^30 multiply-adds

double matmul_rtol(int n) { return (n + 2) * kUnitRoundoff; }

double tf32_rtol(int n)
{
    const double tf32_roundoff = 1.0 / 2048.0;  // 2^-11
    return 2 * tf32_roundoff + tf32_roundoff * tf32_roundoff + 2 * matmul_rtol(n);
}

std::string Reference::describe() const
{
    if (every_entry)
        return "all " + std::to_string(entries.size()) + " entries";
    auto list = [](const std::vector<int> &v) {
        std::string text;
        for (size_t i = 0; i < v.size(); ++i)
            text += (i ? ", " : "") + std::to_string(v[i]);
        return text;
    };
    return std::to_string(entries.size()) + " entries: rows " + list(rows) + " and columns " + list(cols);
}

// Whole rows or columns to check: the first and last, and others drawn from the seed, so
// that all of them together cost about kFullCheckWork multiply-adds.
static std::vector<int> sample_lines(int n, uint64_t seed)
{
    double per_line = static_cast<double>(n) * n;
    int count = static_cast<int>(std::min(16.0, std::max(2.0, kFullCheckWork / 2 / per_line)));
    std::set<int> lines = {0, n - 1};
    uint64_t state = seed;
    while (static_cast<int>(lines.size()) < count)
        lines.insert(static_cast<int>(splitmix64_next(&state) % static_cast<uint64_t>(n)));
    return std::vector<int>(lines.begin(), lines.end());
}

// Row `row` of A·B, and of |A|·|B| unless `nonnegative` (then it is the same row), accumulated
// row by row of B: the loop the compiler vectorizes.
static void reference_row(const float *A, const float *B, int n, int row, bool nonnegative,
                          std::vector<double> &value, std::vector<double> &scale)
{
    std::fill(value.begin(), value.end(), 0.0);
    std::fill(scale.begin(), scale.end(), 0.0);
    for (int k = 0; k < n; ++k) {
        double a = A[static_cast<size_t>(row) * n + k];
        const float *b = B + static_cast<size_t>(k) * n;
        for (int j = 0; j < n; ++j)
            value[j] += a * b[j];
        if (!nonnegative)
            for (int j = 0; j < n; ++j)
                scale[j] += std::fabs(a) * std::fabs(static_cast<double>(b[j]));
    }
    if (nonnegative)
        scale = value;
}

Reference make_reference(const float *A, const float *B, int n, uint64_t seed)
{
    Reference ref;
    ref.n = n;
    double work = static_cast<double>(n) * n * n;
    ref.every_entry = work <= kFullCheckWork;
    size_t count = static_cast<size_t>(n) * n;
    bool nonnegative = std::all_of(A, A + count, [](float x) { return x >= 0; }) &&
                       std::all_of(B, B + count, [](float x) { return x >= 0; });
    std::vector<double> value(n), scale(n);
    if (ref.every_entry) {
        ref.entries.reserve(static_cast<size_t>(n) * n);
        for (int i = 0; i < n; ++i) {
            reference_row(A, B, n, i, nonnegative, value, scale);
            for (int j = 0; j < n; ++j)
                ref.entries.push_back({i, j, value[j], scale[j]});
        }
        return ref;
    }
    ref.rows = sample_lines(n, seed ^ 0x726f7773ull);
    ref.cols = sample_lines(n, seed ^ 0x636f6c73ull);
    for (int i : ref.rows) {
        reference_row(A, B, n, i, nonnegative, value, scale);
        for (int j = 0; j < n; ++j)
            ref.entries.push_back({i, j, value[j], scale[j]});
    }
    std::set<int> done_rows(ref.rows.begin(), ref.rows.end());
    std::vector<double> column(n);
    for (int j : ref.cols) {
        for (int k = 0; k < n; ++k)
            column[k] = B[static_cast<size_t>(k) * n + j];
        for (int i = 0; i < n; ++i) {
            if (done_rows.count(i))
                continue;  // already checked with its row
            const float *a = A + static_cast<size_t>(i) * n;
            double sum = 0, abs_sum = 0;
            for (int k = 0; k < n; ++k) {
                sum += a[k] * column[k];
                abs_sum += std::fabs(static_cast<double>(a[k])) * std::fabs(column[k]);
            }
            ref.entries.push_back({i, j, sum, abs_sum});
        }
    }
    return ref;
}

CheckResult check_product(const Reference &ref, const float *C, int block_x, int block_y, double rtol)
{
    int n = ref.n;
    double relative_sum = 0;
    size_t relative_count = 0;
    int edge_row = block_y > 0 ? n / block_y * block_y : n;
    int edge_col = block_x > 0 ? n / block_x * block_x : n;
    CheckResult result;
    for (const Reference::Entry &e : ref.entries) {
        double got = C[static_cast<size_t>(e.row) * n + e.col];
        double allowed = rtol * e.scale;
        double error = std::fabs(got - e.value);
        ++result.checked;
        if (e.value != 0) {
            double relative = error / std::fabs(e.value);  // NaN stays NaN: max keeps it visible
            result.max_relative = std::isnan(relative) ? relative : std::max(result.max_relative, relative);
            relative_sum += relative;
            ++relative_count;
        }
        if (error <= allowed) {
            if (allowed > 0)
                result.worst = std::max(result.worst, error / allowed);
            continue;
        }
        // Wrong, NaN included (a comparison with NaN is false).
        result.worst = INFINITY;
        if (result.wrong++ == 0) {
            result.first_row = e.row;
            result.first_col = e.col;
            result.first_got = got;
            result.first_want = e.value;
            result.first_allowed = allowed;
        }
        if (std::isnan(got))
            ++result.wrong_nan;
        if (e.row < edge_row && e.col < edge_col)
            ++result.wrong_interior;
    }
    result.mean_relative = relative_count ? relative_sum / relative_count : 0;
    return result;
}
