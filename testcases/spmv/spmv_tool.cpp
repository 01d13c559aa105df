// The spmv lab's testcase tool (testcases/spmv/gen.py builds and runs it):
//
//   spmv_tool matrix --matrix banded|powerlaw [matrix options] --out FILE [--format csr|mtx]
//       a generated matrix (labs/spmv/matrix_gen.h), in binary CSR or Matrix Market
//   spmv_tool expected INPUT --seed S --out FILE
//       the expected y of y += A·x: x and the starting y from the seed (labs/spmv/reference.h),
//       the product accumulated in float64 over the nonzeros as (row, column, value) triples in
//       file order, then rounded to float32 once. It shares no code with the programs' kernels
//       or with the harness's row-by-row check.
//   spmv_tool line INPUT
//       the hybrid's line by Bell and Garland's rule, the rows, the nonzeros and those past it
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "binfile.h"
#include "cli.h"
#include "csr.h"
#include "lab_error.h"
#include "matrix_gen.h"
#include "reference.h"

static const char *kUsage =
    "spmv_tool matrix --matrix banded|powerlaw [--rows N --band B --min-per-row A --max-per-row M --alpha F "
    "--matrix-seed S] --out FILE [--format csr|mtx]\n"
    "       spmv_tool expected INPUT --seed S --out FILE\n"
    "       spmv_tool line INPUT";

static void write_mtx(const std::string &path, const CsrMatrix &m)
{
    FILE *out = std::fopen(path.c_str(), "w");
    if (!out)
        throw LabError("cannot write '" + path + "'");
    std::fprintf(out, "%%%%MatrixMarket matrix coordinate real general\n%% made by spmv_tool\n%d %d %d\n", m.rows, m.cols,
                 m.nnz());
    for (int32_t i = 0; i < m.rows; ++i)
        for (int32_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k)
            std::fprintf(out, "%d %d %.9g\n", i + 1, m.col_idx[k] + 1, m.values[k]);
    if (std::fclose(out) != 0)
        throw LabError("cannot finish writing '" + path + "'");
}

static int tool_main(int argc, char **argv)
{
    if (argc < 2)
        throw LabError(std::string("say what to make\nusage: ") + kUsage);
    const std::string command = argv[1];
    Cli cli(argc - 1, argv + 1, {}, kUsage);
    if (command == "matrix") {
        std::set<std::string> known = matrix_option_names();
        known.insert({"out", "format"});
        cli.allow_only(known);
        CsrMatrix m = make_matrix(matrix_spec_from(cli));
        std::string format = cli.str("format", "csr"), out = cli.str("out", "");
        if (out.empty())
            throw LabError("give --out FILE");
        if (format == "mtx")
            write_mtx(out, m);
        else if (format == "csr")
            write_csr(out, m);
        else
            throw LabError("--format " + format + ": csr or mtx");
        return 0;
    }
    if (cli.positional().size() != 1)
        throw LabError(std::string("give one input file\nusage: ") + kUsage);
    CsrMatrix A = read_matrix(cli.positional()[0]);
    if (command == "line") {
        cli.allow_only({});
        int32_t line = bell_garland_line(A);
        std::printf("line %d rows %d nnz %d past %lld\n", line, A.rows, A.nnz(),
                    static_cast<long long>(nonzeros_past(A, line)));
        return 0;
    }
    if (command != "expected")
        throw LabError("'" + command + "' is not a command\nusage: " + kUsage);
    cli.allow_only({"seed", "out"});
    std::vector<float> x, y0;
    make_vectors(A.rows, A.cols, static_cast<uint64_t>(cli.integer("seed", 1, 0, 1ll << 62)), x, y0);
    // The triples, then a float64 accumulation over them: no row loop of the harness's.
    std::vector<int32_t> row_of(A.nnz());
    for (int32_t i = 0; i < A.rows; ++i)
        for (int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
            row_of[k] = i;
    std::vector<double> y(y0.begin(), y0.end());
    for (int32_t k = 0; k < A.nnz(); ++k)
        y[row_of[k]] += static_cast<double>(A.values[k]) * static_cast<double>(x[A.col_idx[k]]);
    std::vector<float> rounded(y.begin(), y.end());
    write_binary_file(cli.str("out", "y.out"), rounded.data(), rounded.size() * sizeof(float));
    return 0;
}

int main(int argc, char **argv) { return run_lab_main("spmv_tool", tool_main, argc, argv); }
