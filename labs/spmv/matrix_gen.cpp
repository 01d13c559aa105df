#include "matrix_gen.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "lab_error.h"
#include "seeded.h"

std::set<std::string> matrix_option_names()
{
    return {"matrix", "rows", "band", "min-per-row", "max-per-row", "alpha", "matrix-seed"};
}

static double parse_alpha(const std::string &text)
{
    char *end = nullptr;
    double alpha = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(alpha >= 0.5 && alpha <= 8.0))
        throw LabError("--alpha " + text + ": give the power law's exponent, a number from 0.5 (very skewed) to 8");
    return alpha;
}

MatrixSpec matrix_spec_from(const Cli &cli)
{
    MatrixSpec spec;
    spec.kind = cli.str("matrix", "");
    if (spec.kind != "banded" && spec.kind != "powerlaw")
        throw LabError("--matrix '" + spec.kind + "': the generated matrices are banded (balanced rows) and powerlaw "
                       "(skewed rows)");
    spec.rows = static_cast<int32_t>(cli.integer("rows", 4096, 1, 1 << 26));
    spec.band = static_cast<int32_t>(cli.integer("band", 4, 0, 1 << 16));
    spec.min_per_row = static_cast<int32_t>(cli.integer("min-per-row", 2, 0, 1 << 16));
    spec.max_per_row = static_cast<int32_t>(cli.integer("max-per-row", 0, 0, 1 << 26));
    spec.alpha = parse_alpha(cli.str("alpha", "1.5"));
    spec.seed = static_cast<uint64_t>(cli.integer("matrix-seed", 1, 0, 1ll << 62));
    long long max_nnz = spec.kind == "banded" ? (2ll * spec.band + 1) * spec.rows
                                              : static_cast<long long>(spec.rows) *
                                                    (spec.max_per_row ? spec.max_per_row : spec.rows);
    if (spec.kind == "banded" && max_nnz > kMaxNonzeros)
        throw LabError("--rows " + std::to_string(spec.rows) + " --band " + std::to_string(spec.band) + " makes " +
                       std::to_string(max_nnz) + " nonzeros, past the lab's " + std::to_string(kMaxNonzeros));
    return spec;
}

static float seeded_value(uint64_t *state)  // in [0.5, 1), a multiple of 2^-24
{
    return 0.5f + static_cast<float>(splitmix64_next(state) >> 41) * (1.0f / 16777216.0f);
}

static CsrMatrix make_banded(const MatrixSpec &spec)
{
    CsrMatrix m;
    m.rows = m.cols = spec.rows;
    uint64_t state = spec.seed;
    m.row_ptr.assign(1, 0);
    for (int32_t i = 0; i < spec.rows; ++i) {
        int32_t first = std::max(0, i - spec.band), last = std::min(spec.rows - 1, i + spec.band);
        for (int32_t j = first; j <= last; ++j) {
            m.col_idx.push_back(j);
            m.values.push_back(seeded_value(&state));
        }
        m.row_ptr.push_back(static_cast<int32_t>(m.col_idx.size()));
    }
    return m;
}

static CsrMatrix make_powerlaw(const MatrixSpec &spec)
{
    CsrMatrix m;
    m.rows = m.cols = spec.rows;
    uint64_t state = spec.seed;
    int32_t cap = spec.max_per_row ? std::min(spec.max_per_row, spec.rows) : spec.rows;
    std::vector<int32_t> length(spec.rows);
    long long nnz = 0;
    for (int32_t i = 0; i < spec.rows; ++i) {
        double u = (static_cast<double>(splitmix64_next(&state) >> 11) + 1.0) / 9007199254740992.0;  // (0, 1]
        double drawn = std::floor(spec.min_per_row / std::pow(u, 1.0 / spec.alpha));
        length[i] = static_cast<int32_t>(std::min<double>(cap, drawn));
        nnz += length[i];
        if (nnz > kMaxNonzeros)
            throw LabError(describe(spec) + " makes more than " + std::to_string(kMaxNonzeros) +
                           " nonzeros: fewer rows, a larger --alpha or a --max-per-row");
    }
    m.row_ptr.assign(1, 0);
    m.col_idx.reserve(nnz);
    m.values.reserve(nnz);
    std::vector<int32_t> columns;
    for (int32_t i = 0; i < spec.rows; ++i) {
        columns.clear();
        for (int32_t k = 0; k < length[i]; ++k)
            columns.push_back(static_cast<int32_t>(splitmix64_next(&state) % static_cast<uint64_t>(spec.rows)));
        std::sort(columns.begin(), columns.end());
        for (int32_t j : columns) {
            m.col_idx.push_back(j);
            m.values.push_back(seeded_value(&state));
        }
        m.row_ptr.push_back(static_cast<int32_t>(m.col_idx.size()));
    }
    return m;
}

CsrMatrix make_matrix(const MatrixSpec &spec)
{
    return spec.kind == "banded" ? make_banded(spec) : make_powerlaw(spec);
}

std::string describe(const MatrixSpec &spec)
{
    std::string text = spec.kind + " rows=" + std::to_string(spec.rows);
    if (spec.kind == "banded") {
        text += " band=" + std::to_string(spec.band);
    } else {
        char alpha[32];
        std::snprintf(alpha, sizeof alpha, "%g", spec.alpha);
        text += " min=" + std::to_string(spec.min_per_row) + " alpha=" + alpha +
                " max=" + std::to_string(spec.max_per_row ? spec.max_per_row : spec.rows);
    }
    return text + " seed=" + std::to_string(spec.seed);
}
