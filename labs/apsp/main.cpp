// Lab 4 harness, shared by the three programs (cpu, gpu, multigpu: the student files in
// starter/apsp/). It reads the input, builds the distance matrix, calls the student's
// apsp_solve() (apsp.h), writes the output, and times each part. The student never edits it.
//
//   apsp-<prog> INPUT OUTPUT [--timing]        the NTHU HW3 program: INPUT to OUTPUT; --timing
//                                              prints the time split (compute, copies, I/O)
//   apsp-<prog> --bench N [--m M] [--reps R] [--seed S]
//                                              compute time on a random graph of N vertices, in
//                                              distance updates per second (N^3 / compute time),
//                                              beside the GPU's min-plus ceiling
//   apsp-<prog> --bench-io N [--m M] [--seed S] [--dir DIR]
//                                              the whole program, I/O included, on a generated
//                                              input file of N vertices written to DIR
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "apsp.h"
#include "binfile.h"
#include "profile_output.h"
#include "ceiling.h"
#include "cli.h"
#include "device.h"
#include "graph_io.h"
#include "lab_error.h"
#include "median.h"
#include "output_file.h"
#include "random_graph.h"
#include "result.h"

static std::string g_program = "apsp";  // "apsp-cpu", "apsp-gpu" or "apsp-multigpu"

static std::string usage()
{
    return g_program + " INPUT OUTPUT [--timing]\n       " + g_program +
           " --bench N [--m M] [--reps R] [--seed S]\n       " + g_program +
           " --bench-io N [--m M] [--seed S] [--dir DIR]";
}

static bool is_cpu_program() { return g_program == "apsp-cpu"; }

static void print_time_distribution(const ApspInput &input, const ApspTimes &times, double build_ms,
                                    double write_ms, double total_ms)
{
    double io_ms = input.read_ms + build_ms + write_ms;
    double other_ms = total_ms - times.compute_ms - times.copy_ms - io_ms;
    std::printf("Time distribution (ms), %s, n = %d, m = %lld:\n", g_program.c_str(), input.n,
                static_cast<long long>(input.m));
    std::printf("  compute  %10.2f   %s", times.compute_ms,
                is_cpu_program() ? "the Floyd-Warshall loops" : "the rounds of kernels");
    if (times.exchange_ms > 0)
        std::printf(", pivot rows sent between GPUs %.2f of it", times.exchange_ms);
    std::printf("\n");
    std::printf("  copies   %10.2f   the matrix between host and device\n", times.copy_ms);
    std::printf("  I/O      %10.2f   read %.2f, build the matrix %.2f, write %.2f\n", io_ms,
                input.read_ms, build_ms, write_ms);
    std::printf("  other    %10.2f   %s\n", other_ms,
                is_cpu_program() ? "thread start-up, the rest" : "waiting for CUDA's start-up, allocation, the rest");
    std::printf("  total    %10.2f\n", total_ms);
}

// CUDA's start-up (the driver, then a context on each GPU the program uses) takes hundreds of
// milliseconds on some machines. The returned thread does it while the caller builds the matrix;
// an error is left for the student's first CUDA call to report.
static std::thread start_cuda_early()
{
    if (is_cpu_program())
        return std::thread();
    bool every_gpu = g_program == "apsp-multigpu";
    return std::thread([every_gpu] {
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess)
            return;
        std::vector<std::thread> contexts;
        for (int d = 0; d < (every_gpu ? count : std::min(count, 1)); ++d)
            contexts.emplace_back([d] {
                if (cudaSetDevice(d) == cudaSuccess)
                    cudaFree(nullptr);  // makes the context
            });
        for (std::thread &context : contexts)
            context.join();
    });
}

// The NTHU program: read, solve, write. Returns the whole run's milliseconds.
static double solve_file(const std::string &in, const std::string &out, bool timing, LabResult &result)
{
    HostTimer total;
    ApspInput input = read_apsp_input(in);
    std::thread cuda_start = start_cuda_early();
    HostTimer step;
    HostMatrix dist(input.n);
    fill_distance_matrix(dist, input.triples, input.m);
    double build_ms = step.ms();
    OutputFile output(out, dist.bytes());  // its pages are made while apsp_solve runs
    if (cuda_start.joinable())
        cuda_start.join();
    ApspTimes times = {};
    apsp_solve(dist.data(), input.n, &times);
    lab_result_ready(dist.data(), dist.bytes(), "the distance matrix");
    step.restart();
    output.write(dist.data());
    double write_ms = step.ms();
    double total_ms = total.ms();

    std::printf("%s: n = %d, m = %lld: compute %.2f ms, whole run %.2f ms\n", g_program.c_str(),
                input.n, static_cast<long long>(input.m), times.compute_ms, total_ms);
    if (timing)
        print_time_distribution(input, times, build_ms, write_ms, total_ms);
    result.set("kernel_ms", times.compute_ms);
    result.set("total_ms", total_ms);
    result.set("copy_ms", times.copy_ms);
    result.set("exchange_ms", times.exchange_ms);
    result.set("io_ms", input.read_ms + build_ms + write_ms);
    result.set("n", input.n);
    return total_ms;
}

static void print_machine()
{
    if (is_cpu_program()) {
#ifdef _OPENMP
        std::printf("%s: %d OpenMP threads\n", g_program.c_str(), omp_get_max_threads());
#endif
        return;
    }
    cudaDeviceProp prop = require_gpu(g_program.c_str());
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    std::printf("%s: device 0 of %d: %s\n", g_program.c_str(), count, prop.name);
}

// "12.34 x 10^12" for GPU-sized rates, "5.6e+07" for the small ones.
static std::string rate_text(double per_s)
{
    char text[48];
    if (per_s >= 1e11)
        std::snprintf(text, sizeof text, "%.2f x 10^12", per_s / 1e12);
    else
        std::snprintf(text, sizeof text, "%.3g", per_s);
    return text;
}

// Compute time of the student's apsp_solve on a seeded random graph (a directed cycle through
// every vertex plus random edges, so that distances are finite and paths long).
static int bench(int n, int64_t m, int reps, uint64_t seed, LabResult &result)
{
    print_machine();
    // The emulator does about 10^9 distance updates a second: say up front when this takes minutes.
    double updates_asked = static_cast<double>(n) * n * n * reps;
    if (!is_cpu_program() && updates_asked > 3e10 && is_emulated(require_gpu(g_program.c_str()))) {
        std::printf("note: CPU emulation: --bench %d with %d repetition(s) is n^3 = %.2g distance updates a "
                    "repetition, about %.0f minutes here; --bench 1024 --reps 1 takes seconds\n",
                    n, reps, static_cast<double>(n) * n * n, updates_asked / 1e9 / 60);
        std::fflush(stdout);
    }
    std::vector<int32_t> edges = random_graph_edges(true, n, m, seed);
    {  // warm-up: CUDA context, module load, OpenMP threads
        int small = std::min(n, 256);
        std::vector<int32_t> few = random_graph_edges(true, small, small, seed);
        HostMatrix dist(small);
        fill_distance_matrix(dist, few.data(), small);
        ApspTimes ignored = {};
        apsp_solve(dist.data(), small, &ignored);
    }
    std::vector<double> compute_ms, copy_ms;
    for (int rep = 0; rep < reps; ++rep) {
        HostMatrix dist(n);
        fill_distance_matrix(dist, edges.data(), m);
        ApspTimes times = {};
        apsp_solve(dist.data(), n, &times);
        compute_ms.push_back(times.compute_ms);
        copy_ms.push_back(times.copy_ms);
    }
    double ms = median(compute_ms);
    double updates = static_cast<double>(n) * n * n / (ms * 1e-3);
    std::printf("n = %d, m = %lld: compute %.2f ms (median of %d), copies %.2f ms; "
                "%s distance updates/s (n^3 / compute time)\n",
                n, static_cast<long long>(m), ms, reps, median(copy_ms), rate_text(updates).c_str());
    result.set("kernel_ms", ms);
    result.set("copy_ms", median(copy_ms));
    result.set("updates_per_s", updates);
    if (is_cpu_program())
        return LAB_EXIT_OK;
    cudaDeviceProp prop = require_gpu(g_program.c_str());
    if (is_emulated(prop)) {
        std::printf("ceiling: not measured under CPU emulation\n");
        return LAB_EXIT_OK;
    }
    MinPlusCeiling ceiling = measure_minplus_ceiling();
    std::printf("ceiling: a register-only min-plus loop on this GPU: %s updates/s with "
                "__viaddmin_s32, %s with min(a + b, d); ratio %.3f\n",
                rate_text(ceiling.dpx_updates_per_s).c_str(), rate_text(ceiling.plain_updates_per_s).c_str(),
                updates / ceiling.best());
    result.set("ceiling_dpx_updates_per_s", ceiling.dpx_updates_per_s);
    result.set("ceiling_plain_updates_per_s", ceiling.plain_updates_per_s);
    result.set("ratio_to_ceiling", updates / ceiling.best());
    return LAB_EXIT_OK;
}

// The whole program, as a judge times it, on a generated input file.
static int bench_io(int n, int64_t m, uint64_t seed, const std::string &dir, LabResult &result)
{
    std::vector<int32_t> file = {n, static_cast<int32_t>(m)};
    std::vector<int32_t> edges = random_graph_edges(true, n, m, seed);
    file.insert(file.end(), edges.begin(), edges.end());
    std::string stem = dir + "/apsp-bench-" + std::to_string(n) + "-" + std::to_string(getpid());
    std::string in = stem + ".in", out = stem + ".out";
    write_binary_file(in, file.data(), file.size() * sizeof(int32_t));
    double total_ms;
    try {
        total_ms = solve_file(in, out, true, result);
    } catch (...) {
        std::remove(in.c_str());
        std::remove(out.c_str());
        throw;
    }
    std::remove(in.c_str());
    std::remove(out.c_str());
    std::printf("whole program, n = %d, m = %lld, I/O included: %.1f ms\n", n,
                static_cast<long long>(m), total_ms);
    return LAB_EXIT_OK;
}

static int apsp_main(int argc, char **argv)
{
    Cli cli(argc, argv, {"timing"}, usage());
    cli.allow_only({"timing", "bench", "bench-io", "m", "reps", "seed", "dir"});
    LabResult result("apsp");
    result.note("program", g_program);
    int status = LAB_EXIT_OK;
    if (cli.has("bench") || cli.has("bench-io")) {
        if (!cli.positional().empty() || (cli.has("bench") && cli.has("bench-io")))
            throw LabError("usage: " + usage());
        std::string option = cli.has("bench") ? "bench" : "bench-io";
        long long n = cli.integer(option, 0, 1, INT_MAX);
        matrix_bytes_or_throw(n, "--" + option);
        int64_t m = cli.integer("m", 8 * n, 0, INT_MAX);
        uint64_t seed = static_cast<uint64_t>(cli.integer("seed", 1, 0, LLONG_MAX));
        if (option == "bench") {
            int reps = static_cast<int>(cli.integer("reps", 3, 1, 100));
            status = bench(static_cast<int>(n), m, reps, seed, result);
        } else {
            const char *tmp = std::getenv("TMPDIR");
            status = bench_io(static_cast<int>(n), m, seed, cli.str("dir", tmp ? tmp : "/tmp"), result);
        }
    } else {
        if (cli.positional().size() != 2)
            throw LabError("give an input and an output file\nusage: " + usage());
        solve_file(cli.positional()[0], cli.positional()[1], cli.has("timing"), result);
    }
    result.write();
    return status;
}

int main(int argc, char **argv)
{
    std::string name = argv[0];
    g_program = "apsp-" + name.substr(name.find_last_of('/') + 1);
    return run_lab_main(g_program.c_str(), apsp_main, argc, argv);
}
