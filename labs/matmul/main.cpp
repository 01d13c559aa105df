// Lab 2 harness: makes A and B from a seed, runs one of the student's kernels (matmul.h), times
// it, checks C against a float64 product and writes the result. The student never edits this.
//
//   matmul --n N [--kernel K] [--ntx X --nty Y] [--reps R] [--seed S] [--out FILE] [--no-check]
//          [--baseline K2]
//        one checked run: a warm-up launch, then R timed launches (the median is reported).
//        K is naive (default), tiled, fast, tensor, tensor_1xtf32, naive_uncoalesced or
//        tiled_uncoalesced (tensor_1xtf32 is checked against the TF32 bound); blocks are
//        X × Y threads (default 16 × 16; tiled kernels need X = Y = 4, 8, 16 or 32).
//        --baseline K2 also times kernel K2 on the same matrices and reports time_vs_baseline,
//        K's time over K2's (the grader's "tiled must beat naive" case).
//   matmul --cpu --n N [--reps R] [--seed S]
//        the host baseline of the slides ([Baden & Unat 2010]: 0.60 GFLOP/s): the textbook
//        triple loop on one CPU core, no GPU, checked like a kernel; the median of R runs (1).
//   matmul --bench [--n N] [--reps R] [--rounds K]
//        every kernel of the reference solution against cuBLAS SGEMM in FP32, n = 1024, 2048
//        and 4096 (or N), in GFLOP/s and as a fraction of cuBLAS, with each one's error against
//        the float64 product (the tensor kernels beside cuBLAS SGEMM and cuBLAS in TF32 mode).
//        The kernels and cuBLAS take turns: K rounds (3), each timing R launches (100) of every
//        one (fewer where they would take over a second), the order rotated; the median round
//        and the lowest and highest ratio are printed.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "binfile.h"
#include "profile_output.h"
#include "cli.h"
#include "cublas_sgemm.h"
#include "device.h"
#include "device_memory.h"
#include "host_timer.h"
#include "lab_error.h"
#include "matmul.h"
#include "median.h"
#include "reference.h"
#include "result.h"
#include "seeded.h"
#include "timed_runs.h"

static const char *kUsage =
    "matmul --n N [--kernel naive|tiled|fast|tensor|tensor_1xtf32|naive_uncoalesced|tiled_uncoalesced] [--ntx X --nty Y] "
    "[--reps R] [--seed S] [--out FILE] [--no-check] [--baseline KERNEL]\n"
    "       matmul --cpu --n N [--reps R] [--seed S]\n"
    "       matmul --bench [--n N] [--reps R] [--rounds K]";

static const int kMaxN = 32768;  // 4 GiB a matrix; row * n + col stays within an int

// ---- the kernels and their launch geometry -------------------------------------------------

enum class Shape { Block, SquareTile, Own };  // ntx × nty threads; a square tile; its own choice

struct KernelInfo {
    const char *name;
    Shape shape;
    bool tf32;  // computes with operands rounded to TF32: checked against tf32_rtol, not matmul_rtol
};

static const KernelInfo kKernels[] = {
    {"naive", Shape::Block, false},
    {"tiled", Shape::SquareTile, false},
    {"fast", Shape::Own, false},
    {"tensor", Shape::Own, false},
    {"tensor_1xtf32", Shape::Own, true},
    {"naive_uncoalesced", Shape::Block, false},
    {"tiled_uncoalesced", Shape::SquareTile, false},
};

struct Launch {
    KernelInfo kernel;
    int ntx, nty;

    std::string geometry() const
    {
        if (kernel.shape == Shape::Own)
            return "own";
        return std::to_string(ntx) + "x" + std::to_string(nty);
    }
};

static std::string kernel_names()
{
    std::string names;
    for (const KernelInfo &k : kKernels)
        names += (names.empty() ? "" : ", ") + std::string(k.name);
    return names;
}

// Checks the kernel name and the block geometry before anything runs.
static Launch make_launch(const std::string &name, int ntx, int nty, const char *option = "--kernel")
{
    const KernelInfo *found = nullptr;
    for (const KernelInfo &k : kKernels)
        if (name == k.name)
            found = &k;
    if (!found)
        throw LabError(std::string(option) + " " + name + " names no kernel; the kernels are: " + kernel_names());
    std::string block = std::to_string(ntx) + " x " + std::to_string(nty);
    if (found->shape == Shape::Block && ntx * nty > 1024)
        throw LabError("--ntx " + std::to_string(ntx) + " --nty " + std::to_string(nty) + " makes blocks of " +
                       std::to_string(ntx * nty) + " threads; a block holds at most 1024");
    if (found->shape == Shape::SquareTile) {
        if (ntx != nty)
            throw LabError("the " + name + " kernel needs square blocks (each thread loads one element of A "
                           "and one of B per tile), got " + block + "; give --ntx T --nty T");
        if (ntx != 4 && ntx != 8 && ntx != 16 && ntx != 32)
            throw LabError("the " + name + " kernel's tile must be 4, 8, 16 or 32, got --ntx " + std::to_string(ntx));
    }
    return Launch{*found, ntx, nty};
}

// The tensor-core versions came to the lab after its first terms: a file written from an older
// starter has no definition of them. These weak ones stand in (a file's own definition wins),
// so such a file still builds and keeps its marks; the optional cases say the TODO.
__attribute__((weak)) void matmul_tensor(const float *, const float *, float *, int)
{
    LAB_TODO("optional: write matmul_tensor (handout, exploration 7: Past cuBLAS: tensor cores)");
}

__attribute__((weak)) void matmul_tensor_1xtf32(const float *, const float *, float *, int)
{
    LAB_TODO("optional: write matmul_tensor_1xtf32 (handout, exploration 7: Past cuBLAS: tensor cores)");
}

static void launch(const Launch &l, const float *A, const float *B, float *C, int n)
{
    std::string name = l.kernel.name;
    if (name == "naive")
        matmul_naive(A, B, C, n, l.ntx, l.nty);
    else if (name == "tiled")
        matmul_tiled(A, B, C, n, l.ntx);
    else if (name == "fast")
        matmul_fast(A, B, C, n);
    else if (name == "tensor")
        matmul_tensor(A, B, C, n);
    else if (name == "tensor_1xtf32")
        matmul_tensor_1xtf32(A, B, C, n);
    else if (name == "naive_uncoalesced")
        matmul_naive_uncoalesced(A, B, C, n, l.ntx, l.nty);
    else
        matmul_tiled_uncoalesced(A, B, C, n, l.ntx);
}

// ---- matrices ------------------------------------------------------------------------------

// A and B from one seeded stream: A is its first n*n values, B the next n*n (so the two
// differ), all in [0, 1). testcases/matmul/gen.py makes the same ones.
static std::vector<float> make_inputs(int n, uint64_t seed)
{
    std::vector<float> inputs(2 * static_cast<size_t>(n) * n);
    seeded_uniform_floats(inputs.data(), inputs.size(), seed);
    return inputs;
}

struct DeviceMatrices {
    DeviceMemory memory;  // frees A, B and C
    size_t count, bytes;
    float *A, *B, *C;

    DeviceMatrices(const float *host_A, const float *host_B, int n)
        : count(static_cast<size_t>(n) * n), bytes(sizeof(float) * count), A(memory.copy_of<float>(host_A, count)),
          B(memory.copy_of<float>(host_B, count)), C(memory.alloc<float>(count))
    {
    }

    // All bits set is a NaN: an entry no kernel writes stays NaN and fails the check.
    void poison_C() { CUDA_CHECK(cudaMemset(C, 0xFF, bytes)); }
    void copy_C(std::vector<float> &host) const
    {
        host.resize(bytes / sizeof(float));
        CUDA_CHECK(cudaMemcpy(host.data(), C, bytes, cudaMemcpyDeviceToHost));
        lab_result_ready(host.data(), bytes, "C");
    }
};

// ---- timing --------------------------------------------------------------------------------

static double gflops(int n, double ms) { return 2.0 * n * static_cast<double>(n) * n / (ms * 1e6); }

// ---- one checked run -----------------------------------------------------------------------

static double kernel_rtol(const KernelInfo &k, int n) { return k.tf32 ? tf32_rtol(n) : matmul_rtol(n); }
static const char *bound_name(const KernelInfo &k) { return k.tf32 ? "the TF32 bound" : "(n + 2) u"; }

static CheckResult check_kernel(const Reference &ref, const float *C, const Launch &l)
{
    return check_product(ref, C, l.kernel.shape == Shape::Own ? 0 : l.ntx, l.kernel.shape == Shape::Own ? 0 : l.nty,
                         kernel_rtol(l.kernel, ref.n));
}

// Prints the check's verdict; returns true when C is right.
static bool report_check(const CheckResult &check, const Reference &ref, const Launch &l, int n, const char *what)
{
    if (check.wrong == 0) {
        std::printf("CORRECT (%s): %s within %s = %.3g of the float64 product (relative); "
                    "worst error %.0f%% of that bound\n",
                    what, ref.describe().c_str(), bound_name(l.kernel), kernel_rtol(l.kernel, n), 100 * check.worst);
        return true;
    }
    char got[32];
    std::snprintf(got, sizeof got, std::isnan(check.first_got) ? "NaN" : "%.9g", check.first_got);
    std::printf("WRONG (%s): %zu of %zu checked entries are off by more than %s * sum_k |a_ik b_kj|; "
                "the first, C[%d][%d], is %s, expected %.9g (allowed error %.3g)\n",
                what, check.wrong, check.checked, bound_name(l.kernel), check.first_row, check.first_col, got,
                check.first_want, check.first_allowed);
    if (check.wrong_nan == check.wrong)
        std::printf("  every wrong entry is NaN: never written (the harness fills C with NaN before the kernel runs)\n");
    if (check.wrong_interior == 0 && l.kernel.shape != Shape::Own)
        std::printf("  every wrong entry lies in the last n %% nty = %d rows or the last n %% ntx = %d columns: "
                    "does the grid round n / block size up?\n", n % l.nty, n % l.ntx);
    return false;
}

// A checked run's options, all validated before anything runs.
struct RunOptions {
    int n;
    Launch main_launch, baseline;
    bool has_baseline, check;
    int reps;  // 0: the default (5 on a GPU, 1 under emulation)
    uint64_t seed;
    std::string out;
};

static RunOptions parse_run_options(const Cli &cli)
{
    int ntx = static_cast<int>(cli.integer("ntx", 16, 1, 1024));
    int nty = static_cast<int>(cli.integer("nty", 16, 1, 1024));
    RunOptions o{static_cast<int>(cli.integer("n", 0, 1, kMaxN)),
                 make_launch(cli.str("kernel", "naive"), ntx, nty),
                 make_launch(cli.str("baseline", "naive"), ntx, nty, "--baseline"),
                 cli.has("baseline"),
                 !cli.has("no-check"),
                 static_cast<int>(cli.integer("reps", 0, 1, 100000)),
                 static_cast<uint64_t>(cli.integer("seed", 1, 0, LLONG_MAX)),
                 cli.str("out", "")};
    return o;
}

static int checked_run(const Cli &cli, const RunOptions &o, LabResult &result, bool emulated)
{
    int n = o.n, reps = o.reps ? o.reps : (emulated ? 1 : 5);
    uint64_t seed = o.seed;
    bool check = o.check, has_baseline = o.has_baseline;
    const Launch &main_launch = o.main_launch, &baseline = o.baseline;
    if (main_launch.kernel.shape == Shape::Own && (cli.has("ntx") || cli.has("nty")))
        std::printf("note: the %s kernel chooses its own blocks; --ntx and --nty are ignored\n", main_launch.kernel.name);
    // The emulator does some 10^8 multiply-adds a second: say up front when a run takes minutes.
    double launches = (reps + 1.0) * (has_baseline ? 2 : 1);  // time_runs warms up once
    if (emulated && static_cast<double>(n) * n * n * launches > 3e9)
        std::printf("note: CPU emulation: n = %d with %d repetition(s) is about %.0f s of emulated kernels here "
                    "(some 10^8 multiply-adds a second); --reps 1, or --n 512, takes seconds\n",
                    n, reps, static_cast<double>(n) * n * n * launches / 1e8);
    std::fflush(stdout);

    std::vector<float> inputs = make_inputs(n, seed);
    const float *A = inputs.data(), *B = inputs.data() + static_cast<size_t>(n) * n;
    std::vector<float> C;
    HostTimer total;
    DeviceMatrices d(A, B, n);
    d.poison_C();
    Timing timing = time_runs([&] { launch(main_launch, d.A, d.B, d.C, n); }, reps);
    double kernel_ms = timing.ms;
    d.copy_C(C);
    double total_ms = total.ms();

    std::printf("kernel %s, n = %d, block %s, median of %d launches after a warm-up\n", main_launch.kernel.name, n,
                main_launch.geometry().c_str(), reps);
    std::printf("kernel: %.4f ms, %.1f GFLOP/s; whole run %.3f ms (allocation and copies included)\n", kernel_ms,
                gflops(n, kernel_ms), total_ms);
    result.set("kernel_ms", kernel_ms);
    result.set("kernel_host_ms", timing.host_ms);
    result.set("total_ms", total_ms);
    result.set("gflops", gflops(n, kernel_ms));
    result.note("kernel", main_launch.kernel.name);
    result.note("block", main_launch.geometry());

    if (!o.out.empty())
        write_binary_file(o.out, C.data(), C.size() * sizeof(float));

    bool right = true;
    Reference ref;
    if (check) {
        ref = make_reference(A, B, n, seed);
        CheckResult c = check_kernel(ref, C.data(), main_launch);
        right = report_check(c, ref, main_launch, n, main_launch.kernel.name);
        result.set("checked_entries", static_cast<double>(c.checked));
        result.set("wrong_entries", static_cast<double>(c.wrong));
    }

    if (has_baseline) {
        d.poison_C();
        double baseline_ms = time_runs([&] { launch(baseline, d.A, d.B, d.C, n); }, reps).ms;
        std::printf("baseline %s: %.4f ms, %.1f GFLOP/s; %s takes %.3f of its time (%.2fx as fast)\n",
                    baseline.kernel.name, baseline_ms, gflops(n, baseline_ms), main_launch.kernel.name,
                    kernel_ms / baseline_ms, baseline_ms / kernel_ms);
        result.set("baseline_ms", baseline_ms);
        result.set("time_vs_baseline", kernel_ms / baseline_ms);
        if (check) {
            d.copy_C(C);
            CheckResult c = check_kernel(ref, C.data(), baseline);
            right = report_check(c, ref, baseline, n, baseline.kernel.name) && right;
        }
    }
    return right ? LAB_EXIT_OK : LAB_EXIT_WRONG;
}

// ---- the host baseline: one CPU core, the loop every course starts from ------------------------

static int cpu_baseline(const Cli &cli, LabResult &result)
{
    int n = static_cast<int>(cli.integer("n", 0, 1, kMaxN));
    int reps = static_cast<int>(cli.integer("reps", 1, 1, 100000));
    uint64_t seed = static_cast<uint64_t>(cli.integer("seed", 1, 0, LLONG_MAX));
    std::vector<float> inputs = make_inputs(n, seed);
    const float *A = inputs.data(), *B = inputs.data() + static_cast<size_t>(n) * n;
    std::vector<float> C(static_cast<size_t>(n) * n);
    std::vector<double> times;
    if (static_cast<double>(n) * n * n * reps > 4e9)  // one core, some 10^8 to 10^9 multiply-adds a second
        std::printf("note: the host loop does n^3 = %.2g multiply-adds a repetition on one core: up to a minute or "
                    "more at n = %d; --n 1024 takes seconds\n", static_cast<double>(n) * n * n, n);
    std::fflush(stdout);
    for (int rep = 0; rep < reps; ++rep) {
        HostTimer timer;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                float sum = 0.0f;
                for (int k = 0; k < n; ++k)
                    sum += A[static_cast<size_t>(i) * n + k] * B[static_cast<size_t>(k) * n + j];
                C[static_cast<size_t>(i) * n + j] = sum;
            }
        times.push_back(timer.ms());
    }
    double ms = median(times);
    std::printf("host loop (one CPU core): n = %d, %.3f ms (median of %d), %.2f GFLOP/s\n", n, ms, reps,
                gflops(n, ms));
    result.set("cpu_ms", ms);
    result.set("cpu_gflops", gflops(n, ms));
    Reference ref = make_reference(A, B, n, seed);
    CheckResult check = check_product(ref, C.data(), 0, 0);
    if (check.wrong != 0) {
        std::printf("WRONG (host loop): %zu of %zu checked entries off; the first, C[%d][%d], is %.9g, expected %.9g\n",
                    check.wrong, check.checked, check.first_row, check.first_col, check.first_got, check.first_want);
        return LAB_EXIT_WRONG;
    }
    std::printf("CORRECT (host loop): %s\n", ref.describe().c_str());
    return LAB_EXIT_OK;
}

// ---- the bench: each kernel against cuBLAS -------------------------------------------------

// One row of the bench: a kernel or a cuBLAS mode, checked once, then timed in rounds.
struct BenchEntry {
    std::string name, block;
    double rtol;
    std::function<void()> run;
};

static int bench(const Cli &cli, LabResult &result)
{
    // Throws under emulation: no cuBLAS there.
    CublasSgemm cublas(CublasMath::Default), cublas_pedantic(CublasMath::Pedantic), cublas_tf32(CublasMath::Tf32);
    std::vector<int> sizes = {1024, 2048, 4096};
    if (cli.has("n"))
        sizes = {static_cast<int>(cli.integer("n", 0, 1, kMaxN))};
    // Turns of 100 launches: some 0.2 s of the fast kernels at n = 4096, long enough for a card's
    // power limit to act on the kernel that draws the most (labs/matmul/NOTES.md, round 5: in
    // turns of 20 an H100 ran the tensor kernel 8% faster than it sustains; SGEMM's time held).
    int reps = static_cast<int>(cli.integer("reps", 100, 1, 100000));
    int rounds = static_cast<int>(cli.integer("rounds", 3, 1, 1000));
    std::printf("ceiling: cuBLAS SGEMM, %s (FP32 multiply-adds, no TF32)\n", cublas.describe().c_str());
    std::printf("ms: the median over %d rounds of each round's median of %d launches (fewer where they would take "
                "over a second); in each round every row is "
                "timed in turn, the order rotated from round to round, after a first round not kept (clocks and "
                "power drift alike for all); GFLOP/s = 2 n^3 / ms; vs cuBLAS: the median of the rounds' ratios "
                "to cuBLAS's time in the same round, and the lowest and highest (low-high)\n", rounds, reps);
    std::printf("err/bound: the largest error seen over the allowed (n + 2) u sum_k |a_ik b_kj| (TF32 rows: over the "
                "TF32 bound, reference.h); max rel and mean rel: |C - exact| / exact over the checked entries, "
                "against the float64 product\n");
    std::printf("%6s  %-18s %6s %10s %10s %10s %11s %10s %10s %10s\n", "n", "kernel", "block", "ms", "GFLOP/s",
                "vs cuBLAS", "(low-high)", "err/bound", "max rel", "mean rel");

    const std::vector<Launch> launches = {make_launch("naive", 16, 16), make_launch("tiled", 16, 16),
                                          make_launch("tiled", 32, 32), make_launch("fast", 0, 0),
                                          make_launch("tensor", 0, 0),  make_launch("tensor_1xtf32", 0, 0)};
    HostTimer total;
    bool all_right = true;
    double last_fast_ms = 0;
    for (int n : sizes) {
        std::vector<float> inputs = make_inputs(n, 1);
        const float *A = inputs.data(), *B = inputs.data() + static_cast<size_t>(n) * n;
        Reference ref = make_reference(A, B, n, 1);
        DeviceMatrices d(A, B, n);
        std::vector<BenchEntry> entries;
        for (const Launch &l : launches)
            entries.push_back({l.kernel.name, l.geometry(), kernel_rtol(l.kernel, n), [&, l] { launch(l, d.A, d.B, d.C, n); }});
        const size_t ceiling = entries.size();
        entries.push_back({"cuBLAS", "", matmul_rtol(n), [&] { cublas.run(d.A, d.B, d.C, n); }});
        entries.push_back({"cuBLAS pedantic", "", matmul_rtol(n), [&] { cublas_pedantic.run(d.A, d.B, d.C, n); }});
        entries.push_back({"cuBLAS TF32", "", tf32_rtol(n), [&] { cublas_tf32.run(d.A, d.B, d.C, n); }});

        // Each row checked from one run on a NaN-poisoned C, before any timing (the checks are
        // host work: between timed rounds they would let the card cool).
        std::vector<CheckResult> checks;
        std::vector<float> C;
        for (const BenchEntry &e : entries) {
            d.poison_C();
            e.run();
            d.copy_C(C);
            checks.push_back(check_product(ref, C.data(), 0, 0, e.rtol));
        }
        std::vector<std::function<void()>> runs;
        for (const BenchEntry &e : entries)
            runs.push_back(e.run);
        // Turns of at most about a second: the naive and tiled rows at n = 4096 (15 to 26 ms a
        // launch) get 40 to 65 launches; every faster row gets all `reps`.
        std::vector<std::vector<double>> ms = time_interleaved(runs, rounds, reps, 1000.0);

        for (size_t i = 0; i < entries.size(); ++i) {
            const BenchEntry &e = entries[i];
            const CheckResult &check = checks[i];
            std::vector<double> ratios;
            for (int r = 0; r < rounds; ++r)
                ratios.push_back(ms[ceiling][r] / ms[i][r]);
            Spread time = spread_of(ms[i]), ratio = spread_of(ratios);
            char low_high[32];
            std::snprintf(low_high, sizeof low_high, "%.3f-%.3f", ratio.min, ratio.max);
            std::printf("%6d  %-18s %6s %10.3f %10.1f %10.3f %11s %10.2f %10.2e %10.2e%s\n", n, e.name.c_str(),
                        e.block.c_str(), time.median, gflops(n, time.median), ratio.median, low_high, check.worst,
                        check.max_relative, check.mean_relative, check.wrong ? "  WRONG" : "");
            all_right = all_right && check.wrong == 0;
            std::string key = e.name + (e.block.empty() || e.block == "own" ? "" : "_" + e.block) + "_" +
                              std::to_string(n);
            for (char &c : key)
                if (c == ' ')
                    c = '_';
            result.set(key + "_ms", time.median);
            result.set(key + "_gflops", gflops(n, time.median));
            result.set(key + "_vs_cublas", ratio.median);
            result.set(key + "_vs_cublas_low", ratio.min);
            result.set(key + "_vs_cublas_high", ratio.max);
            result.set(key + "_max_rel", check.max_relative);
            result.set(key + "_mean_rel", check.mean_relative);
            if (e.name == "fast")
                last_fast_ms = time.median;
        }
        std::fflush(stdout);
    }
    result.set("kernel_ms", last_fast_ms);
    result.set("total_ms", total.ms());
    return bench_status(all_right, "a kernel's result");
}

static int matmul_main(int argc, char **argv)
{
    Cli cli(argc, argv, {"bench", "no-check", "cpu"}, kUsage);
    cli.allow_only({"n", "kernel", "ntx", "nty", "reps", "rounds", "seed", "out", "no-check", "baseline", "bench", "cpu"});
    if (!cli.positional().empty())
        throw LabError("unexpected argument '" + cli.positional()[0] + "'\nusage: " + kUsage);
    if (!cli.has("bench") && !cli.has("n"))
        throw LabError(std::string("say how large the matrices are with --n N\nusage: ") + kUsage);
    if (cli.has("cpu"))
        return with_result("matmul", "host CPU (one core)",
                           [&](LabResult &result) { return cpu_baseline(cli, result); });
    bool bench_mode = cli.has("bench");
    RunOptions options;
    if (bench_mode)
        cli.integer("n", 0, 1, kMaxN);  // checked here, used by bench()
    else
        options = parse_run_options(cli);
    cudaDeviceProp prop = require_gpu("matmul");
    bool emulated = is_emulated(prop);
    std::printf("device: %s\n", prop.name);
    return with_result("matmul", prop.name, [&](LabResult &result) {
        return bench_mode ? bench(cli, result) : checked_run(cli, options, result, emulated);
    });
}

int main(int argc, char **argv) { return run_lab_main("matmul", matmul_main, argc, argv); }
