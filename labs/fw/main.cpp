// Lab 3 harness: reads the graph, runs one version of the student's Floyd-Warshall (fw.h),
// prints what the module's fw prints, and writes, checks and times the result. The student
// never edits this file.
//
//   fw GRAPH.txt                    the module's run: its messages, then the first ten vertices
//   fw GRAPH.txt --steps            ... and M_k after every step (Spot Check 4)
//   fw GRAPH.txt -o OUT.bin         all N x N distances, APSP binary output format
//   fw GRAPH.txt --path FROM TO     Exploration 8: next-hop matrix and one shortest path
//   fw --random N ...               a seeded random graph instead of a file
//   fw ... --version NAME           another version from fw.c (fw --list)
//   fw ... --runs R                 section 2.3's timing: R runs, each beside a copy-only run
//   fw --random 8192 --bench        the per-k kernel against a device-to-device copy
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "binfile.h"
#include "profile_output.h"
#include "cli.h"
#include "device.h"
#include "dijkstra.h"
#include "fw.h"
#include "gpu_timer.h"
#include "graph_text.h"
#include "host_timer.h"
#include "lab_error.h"
#include "result.h"

static const char *kUsage =
    "fw GRAPH.txt [options]  or  fw --random N [--degree D] [--max-weight W] [--seed S] [options]\n"
    "options:\n"
    "  --version V         run version V of fw.c or of the given paper_versions.cu (a name or a\n"
    "                      number; --list shows them)\n"
    "  --steps             print M_k after every step k, as Spot Check 4 does\n"
    "  --print-to FILE     write the printout to FILE as well as to the screen\n"
    "  -o FILE, --out FILE write all N x N distances (APSP binary output, 1073741823 = no path)\n"
    "  --path FROM TO      Exploration 8: the next-hop matrix and a shortest path from FROM to TO\n"
    "  --next-out FILE     with --path: write the N x N next-hop matrix (int32, -1 = none)\n"
    "  --check             compare every distance with Dijkstra's algorithm from every source\n"
    "  --runs R            time R runs, each after a run that only copies (section 2.3)\n"
    "  --bench             bandwidth of a version against a device-to-device copy\n"
    "  --list              list the versions in fw.c, then the given ones";

static const int kUnreachable = 1073741823;  // the APSP binary output's "no path"

// The printout: to the screen, and to --print-to's file for the grader.
class Printout {
public:
    explicit Printout(const std::string &path) : path_(path)
    {
        if (!path.empty() && !(file_ = std::fopen(path.c_str(), "w")))
            throw LabError("cannot create --print-to file '" + path + "': " + std::strerror(errno));
    }
    ~Printout()
    {
        if (file_)
            std::fclose(file_);
    }
    void write(const std::string &text)
    {
        std::fputs(text.c_str(), stdout);
        if (file_ && std::fputs(text.c_str(), file_) < 0)
            throw LabError("cannot write --print-to file '" + path_ + "'");
    }
    void close()
    {
        if (file_ && std::fclose(file_) != 0) {
            file_ = nullptr;
            throw LabError("cannot write --print-to file '" + path_ + "'");
        }
        file_ = nullptr;
    }

private:
    std::string path_;
    FILE *file_ = nullptr;
};

// printf into a string, for lines that go to the printout.
static std::string strprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static std::string strprintf(const char *fmt, ...)
{
    char text[1024];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    return text;
}

// Version v of fw --list: the student's fw_versions[] first, then the given ones.
static int version_count() { return fw_version_count + fw_paper_version_count; }
static const FwVersion &version_at(int v)
{
    return v < fw_version_count ? fw_versions[v] : fw_paper_versions[v - fw_version_count];
}

static const FwVersion &pick_version(const std::string &wanted)
{
    if (fw_version_count < 1)
        throw LabError("fw.c lists no versions in fw_versions[]");
    if (wanted.empty())
        return fw_versions[0];
    for (int v = 0; v < version_count(); ++v)
        if (wanted == version_at(v).name || wanted == std::to_string(v))
            return version_at(v);
    std::string names;
    for (int v = 0; v < version_count(); ++v)
        names += std::string(v ? ", " : "") + std::to_string(v) + " " + version_at(v).name;
    throw LabError("--version " + wanted + " names no version in fw.c or labs/fw/paper_versions.cu; they are: " +
                   names + " (fw --list)");
}

// ---- moving the matrix: the version's own way, or cudaMalloc of N x Na ----------------------

struct Placed {
    int *dist = nullptr;
    int stride = 0;
};

static Placed place(const FwVersion &version, const Graph &graph, std::vector<int> &host)
{
    Placed placed;
    size_t bytes = graph.matrix.size() * sizeof(int);
    if (version.place == FW_ON_HOST) {
        host = graph.matrix;
        placed.dist = host.data();
        placed.stride = graph.padded;
    } else if (version.upload) {
        placed.dist = version.upload(graph.matrix.data(), graph.padded, graph.n, &placed.stride);
        if (!placed.dist || placed.stride < graph.n)
            throw LabError(std::string("version ") + version.name +
                           ": upload returned no matrix or a row stride below N");
    } else {
        CUDA_CHECK(cudaMalloc((void **)&placed.dist, bytes));
        CUDA_CHECK(cudaMemcpy(placed.dist, graph.matrix.data(), bytes, cudaMemcpyHostToDevice));
        placed.stride = graph.padded;
    }
    return placed;
}

// Copies the matrix into `out` (N x Na, as the graph's).
static void fetch(const FwVersion &version, const Graph &graph, const Placed &placed, std::vector<int> &out)
{
    out.resize(graph.matrix.size());
    if (version.place == FW_ON_HOST)
        std::copy(placed.dist, placed.dist + out.size(), out.begin());
    else if (version.download)
        version.download(out.data(), graph.padded, graph.n, placed.dist, placed.stride);
    else
        CUDA_CHECK(cudaMemcpy(out.data(), placed.dist, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
    if (version.place != FW_ON_HOST)  // N rows of N entries; the padding up to Na is not the result
        lab_result_rows_ready(out.data(), graph.padded * sizeof(int), graph.n * sizeof(int), graph.n,
                              "the distance matrix");
}

static void unplace(const FwVersion &version, const Placed &placed)
{
    if (version.place == FW_ON_HOST)
        return;
    if (version.release)
        version.release(placed.dist);
    else
        CUDA_CHECK(cudaFree(placed.dist));
}

// Runs the version's solve(), timed with events on the GPU, with the host clock on the CPU.
static double timed_solve(const FwVersion &version, const Graph &graph, const Placed &placed)
{
    if (version.place == FW_ON_HOST) {
        HostTimer timer;
        version.solve(placed.dist, placed.stride, graph.n);
        return timer.ms();
    }
    GpuTimer timer;
    timer.start();
    version.solve(placed.dist, placed.stride, graph.n);
    timer.stop();
    CUDA_CHECK_LAUNCH();
    return timer.ms();
}

// ---- outputs and checks -------------------------------------------------------------------

static void write_distances(const std::string &path, const Graph &graph, const std::vector<int> &result)
{
    std::vector<int> out(static_cast<size_t>(graph.n) * graph.n);
    for (int i = 0; i < graph.n; ++i)
        for (int j = 0; j < graph.n; ++j) {
            int d = result[static_cast<size_t>(i) * graph.padded + j];
            out[static_cast<size_t>(i) * graph.n + j] = d == INT_MAX ? kUnreachable : d;
        }
    write_binary_file(path, out.data(), out.size() * sizeof(int));
}

static bool check(const Graph &graph, const std::vector<int> &result)
{
    HostTimer timer;
    Mismatch wrong = check_against_dijkstra(graph, result.data(), graph.padded);
    if (!wrong.found) {
        std::printf("CHECK: all %lld distances agree with Dijkstra from every source (%.0f ms)\n",
                    static_cast<long long>(graph.n) * graph.n, timer.ms());
        return true;
    }
    auto text = [](long long d) { return d < 0 ? std::string("no path") : std::to_string(d); };
    std::printf("WRONG: d(%s, %s) (row %d, column %d) is %s; Dijkstra says %s\n",
                graph.names[wrong.from].c_str(), graph.names[wrong.to].c_str(), wrong.from, wrong.to,
                text(wrong.got).c_str(), text(wrong.expected).c_str());
    return false;
}

static std::string base_name(const std::string &path)
{
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// ---- the modes ----------------------------------------------------------------------------

// The module's run (fw.c's main), with --steps its three commented-out lines put back.
static bool module_run(const FwVersion &version, const Graph &graph, const std::string &shown_name,
                       bool steps, Printout &out, std::vector<int> &result, LabResult &figures)
{
    bool on_device = version.place == FW_ON_DEVICE;
    out.write(strprintf("Alignment = %d\n", ALIGNMENT));
    out.write(strprintf("Kernel: Just read %s with %d vertices, Na = %d\n", shown_name.c_str(), graph.n, graph.padded));
    std::vector<int> host;
    HostTimer total;
    HostTimer copy_in;
    Placed placed = place(version, graph, host);
    double h2d_ms = copy_in.ms();
    if (on_device) {
        out.write("Malloc device rules: no error\n");
        out.write("Pre-kernel copy memory onto device: no error\n");
    }
    double kernel_ms = 0;
    if (steps) {
        for (int k = 0; k < graph.n; ++k) {
            HostTimer step_time;
            version.step(k, placed.dist, placed.stride, graph.n);
            kernel_ms += step_time.ms();
            const char *status = on_device ? cudaGetErrorString(cudaGetLastError()) : "no error";
            out.write(strprintf("Kernel: using %d as intermediate: error = %s\n", k, status));
            fetch(version, graph, placed, result);
            out.write(format_array(graph, result.data(), graph.padded));
        }
    } else {
        kernel_ms = timed_solve(version, graph, placed);
    }
    HostTimer copy_out;
    fetch(version, graph, placed, result);
    double d2h_ms = copy_out.ms();
    unplace(version, placed);
    double total_ms = total.ms();
    if (on_device)
        out.write("Post-kernel copy memory off of device: no error\n");
    out.write(format_array(graph, result.data(), graph.padded));

    std::printf("timing: version %s, %d vertices: %s %.3f ms%s, copies %.3f + %.3f ms, whole run %.3f ms\n",
                version.name, graph.n, on_device ? "kernels" : "CPU", kernel_ms,
                steps ? " (host clock, with the steps' copies left out)" : "", h2d_ms, d2h_ms, total_ms);
    figures.set("kernel_ms", kernel_ms);
    figures.set("total_ms", total_ms);
    figures.set("h2d_ms", h2d_ms);
    figures.set("d2h_ms", d2h_ms);
    return true;
}

// Section 2.3: "we compiled a second version of fw that copied the matrix to the card, did not
// invoke the kernel, and then copied the memory back ... We alternated runs". Here both run in
// one process, after one untimed warm-up run, and the figures are the means over R runs.
static void timed_runs(const FwVersion &version, const Graph &graph, int runs,
                       std::vector<int> &result, LabResult &figures)
{
    std::vector<int> host;
    auto one_run = [&](bool kernel, double *kernel_ms) {
        HostTimer whole;
        Placed placed = place(version, graph, host);
        if (kernel)
            *kernel_ms = timed_solve(version, graph, placed);
        fetch(version, graph, placed, result);
        unplace(version, placed);
        return whole.ms();
    };
    double unused;
    one_run(true, &unused);  // warm-up: context, module load, first allocations
    double sum_whole = 0, sum_copy = 0, sum_kernel = 0, best_kernel = 1e300;
    std::printf("%4s %14s %14s %16s\n", "run", "copies only ms", "whole run ms", "kernels ms");
    for (int r = 1; r <= runs; ++r) {
        double copy_ms = one_run(false, &unused);
        double kernel_ms = 0;
        double whole_ms = one_run(true, &kernel_ms);
        std::printf("%4d %14.3f %14.3f %16.3f\n", r, copy_ms, whole_ms, kernel_ms);
        sum_copy += copy_ms;
        sum_whole += whole_ms;
        sum_kernel += kernel_ms;
        best_kernel = std::min(best_kernel, kernel_ms);
        figures.set("kernel_ms_" + std::to_string(r), kernel_ms);
    }
    std::printf("mean of %d: copies only %.3f ms, whole run %.3f ms, difference %.3f ms; kernels %.3f ms "
                "(version %s, %d vertices)\n", runs, sum_copy / runs, sum_whole / runs,
                (sum_whole - sum_copy) / runs, sum_kernel / runs, version.name, graph.n);
    figures.set("kernel_ms", sum_kernel / runs);
    figures.set("kernel_ms_min", best_kernel);
    figures.set("total_ms", sum_whole / runs);
    figures.set("copy_only_ms", sum_copy / runs);
    figures.set("corrected_ms", (sum_whole - sum_copy) / runs);
    figures.set("runs", runs);
}

// Each step reads and writes the N x Na matrix once at most: 8 N Na bytes a step, N steps.
static void bench(const FwVersion &version, const Graph &graph, std::vector<int> &result, LabResult &figures)
{
    if (version.place != FW_ON_DEVICE)
        throw LabError(std::string("--bench measures a GPU version; ") + version.name + " runs on the CPU");
    Graph warm = parse_graph_text(random_graph_text(256, 8, 100, 1), "warm-up", ALIGNMENT);
    std::vector<int> host, scratch;
    Placed placed = place(version, warm, host);
    timed_solve(version, warm, placed);
    unplace(version, placed);

    placed = place(version, graph, host);
    double kernel_ms = timed_solve(version, graph, placed);
    fetch(version, graph, placed, result);
    unplace(version, placed);
    double bytes = 8.0 * graph.n * static_cast<double>(graph.padded) * graph.n;
    double gbps = bytes / (kernel_ms * 1e6);
    double copy_gbps = copy_ceiling_gbps(graph.matrix.size() * sizeof(int), 20);
    std::printf("bench: version %s, N = %d, Na = %d: %d steps in %.2f ms (%.4f ms a step); "
                "8*N*Na bytes a step -> %.1f GB/s; device-to-device copy %.1f GB/s; ratio %.3f\n",
                version.name, graph.n, graph.padded, graph.n, kernel_ms, kernel_ms / graph.n, gbps,
                copy_gbps, gbps / copy_gbps);
    figures.set("kernel_ms", kernel_ms);
    figures.set("total_ms", kernel_ms);
    figures.set("bandwidth_gbps", gbps);
    figures.set("copy_gbps", copy_gbps);
    figures.set("ratio_to_copy", gbps / copy_gbps);
}

// Exploration 8: next(i, j), the first step from i on a shortest path to j.
static bool path_run(const Graph &graph, const std::string &from_name, const std::string &to_name,
                     const std::string &next_out, Printout &out, std::vector<int> &result, LabResult &figures)
{
    auto vertex = [&](const std::string &name) {
        for (int v = 0; v < graph.n; ++v)
            if (graph.names[v] == name)
                return v;
        throw LabError("--path: the graph has no vertex named '" + name + "'");
    };
    int from = vertex(from_name), to = vertex(to_name);
    size_t cells = graph.matrix.size();
    std::vector<int> next(cells, -1);
    for (int i = 0; i < graph.n; ++i)
        for (int j = 0; j < graph.n; ++j)
            if (graph.matrix[static_cast<size_t>(i) * graph.padded + j] != INT_MAX)
                next[static_cast<size_t>(i) * graph.padded + j] = j;

    int *dist = nullptr, *device_next = nullptr;
    CUDA_CHECK(cudaMalloc((void **)&dist, cells * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&device_next, cells * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(dist, graph.matrix.data(), cells * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(device_next, next.data(), cells * sizeof(int), cudaMemcpyHostToDevice));
    GpuTimer timer;
    timer.start();
    fw_solve_with_next(dist, device_next, graph.padded, graph.n);
    timer.stop();
    double kernel_ms = timer.ms();
    result.resize(cells);
    CUDA_CHECK(cudaMemcpy(result.data(), dist, cells * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(next.data(), device_next, cells * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dist));
    CUDA_CHECK(cudaFree(device_next));
    figures.set("kernel_ms", kernel_ms);
    figures.set("total_ms", kernel_ms);

    out.write("Distances:\n" + format_array(graph, result.data(), graph.padded));
    out.write("Next hop (the vertex to step to from the row's vertex toward the column's):\n");
    out.write(format_table(graph, [&](int i, int j) {
        int hop = next[static_cast<size_t>(i) * graph.padded + j];
        return hop < 0 ? std::string("--") : graph.names[hop];
    }));
    if (!next_out.empty()) {
        std::vector<int> square(static_cast<size_t>(graph.n) * graph.n);
        for (int i = 0; i < graph.n; ++i)
            std::copy_n(next.begin() + static_cast<size_t>(i) * graph.padded, graph.n,
                        square.begin() + static_cast<size_t>(i) * graph.n);
        write_binary_file(next_out, square.data(), square.size() * sizeof(int));
    }

    // Walk the next hops, adding up M_0's edge lengths; the sum must be the distance.
    int distance = result[static_cast<size_t>(from) * graph.padded + to];
    if (distance == INT_MAX) {
        out.write("No path from " + from_name + " to " + to_name + "\n");
        return next[static_cast<size_t>(from) * graph.padded + to] < 0;
    }
    std::string path = from_name;
    long long length = 0;
    int at = from;
    for (int hops = 0; at != to; ++hops) {
        int hop = next[static_cast<size_t>(at) * graph.padded + to];
        int edge = hop < 0 ? INT_MAX : graph.matrix[static_cast<size_t>(at) * graph.padded + hop];
        if (hop < 0 || edge == INT_MAX || hops >= graph.n) {
            std::printf("WRONG: following next hops from %s toward %s breaks at %s\n",
                        from_name.c_str(), to_name.c_str(), graph.names[at].c_str());
            return false;
        }
        length += edge;
        path += " -> " + graph.names[hop];
        at = hop;
    }
    out.write("Shortest path from " + from_name + " to " + to_name + " (length " +
              std::to_string(distance) + "): " + path + "\n");
    if (length != distance) {
        std::printf("WRONG: the path's edges add up to %lld, not %d\n", length, distance);
        return false;
    }
    return true;
}

// ---- main ---------------------------------------------------------------------------------

static Graph load_graph(const Cli &cli, std::string &shown_name)
{
    if (cli.has("random")) {
        int n = static_cast<int>(cli.integer("random", 0, 1, max_vertices(ALIGNMENT)));
        int degree = static_cast<int>(cli.integer("degree", 8, 1, 1 << 20));
        int max_weight = static_cast<int>(cli.integer("max-weight", 100, 1, 1000000));
        long long seed = cli.integer("seed", 1, 0, LLONG_MAX);
        shown_name = "random(n=" + std::to_string(n) + ",degree=" + std::to_string(degree) +
                     ",max-weight=" + std::to_string(max_weight) + ",seed=" + std::to_string(seed) + ")";
        return parse_graph_text(random_graph_text(n, degree, max_weight, static_cast<uint64_t>(seed)),
                                shown_name, ALIGNMENT);
    }
    shown_name = base_name(cli.positional()[0]);
    return read_graph_file(cli.positional()[0], ALIGNMENT);
}

static int fw_main(int argc, char **argv)
{
    // The module's habit (and the issue's): -o FILE for the output.
    std::vector<char *> args(argv, argv + argc);
    static char out_option[] = "--out";
    for (char *&arg : args)
        if (std::strcmp(arg, "-o") == 0)
            arg = out_option;
    Cli cli(static_cast<int>(args.size()), args.data(), {"steps", "check", "bench", "list", "path"}, kUsage);
    cli.allow_only({"version", "steps", "print-to", "out", "path", "next-out", "check", "runs", "bench",
                    "list", "random", "degree", "max-weight", "seed"});
    if (cli.has("list")) {
        for (int v = 0; v < version_count(); ++v)
            std::printf("%2d  %-14s %s%s\n", v, version_at(v).name, version_at(v).summary,
                        v == 0 ? "  (the graded one)" : v == fw_version_count ? "  (given: labs/fw/paper_versions.cu)" : "");
        return LAB_EXIT_OK;
    }
    if (!cli.has("random") && cli.positional().empty())
        throw LabError(std::string("say which graph: fw GRAPH.txt, or fw --random N\nusage: ") + kUsage);
    size_t graph_args = cli.has("random") ? 0 : 1;
    size_t path_args = cli.has("path") ? 2 : 0;
    if (cli.positional().size() != graph_args + path_args)
        throw LabError(std::string(cli.has("path") ? "--path takes two vertex names: fw GRAPH.txt --path FROM TO"
                                                   : "expected one graph file (or --random N)") +
                       "\nusage: " + kUsage);
    for (const char *alone : {"steps", "runs", "bench"})
        for (const char *other : {"steps", "runs", "bench", "path"})
            if (std::strcmp(alone, other) < 0 && cli.has(alone) && cli.has(other))
                throw LabError(std::string("--") + alone + " and --" + other + " do not go together");
    if (cli.has("path") && (cli.has("version") || cli.has("runs") || cli.has("bench")))
        throw LabError("--path runs fw_solve_with_next alone: leave out --version, --runs and --bench");
    if (cli.has("next-out") && !cli.has("path"))
        throw LabError("--next-out writes the next-hop matrix of --path; add --path FROM TO");
    const FwVersion &version = pick_version(cli.str("version", ""));
    if (cli.has("steps") && !version.step)
        throw LabError(std::string("version ") + version.name + " runs every step in one kernel, so "
                       "there are no matrices in between to print; --steps needs a version with a step function");
    int runs = static_cast<int>(cli.integer("runs", 0, 1, 1000));

    std::string shown_name;
    Graph graph = load_graph(cli, shown_name);
    bool needs_gpu = version.place == FW_ON_DEVICE || cli.has("path") || cli.has("bench");
    LabResult figures("fw");
    figures.note("version", cli.has("path") ? "fw_solve_with_next" : version.name);
    figures.set("n", graph.n);
    if (needs_gpu) {
        figures.note("device", require_gpu("fw").name);
        CUDA_CHECK(cudaFree(0));  // the context now, so that no timing below includes making it
    }

    Printout out(cli.str("print-to", ""));
    std::vector<int> result;
    bool ok = true;
    if (cli.has("path")) {
        ok = path_run(graph, cli.positional()[graph_args], cli.positional()[graph_args + 1],
                      cli.str("next-out", ""), out, result, figures);
    } else if (cli.has("bench")) {
        bench(version, graph, result, figures);
    } else if (runs > 0) {
        timed_runs(version, graph, runs, result, figures);
    } else {
        module_run(version, graph, shown_name, cli.has("steps"), out, result, figures);
    }
    out.close();
    if (cli.has("out"))
        write_distances(cli.str("out", ""), graph, result);
    if (cli.has("check"))
        ok = check(graph, result) && ok;
    figures.write();
    return ok ? LAB_EXIT_OK : LAB_EXIT_WRONG;
}

int main(int argc, char **argv) { return run_lab_main("fw", fw_main, argc, argv); }
