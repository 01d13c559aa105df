// Lab 5 harness: reads (or, for --bench, generates) the graph, calls the program's functions
// (bfs.h), times them, checks every depth and writes the result. The student never edits this.
//
//   bfs INPUT --source S [--out FILE] [--runs R]
//       one checked run on an edge-list file: iterations, times, the check, the depths to FILE
//   bfs --bench --graph KIND [graph options] [--source S] [--runs R]
//       the benchmark on a generated graph (graph_gen.h): search time and traversed edges per
//       second beside one read of the edge list at the device's copy rate
// The same harness runs every program of the lab (bfs, frontier): argv[0] says which.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <string>
#include <vector>

#include "bfs.h"
#include "binfile.h"
#include "profile_output.h"
#include "cli.h"
#include "depth_check.h"
#include "device.h"
#include "edge_list.h"
#include "gpu_timer.h"
#include "graph_gen.h"
#include "host_timer.h"
#include "lab_error.h"
#include "median.h"
#include "result.h"

static const char *kUsage =
    "PROGRAM INPUT --source S [--out FILE] [--runs R]\n"
    "       PROGRAM --bench --graph chain|star|grid|uniform|rmat|pieces [graph options] [--source S] [--runs R]\n"
    "  graph options: --n N --m M --rows R --cols C --scale S --edge-factor F --pieces P --seed S\n"
    "                 --isolated K --self-loops K --duplicates K --permute 0|1 --shuffle 0|1";

struct Timings {
    int iterations = 0;
    double prepare_ms = 0;     // bfs_prepare: copy in and build, host clock
    double cold_search_ms = 0; // the first bfs_search, host clock (kernels load on first launch)
    double search_ms = 0;      // median of the timed searches, GPU events
    double search_min_ms = 0;
    double search_host_ms = 0; // the same searches on the host clock, each ended by a device sync
    double copy_ms = 0;        // bfs_copy_depths, host clock
    double cold_bfs_ms = 0;    // one cold BFS end to end: prepare + first search + copy back
    double total_ms = 0;       // everything: prepare, every search, copy back, release
};

// One pass through the program's functions: prepare, a cold search, `runs` timed searches.
static Timings run_program_code(const EdgeList &graph, int32_t source, int runs, std::vector<int32_t> &depth)
{
    Timings t;
    CUDA_CHECK(cudaFree(0));  // creates the CUDA context now: bfs_prepare's time is its own
    HostTimer whole, clock;
    BfsGraph *state = bfs_prepare(graph.n, graph.m(), graph.ends.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    t.prepare_ms = clock.ms();
    clock.restart();
    t.iterations = bfs_search(state, static_cast<int>(source));
    CUDA_CHECK(cudaDeviceSynchronize());
    t.cold_search_ms = clock.ms();

    std::vector<double> times, host_times;
    GpuTimer timer;
    for (int run = 0; run < runs; ++run) {
        clock.restart();
        timer.start();
        t.iterations = bfs_search(state, static_cast<int>(source));
        timer.stop();
        CUDA_CHECK(cudaDeviceSynchronize());
        host_times.push_back(clock.ms());
        times.push_back(timer.ms());
    }
    t.search_ms = median(times);
    t.search_min_ms = *std::min_element(times.begin(), times.end());
    t.search_host_ms = median(host_times);

    clock.restart();
    bfs_copy_depths(state, depth.data());
    lab_result_ready(depth.data(), depth.size() * sizeof(int32_t), "the depths");
    CUDA_CHECK(cudaDeviceSynchronize());
    t.copy_ms = clock.ms();
    bfs_release(state);
    t.cold_bfs_ms = t.prepare_ms + t.cold_search_ms + t.copy_ms;
    t.total_ms = whole.ms();
    return t;
}

static double gteps(int32_t m, double ms) { return ms > 0 ? m / (ms * 1e6) : 0; }

static void report(const Timings &t, const EdgeList &graph, const DepthSummary &summary, int runs, LabResult &result)
{
    std::printf("iterations: %d (the deepest vertex is at depth %d: a level-by-level BFS needs %d)\n",
                t.iterations, summary.max_depth, summary.max_depth + 1);
    std::printf("reached %lld of %d vertices\n", summary.reached, graph.n);
    std::printf("search: %.4f ms (median of %d; fastest %.4f ms), %.3f GTEPS (m / time, each input "
                "edge counted once)\n", t.search_ms, runs, t.search_min_ms, gteps(graph.m(), t.search_ms));
    std::printf("prepare %.3f ms, first search %.3f ms, copy back %.3f ms: one cold BFS %.3f ms "
                "(all searches included: %.3f ms)\n",
                t.prepare_ms, t.cold_search_ms, t.copy_ms, t.cold_bfs_ms, t.total_ms);
    result.set("kernel_ms", t.search_ms);
    result.set("kernel_host_ms", t.search_host_ms);
    result.set("total_ms", t.total_ms);
    result.set("cold_bfs_ms", t.cold_bfs_ms);
    result.set("search_min_ms", t.search_min_ms);
    result.set("prepare_ms", t.prepare_ms);
    result.set("cold_search_ms", t.cold_search_ms);
    result.set("copy_ms", t.copy_ms);
    result.set("iterations", t.iterations);
    result.set("max_depth", summary.max_depth);
    result.set("reached", static_cast<double>(summary.reached));
    result.set("gteps", gteps(graph.m(), t.search_ms));
}

// Runs the program's code on `graph`, prints and checks. Returns the exit status.
static int run_and_check(const EdgeList &graph, int32_t source, int runs, const std::string &out,
                         LabResult &result, Timings *timings)
{
    std::vector<int32_t> depth(graph.n, -2);  // -2: never written by bfs_copy_depths
    Timings t = run_program_code(graph, source, runs, depth);
    DepthSummary summary;
    std::string wrong = check_depths(graph, source, depth.data(), &summary);
    report(t, graph, summary, runs, result);
    if (!out.empty())
        write_binary_file(out, depth.data(), depth.size() * sizeof(int32_t));
    if (timings)
        *timings = t;
    if (!wrong.empty()) {
        std::printf("WRONG: %s\n", wrong.c_str());
        return LAB_EXIT_WRONG;
    }
    std::printf("CORRECT: every depth checked against its neighbours' (Graph500 rules)\n");
    return LAB_EXIT_OK;
}

static int checked_run(const Cli &cli, const std::string &program, LabResult &result)
{
    if (cli.positional().size() != 1 || !cli.has("source"))
        throw LabError(std::string("give one input file and --source S\nusage: ") + cli.usage());
    for (const std::string &option : graph_option_names())
        if (cli.has(option))
            throw LabError("--" + option + " describes a generated graph: it goes with --bench\nusage: " + cli.usage());
    const std::string input = cli.positional()[0];
    long long source = cli.integer("source", 0, LLONG_MIN, LLONG_MAX);
    int runs = static_cast<int>(cli.integer("runs", 1, 1, 1000));
    EdgeList graph = read_edge_list(input);
    check_source(graph, source, "'" + input + "'");
    cudaDeviceProp prop = require_gpu(program.c_str());
    std::printf("%s on %s: n = %d, m = %d, source %lld; device: %s\n", program.c_str(), input.c_str(),
                graph.n, graph.m(), source, prop.name);
    result.note("device", prop.name);
    return run_and_check(graph, static_cast<int32_t>(source), runs, cli.str("out", ""), result, nullptr);
}

static int bench(const Cli &cli, const std::string &program, LabResult &result)
{
    if (!cli.positional().empty())
        throw LabError(std::string("--bench makes its own graph: give --graph, not a file\nusage: ") + cli.usage());
    if (cli.has("out"))
        throw LabError("--bench writes no depths; drop --out (or run on a file: make one with testcases/bfs/gen.py)");
    GraphSpec spec = graph_spec_from(cli);
    int runs = static_cast<int>(cli.integer("runs", 3, 1, 1000));
    cudaDeviceProp prop = require_gpu(program.c_str());
    HostTimer clock;
    EdgeList graph = make_graph(spec);
    double generate_ms = clock.ms();
    // Without --source: vertex 0 of a chain, star or grid (an end, the centre, a corner: the
    // most levels, or the fewest); a seeded vertex with an edge in a random graph.
    bool random_kind = spec.kind == "rmat" || spec.kind == "uniform" || spec.kind == "pieces";
    long long source = cli.has("source") ? cli.integer("source", 0, LLONG_MIN, LLONG_MAX)
                       : random_kind     ? pick_source(graph, spec.seed)
                                         : 0;
    check_source(graph, source, "the generated graph");
    std::printf("bench %s on %s: n = %d, m = %d, source %lld (generated in %.0f ms); device: %s\n",
                program.c_str(), describe(spec).c_str(), graph.n, graph.m(), source, generate_ms, prop.name);
    result.note("device", prop.name);
    result.note("graph", describe(spec));

    Timings t;
    int status = run_and_check(graph, static_cast<int32_t>(source), runs, "", result, &t);

    // The machine's own yardstick: one read of the whole edge list (8 bytes an edge) at the
    // device-to-device copy rate, measured now on a buffer large enough to reach full speed.
    double copy_gbps = 0, stream_ms = 0;
    double iteration_ms = t.search_ms / std::max(1, t.iterations);
    if (is_emulated(prop)) {
        std::printf("yardstick: none under CPU emulation (these times say nothing about a GPU)\n");
    } else {
        copy_gbps = copy_ceiling_gbps(size_t(256) << 20, 10);
        stream_ms = 8.0 * graph.m() / (copy_gbps * 1e6);
        std::printf("yardstick: one read of the edge list at the copy rate (%.0f GB/s) takes %.4f ms "
                    "(%.1f GTEPS); an iteration here took %.4f ms on average, %.2f such reads\n",
                    copy_gbps, stream_ms, gteps(graph.m(), stream_ms), iteration_ms, iteration_ms / stream_ms);
    }
    result.set("copy_gbps", copy_gbps);
    result.set("stream_ms", stream_ms);
    std::printf("| %-14s | %-9s | %10d | %10d | %6d | %11.4f | %8.3f | %11.3f |\n", short_name(spec).c_str(),
                program.c_str(), graph.n, graph.m(), t.iterations, t.search_ms, gteps(graph.m(), t.search_ms),
                t.prepare_ms);
    return status;
}

static std::string program_name(const char *argv0)
{
    std::string path = argv0 ? argv0 : "bfs";
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

static std::string g_program;

static int bfs_main(int argc, char **argv)
{
    std::string usage = kUsage;
    for (size_t at; (at = usage.find("PROGRAM")) != std::string::npos;)
        usage.replace(at, 7, g_program);
    Cli cli(argc, argv, {"bench"}, usage);
    std::set<std::string> known = graph_option_names();
    known.insert({"bench", "source", "out", "runs"});
    cli.allow_only(known);
    LabResult result("bfs");
    result.note("program", g_program);
    int status = cli.has("bench") ? bench(cli, g_program, result) : checked_run(cli, g_program, result);
    result.write();
    return status;
}

int main(int argc, char **argv)
{
    g_program = program_name(argc > 0 ? argv[0] : nullptr);
    return run_lab_main(g_program.c_str(), bfs_main, argc, argv);
}
