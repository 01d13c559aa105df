// Lab 7 harness: reads a sparse matrix (Matrix Market or binary CSR; for --bench, generates one),
// makes x and the starting y from a seed, runs one version of the student's y += A·x (spmv.h),
// times it, checks every entry of y against a float64 product and writes y. The student never
// edits this.
//
//   spmv INPUT --kernel row|element|hybrid [--seed S] [--reps R] [--out FILE]
//        one checked run: spmv_prepare, a warm-up spmv_run, then R timed runs (the median is
//        reported), each from the same starting y; y (float32, rows entries) to FILE.
//   spmv --bench [--rows N] [--matrix banded|powerlaw [matrix options]] [--reps R]
//        the three versions and cuSPARSE's CSR SpMV on a balanced (banded) and a skewed
//        (powerlaw) matrix of N rows (2^22), or on the one --matrix describes, in GB/s (the
//        matrix, x and y moved once) beside a device-to-device copy: one table row each.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "binfile.h"
#include "cli.h"
#include "csr.h"
#include "cusparse_spmv.h"
#include "device.h"
#include "device_memory.h"
#include "host_timer.h"
#include "lab_error.h"
#include "matrix_gen.h"
#include "profile_output.h"
#include "reference.h"
#include "result.h"
#include "timed_runs.h"
#include "spmv.h"

static const char *kUsage =
    "spmv INPUT --kernel row|element|hybrid [--seed S] [--reps R] [--out FILE]\n"
    "       spmv --bench [--rows N] [--matrix banded|powerlaw --band B --min-per-row A --max-per-row M --alpha F "
    "--matrix-seed S] [--reps R]";

struct KernelName {
    const char *name;
    SpmvKernel kernel;
};
static const KernelName kKernels[] = {{"row", SPMV_ROW}, {"element", SPMV_ELEMENT}, {"hybrid", SPMV_HYBRID}};

static SpmvKernel kernel_from(const std::string &name)
{
    for (const KernelName &k : kKernels)
        if (name == k.name)
            return k.kernel;
    throw LabError("--kernel '" + name + "' names no version; the versions are row, element and hybrid");
}

static const char *kernel_name(SpmvKernel kernel) { return kKernels[kernel].name; }

// The matrix, x, the starting y and y on the device; y is reset from y0 before every run.
struct DeviceProblem {
    DeviceMemory memory;  // frees every array below
    int *row_ptr, *col_idx;
    float *values, *x, *y0, *y;
    Csr device{}, host{};

    // An empty matrix still gets arrays (DeviceMemory allocates at least one element).
    DeviceProblem(const CsrMatrix &A, const std::vector<float> &x_host, const std::vector<float> &y0_host)
        : row_ptr(memory.copy_of<int>(A.row_ptr.data(), A.row_ptr.size())),
          col_idx(memory.copy_of<int>(A.col_idx.data(), A.col_idx.size())),
          values(memory.copy_of<float>(A.values.data(), A.values.size())),
          x(memory.copy_of<float>(x_host.data(), x_host.size())),
          y0(memory.copy_of<float>(y0_host.data(), y0_host.size())), y(memory.alloc<float>(y0_host.size()))
    {
        device = Csr{A.rows, A.cols, A.nnz(), row_ptr, col_idx, values};
        host = Csr{A.rows, A.cols, A.nnz(), A.row_ptr.data(), A.col_idx.data(), A.values.data()};
        rows_ = A.rows;
    }

    void reset_y() { CUDA_CHECK(cudaMemcpy(y, y0, rows_ * sizeof(float), cudaMemcpyDeviceToDevice)); }
    std::vector<float> copy_y() const
    {
        std::vector<float> host_y(rows_);
        CUDA_CHECK(cudaMemcpy(host_y.data(), y, rows_ * sizeof(float), cudaMemcpyDeviceToHost));
        lab_result_ready(host_y.data(), host_y.size() * sizeof(float), "y");
        return host_y;
    }

private:
    size_t rows_ = 0;
};

// Bytes a y += A·x must move at least: the matrix once, x once, y read and written.
static double min_bytes(const CsrMatrix &A)
{
    return 4.0 * (A.rows + 1) + 8.0 * A.nnz() + 4.0 * A.cols + 8.0 * A.rows;
}

static double gbps(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e6) : 0; }

// Prints the check's verdict; returns true when y is right.
static bool report_check(const SpmvCheck &check, const CsrMatrix &A, const char *what)
{
    if (check.wrong == 0) {
        std::printf("CORRECT (%s): all %d entries of y within (row length + 2) u of the float64 product, "
                    "relative to the row's sum of |a_ij x_j| and |y_i|; worst error %.0f%% of that bound\n",
                    what, A.rows, 100 * check.worst);
        return true;
    }
    char got[32];
    std::snprintf(got, sizeof got, std::isnan(check.first_got) ? "NaN" : "%.9g", check.first_got);
    int row = check.first_row;
    // One line: the grader quotes the program's WRONG line as its reason.
    const char *hint = check.wrong_nan == check.wrong
                           ? "; every wrong entry is NaN: a product or a sum read memory no one wrote"
                       : std::fabs(check.first_got - check.first_want) > 1000 * check.first_allowed
                           ? "; far past rounding: a nonzero dropped or counted twice, or a sum carried across the end of a row"
                           : "";
    std::printf("WRONG (%s): y[%d] is %s, expected %.9g (allowed error %.3g: row %d has %d nonzeros); %d of %d entries "
                "off by more than (row length + 2) u times |y_i| + sum_j |a_ij x_j|%s\n",
                what, row, got, check.first_want, check.first_allowed, row, A.row_length(row), check.wrong, A.rows, hint);
    return false;
}

// ---- one checked run ------------------------------------------------------------------------

static int checked_run(const Cli &cli, LabResult &result)
{
    if (cli.positional().size() != 1 || !cli.has("kernel"))
        throw LabError(std::string("give one input file and --kernel row|element|hybrid\nusage: ") + cli.usage());
    for (const std::string &option : matrix_option_names())
        if (cli.has(option))
            throw LabError("--" + option + " describes a generated matrix: it goes with --bench\nusage: " + cli.usage());
    SpmvKernel kernel = kernel_from(cli.str("kernel", ""));
    uint64_t seed = static_cast<uint64_t>(cli.integer("seed", 1, 0, LLONG_MAX));
    const std::string input = cli.positional()[0], out = cli.str("out", "");
    CsrMatrix A = read_matrix(input);
    cudaDeviceProp prop = require_gpu("spmv");
    bool emulated = is_emulated(prop);
    int reps = static_cast<int>(cli.integer("reps", emulated ? 1 : 5, 1, 100000));
    std::printf("spmv %s on %s: %d x %d, nnz = %d; device: %s\n", kernel_name(kernel), input.c_str(), A.rows, A.cols,
                A.nnz(), prop.name);
    result.note("device", prop.name);
    result.note("kernel", kernel_name(kernel));

    std::vector<float> x, y0;
    make_vectors(A.rows, A.cols, seed, x, y0);
    HostTimer total;
    CUDA_CHECK(cudaFree(0));  // the CUDA context now: spmv_prepare's time is its own
    DeviceProblem d(A, x, y0);
    HostTimer clock;
    SpmvPlan *plan = spmv_prepare(kernel, &d.device, &d.host);
    CUDA_CHECK(cudaDeviceSynchronize());
    double prepare_ms = clock.ms();
    int line = spmv_line(plan);
    Timing t = time_runs([&] { spmv_run(plan, d.x, d.y); }, reps, [&] { d.reset_y(); });
    std::vector<float> y = d.copy_y();
    spmv_release(plan);
    double total_ms = total.ms();

    double bytes = min_bytes(A);
    std::printf("y += A x: %.4f ms (median of %d after a warm-up), %.1f GB/s (the matrix, x and y moved once: "
                "%.0f bytes); prepare %.3f ms; whole run %.3f ms\n",
                t.ms, reps, gbps(bytes, t.ms), bytes, prepare_ms, total_ms);
    result.set("kernel_ms", t.ms);
    result.set("kernel_host_ms", t.host_ms);
    result.set("prepare_ms", prepare_ms);
    result.set("total_ms", total_ms);
    result.set("gbps", gbps(bytes, t.ms));
    if (!out.empty())
        write_binary_file(out, y.data(), y.size() * sizeof(float));

    int32_t rule = kernel == SPMV_HYBRID ? bell_garland_line(A) : -1;
    if (kernel == SPMV_HYBRID) {
        std::printf("hybrid line: K = %d (the rule: K = %d; %lld of %d nonzeros past it)\n", line, rule,
                    static_cast<long long>(nonzeros_past(A, rule)), A.nnz());
        result.set("hybrid_line", line);
    }
    SpmvCheck check = check_result(A, x, y0, y.data());
    bool right = report_check(check, A, kernel_name(kernel));
    result.set("wrong_entries", check.wrong);
    // Last, and short: the grader quotes the end of what the program printed.
    if (kernel == SPMV_HYBRID && line != rule) {
        std::printf("WRONG (hybrid): your line is at K = %d, the rule's at K = %d: the largest K with a third of "
                    "the rows (%d of %d) of K or more nonzeros\n", line, rule, (A.rows + 2) / 3, A.rows);
        right = false;
    }
    return right ? LAB_EXIT_OK : LAB_EXIT_WRONG;
}

// ---- the bench: each version against a device copy and cuSPARSE ------------------------------

// One matrix: the three versions and cuSPARSE, one table row each; figures as <kind>_<version>_*.
static bool bench_matrix(const MatrixSpec &spec, bool emulated, int reps, double copy, LabResult &result)
{
    HostTimer clock;
    CsrMatrix A = make_matrix(spec);
    int32_t longest = 0;
    for (int32_t i = 0; i < A.rows; ++i)
        longest = std::max(longest, A.row_length(i));
    std::printf("bench on %s: %d x %d, nnz = %d (%.1f a row on average, the longest %d; the hybrid's line K = %d; "
                "made in %.0f ms)\n",
                describe(spec).c_str(), A.rows, A.cols, A.nnz(), double(A.nnz()) / A.rows, longest,
                bell_garland_line(A), clock.ms());
    std::printf("| %-8s | %-8s | %9s | %6s | %10s | %8s | %8s | %8s | %-5s |\n", "matrix", "version", "nnz", "max",
                "ms", "GB/s", "vs copy", "vs lib", "check");
    std::vector<float> x, y0;
    make_vectors(A.rows, A.cols, 1, x, y0);
    DeviceProblem d(A, x, y0);
    double bytes = min_bytes(A);
    struct Row {
        std::string name;
        double ms, gbps;
        bool right;
    };
    std::vector<Row> rows;
    auto measure = [&](const std::string &name, auto run) {
        Timing t = time_runs(run, reps, [&] { d.reset_y(); });  // each run from the starting y
        std::vector<float> y = d.copy_y();
        SpmvCheck check = check_result(A, x, y0, y.data());
        rows.push_back({name, t.ms, gbps(bytes, t.ms), check.wrong == 0});
    };
    for (const KernelName &k : kKernels) {
        SpmvPlan *plan = spmv_prepare(k.kernel, &d.device, &d.host);
        measure(k.name, [&] { spmv_run(plan, d.x, d.y); });
        spmv_release(plan);
    }
    double library = 0;
    if (!emulated) {
        CusparseSpmv cusparse(A.rows, A.cols, A.nnz(), d.row_ptr, d.col_idx, d.values);
        measure("cuSPARSE", [&] { cusparse.run(d.x, d.y); });
        library = rows.back().gbps;
    }
    bool all_right = true;
    for (const Row &row : rows) {
        std::printf("| %-8s | %-8s | %9d | %6d | %10.4f | %8.1f | %8.3f | %8.3f | %-5s |\n", spec.kind.c_str(),
                    row.name.c_str(), A.nnz(), longest, row.ms, row.gbps, copy > 0 ? row.gbps / copy : 0,
                    library > 0 ? row.gbps / library : 0, row.right ? "right" : "WRONG");
        all_right = all_right && row.right;
        std::string key = spec.kind + "_" + row.name;
        result.set(key + "_ms", row.ms);
        result.set(key + "_gbps", row.gbps);
        if (copy > 0)
            result.set(key + "_vs_copy", row.gbps / copy);
        if (library > 0)
            result.set(key + "_vs_cusparse", row.gbps / library);
    }
    result.set(spec.kind + "_nnz", A.nnz());
    result.set(spec.kind + "_longest_row", longest);
    result.set(spec.kind + "_hybrid_line", bell_garland_line(A));
    std::fflush(stdout);
    return all_right;
}

static int bench(const Cli &cli, LabResult &result)
{
    if (!cli.positional().empty() || cli.has("out") || cli.has("kernel"))
        throw LabError(std::string("--bench makes its own matrices and runs every version: give no file, --out or "
                                   "--kernel\nusage: ") + cli.usage());
    cudaDeviceProp prop = require_gpu("spmv");
    bool emulated = is_emulated(prop);
    int reps = static_cast<int>(cli.integer("reps", emulated ? 1 : 20, 1, 100000));
    // Without --matrix: both halves of the lecture's comparison, each of --rows rows (2^22).
    std::vector<MatrixSpec> specs;
    if (cli.has("matrix")) {
        specs.push_back(matrix_spec_from(cli));
    } else {
        int32_t rows = static_cast<int32_t>(cli.integer("rows", 1 << 22, 1, 1 << 26));
        MatrixSpec banded, skewed;
        banded.kind = "banded", banded.rows = rows, banded.band = 4;
        skewed.kind = "powerlaw", skewed.rows = rows, skewed.min_per_row = 4, skewed.alpha = 1.5;
        skewed.max_per_row = 65536;
        specs = {banded, skewed};
    }
    std::printf("device: %s\n", prop.name);
    result.note("device", prop.name);
    double copy = 0;
    if (emulated) {
        std::printf("yardsticks: none under CPU emulation (no cuSPARSE; these times say nothing about a GPU)\n");
    } else {
        copy = copy_ceiling_gbps(size_t(256) << 20, 10);
        std::printf("yardsticks: a device-to-device copy, %.0f GB/s (read + written); %s\n", copy,
                    "cusparseSpMV, CSR, FP32, CUSPARSE_SPMV_CSR_ALG1");
    }
    std::printf("GB/s = (4 (rows + 1) + 8 nnz + 4 cols + 8 rows) bytes / median time of %d runs\n", reps);
    HostTimer total;
    bool all_right = true;
    for (const MatrixSpec &spec : specs)
        all_right = bench_matrix(spec, emulated, reps, copy, result) && all_right;
    result.set("copy_gbps", copy);
    result.set("total_ms", total.ms());
    return bench_status(all_right, "a version's y");
}

static int spmv_main(int argc, char **argv)
{
    Cli cli(argc, argv, {"bench"}, kUsage);
    std::set<std::string> known = matrix_option_names();
    known.insert({"bench", "kernel", "seed", "reps", "out"});
    cli.allow_only(known);
    LabResult result("spmv");
    int status = cli.has("bench") ? bench(cli, result) : checked_run(cli, result);
    result.write();
    return status;
}

int main(int argc, char **argv) { return run_lab_main("spmv", spmv_main, argc, argv); }
