// Seeded sparse matrices for the spmv lab: the two halves of the lecture's comparison
// ([cs344 n.d.], "SpMv"). Testcases (testcases/spmv/gen.py, through spmv_tool) and `spmv
// --bench` make them here, so a case is made on demand and never stored.
//
//   banded    rows x rows, nonzeros at columns i-band..i+band of row i: every row (but the
//             first and last band ones) has 2 band + 1: balanced rows, thread per row's case.
//   powerlaw  rows x rows, row lengths drawn from a Pareto law, min_per_row / u^(1/alpha)
//             capped at max_per_row (u uniform in (0, 1]): most rows short, a few very long:
//             skewed rows, thread per element's case. Columns uniform, sorted within a row.
// Values are in [0.5, 1) (a dropped nonzero changes a row by a visible amount), exact
// multiples of 2^-24, drawn from the seed like everything else.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "cli.h"
#include "csr.h"

struct MatrixSpec {
    std::string kind;  // banded | powerlaw
    int32_t rows = 0;
    int32_t band = 4;                // banded: nonzeros each side of the diagonal
    int32_t min_per_row = 2;         // powerlaw: the shortest rows
    int32_t max_per_row = 0;         // powerlaw: the cap (0: rows)
    double alpha = 1.5;              // powerlaw: the tail; smaller is more skewed
    uint64_t seed = 1;
};

// The generator options of `spmv --bench` and spmv_tool, and the spec they give.
std::set<std::string> matrix_option_names();
MatrixSpec matrix_spec_from(const Cli &cli);
CsrMatrix make_matrix(const MatrixSpec &spec);
std::string describe(const MatrixSpec &spec);  // "powerlaw rows=4096 min=2 alpha=1.5 max=4096 seed=1"
