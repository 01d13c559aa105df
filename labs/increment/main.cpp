// Lab 1 harness: makes the input, calls the student's functions (increment.h), times them,
// checks every element and writes the result. The student never edits this file.
//
//   increment --n N [--block B] [--reps R] [--seed S] [--out FILE]   one checked run
//   increment --n N --sweep      Exercises-1: double the repetitions until the time per point
//                                settles, then solve for the host<->device transfer rate
//   increment --n N --transfer   measured transfer rates, pageable and pinned, both ways
//   increment --n N --bench      kernel bandwidth as a ratio to a device-to-device copy
//   increment --n N --cpu [--reps R]  Exercises-1's host baseline: the same increment as a plain
//                                loop on one CPU core, no GPU involved
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "binfile.h"
#include "profile_output.h"
#include "cli.h"
#include "device.h"
#include "gpu_timer.h"
#include "host_timer.h"
#include "increment.h"
#include "lab_error.h"
#include "median.h"
#include "result.h"
#include "seeded.h"

static const char *kUsage =
    "increment --n N [--block B] [--reps R] [--seed S] [--out FILE] [--sweep | --transfer | --bench | --cpu]";

struct Run {
    double kernel_ms = 0;  // all repetitions' kernels together, GPU time
    double kernel_host_ms = 0;  // the same calls on the host clock, until every stream is idle
    double h2d_ms = 0, d2h_ms = 0;
    double total_ms = 0;   // copy in, kernels, copy out: host clock
};

// One pass through the student's functions, `reps` launches; `data` is updated in place.
static Run run_student_code(std::vector<float> &data, int block_size, int reps)
{
    int n = static_cast<int>(data.size());
    Run run;
    GpuTimer timer;
    float *device_data = device_alloc(n);
    HostTimer total;
    timer.start();
    copy_to_device(device_data, data.data(), n);
    timer.stop();
    run.h2d_ms = timer.ms();
    for (int rep = 0; rep < reps; ++rep) {
        HostTimer host;
        timer.start();
        launch_increment(device_data, n, block_size);
        timer.stop();
        // Work left running on another stream escapes the events but not this wait; the grader
        // compares the two (grader/timing.py: figure_doubts).
        CUDA_CHECK(cudaDeviceSynchronize());
        run.kernel_host_ms += host.ms();
        run.kernel_ms += timer.ms();
    }
    timer.start();
    copy_to_host(data.data(), device_data, n);
    timer.stop();
    run.d2h_ms = timer.ms();
    run.total_ms = total.ms();
    device_free(device_data);
    return run;
}

// input + k, added one at a time in float, as the GPU does.
static float incremented(float input, int k)
{
    for (int rep = 0; rep < k; ++rep)
        input = input + 1.0f;
    return input;
}

struct Wrong {
    long long count = 0;   // elements that are not input + reps
    long long first = -1;  // the first of them, or -1 if all are right
};

static Wrong wrong_elements(const std::vector<float> &input, const std::vector<float> &output, int reps)
{
    Wrong wrong;
    for (size_t i = 0; i < input.size(); ++i)
        if (output[i] != incremented(input[i], reps)) {
            if (wrong.first < 0)
                wrong.first = static_cast<long long>(i);
            ++wrong.count;
        }
    return wrong;
}

// What a wrong element says about the kernel: never reached, reached too often, or garbage.
static std::string diagnosis(float input, float got, int reps, int n, int block_size)
{
    long long blocks = (static_cast<long long>(n) + block_size - 1) / block_size;
    if (got == input)
        return "never touched: it still holds its input (no thread reached it: the grid needs ceil(n / block) = " +
               std::to_string(blocks) + " blocks)";
    for (int k = 1; k <= 2 * reps + 2; ++k)
        if (k != reps && got == incremented(input, k))
            return "incremented " + std::to_string(k) + " time(s), not " + std::to_string(reps) +
                   (k < reps ? " (a launch that did not reach it, or a copy back before the last one finished?)"
                             : " (two threads on one element, or one thread on two?)");
    return "neither its input nor its input plus a whole number: was it written from another element, "
           "or read from memory that was never copied in?";
}
static double gbps(double bytes, double ms) { return bytes / (ms * 1e6); }

static int checked_run(const Cli &cli, int n, int block_size, LabResult &result)
{
    int reps = static_cast<int>(cli.integer("reps", 1, 1, 1 << 20));
    uint64_t seed = static_cast<uint64_t>(cli.integer("seed", 1, 0, LLONG_MAX));
    std::vector<float> input(n);
    seeded_uniform_floats(input.data(), input.size(), seed);
    std::vector<float> data = input;

    Run run = run_student_code(data, block_size, reps);
    lab_result_ready(data.data(), data.size() * sizeof(float), "the array");
    double bytes = 2.0 * sizeof(float) * n;  // each kernel reads and writes every element once
    std::printf("n = %d, block size = %d, repetitions = %d\n", n, block_size, reps);
    std::printf("kernel: %.4f ms per repetition, %.1f GB/s effective bandwidth\n",
                run.kernel_ms / reps, gbps(bytes, run.kernel_ms / reps));
    std::printf("copies: host->device %.4f ms, device->host %.4f ms; whole run %.3f ms\n",
                run.h2d_ms, run.d2h_ms, run.total_ms);
    result.set("kernel_ms", run.kernel_ms / reps);
    result.set("total_ms", run.total_ms);
    result.set("kernel_host_ms", run.kernel_host_ms / reps);
    result.set("bandwidth_gbps", gbps(bytes, run.kernel_ms / reps));
    result.set("h2d_ms", run.h2d_ms);
    result.set("d2h_ms", run.d2h_ms);

    if (cli.has("out"))
        write_binary_file(cli.str("out", ""), data.data(), data.size() * sizeof(float));
    Wrong wrong = wrong_elements(input, data, reps);
    if (wrong.first >= 0) {
        long long i = wrong.first;
        std::printf("WRONG: %lld of %d elements are off (block size %d); the first, element %lld, "
                    "is %.9g, expected %.9g (input %.9g + %d): %s\n",
                    wrong.count, n, block_size, i, data[i], incremented(input[i], reps), input[i], reps,
                    diagnosis(input[i], data[i], reps, n, block_size).c_str());
        return LAB_EXIT_WRONG;
    }
    std::printf("CORRECT: all %d elements\n", n);
    return LAB_EXIT_OK;
}

// Exercises-1: time per point = whole-run time / (n * reps). As reps doubles, the copies are
// spread over more kernel work and the time per point settles to the kernel's own cost K.
// With T(R) = X + R*K, the 1-repetition and R-repetition runs give K and the copy time X.
static int sweep(int n, int block_size)
{
    std::vector<float> data(n, 0.0f);
    run_student_code(data, block_size, 1);  // warm-up: context, first allocation
    Run one = run_student_code(data, block_size, 1);
    std::printf("%10s %14s %16s\n", "reps", "whole run ms", "ns per point");
    double previous = one.total_ms * 1e6 / n;
    std::printf("%10d %14.3f %16.4f\n", 1, one.total_ms, previous);
    Run last = one;
    int reps = 1;
    for (int next = 2; next <= (1 << 16); next *= 2) {
        last = run_student_code(data, block_size, next);
        reps = next;
        double per_point = last.total_ms * 1e6 / (static_cast<double>(n) * next);
        std::printf("%10d %14.3f %16.4f\n", next, last.total_ms, per_point);
        bool settled = std::fabs(per_point - previous) < 0.02 * previous;
        previous = per_point;
        if (settled && next >= 8)
            break;
    }
    double kernel_ms = (last.total_ms - one.total_ms) / (reps - 1);
    double copy_ms = one.total_ms - kernel_ms;
    double bytes = 2.0 * sizeof(float) * n;  // one copy in, one copy out
    std::printf("solved: kernel %.4f ms a repetition, copies %.4f ms, transfer rate %.2f GB/s\n",
                kernel_ms, copy_ms, gbps(bytes, copy_ms));
    std::printf("measured copies in the 1-repetition run: %.4f ms (%.2f GB/s)\n",
                one.h2d_ms + one.d2h_ms, gbps(bytes, one.h2d_ms + one.d2h_ms));
    return LAB_EXIT_OK;
}

static int transfer(int n, LabResult &result)
{
    size_t bytes = sizeof(float) * static_cast<size_t>(n);
    std::vector<float> pageable(n, 1.0f);
    float *pinned = nullptr, *device_data = nullptr;
    CUDA_CHECK(cudaMallocHost((void **)&pinned, bytes));
    CUDA_CHECK(cudaMalloc((void **)&device_data, bytes));
    std::fill(pinned, pinned + n, 1.0f);
    CUDA_CHECK(cudaMemcpy(device_data, pinned, bytes, cudaMemcpyHostToDevice));  // warm-up

    struct Row { const char *name; float *host; };
    std::printf("%-10s %18s %18s   (%zu bytes, median of 5)\n", "host memory", "host->device GB/s",
                "device->host GB/s", bytes);
    for (Row row : {Row{"pageable", pageable.data()}, Row{"pinned", pinned}}) {
        double h2d = gbps(bytes, median_copy_ms(device_data, row.host, bytes, cudaMemcpyHostToDevice, 5));
        double d2h = gbps(bytes, median_copy_ms(row.host, device_data, bytes, cudaMemcpyDeviceToHost, 5));
        std::printf("%-10s %18.2f %18.2f\n", row.name, h2d, d2h);
        result.set(std::string(row.name) + "_h2d_gbps", h2d);
        result.set(std::string(row.name) + "_d2h_gbps", d2h);
    }
    CUDA_CHECK(cudaFree(device_data));
    CUDA_CHECK(cudaFreeHost(pinned));
    return LAB_EXIT_OK;
}

// The student's kernel against the machine's own ceiling, a device-to-device copy of the same
// bytes, measured in the same process.
static int bench(int n, int block_size, LabResult &result)
{
    std::vector<float> data(n, 0.0f);
    run_student_code(data, block_size, 1);  // warm-up
    int reps = 20;
    Run run = run_student_code(data, block_size, reps);
    double bytes = 2.0 * sizeof(float) * n;
    double kernel_gbps = gbps(bytes, run.kernel_ms / reps);
    double copy_gbps = copy_ceiling_gbps(sizeof(float) * static_cast<size_t>(n), 20);
    std::printf("n = %d floats, block %d: kernel %.4f ms, %.1f GB/s; device-to-device copy %.1f GB/s; "
                "ratio %.3f\n", n, block_size, run.kernel_ms / reps, kernel_gbps, copy_gbps,
                kernel_gbps / copy_gbps);
    result.set("kernel_ms", run.kernel_ms / reps);
    result.set("bandwidth_gbps", kernel_gbps);
    result.set("copy_gbps", copy_gbps);
    result.set("ratio_to_copy", kernel_gbps / copy_gbps);
    return LAB_EXIT_OK;
}

// Exercises-1: "compare performance with the host". The increment as a plain loop on one CPU core,
// timed on the host clock (the median of R repetitions after a warm-up); no GPU is touched, so
// the figure is the host's own, even in an emulator build.
static int cpu_baseline(int n, int reps, LabResult &result)
{
    std::vector<float> data(n, 0.0f);
    std::vector<double> times;
    for (int rep = 0; rep <= reps; ++rep) {  // rep 0 is the warm-up: first touch of the pages
        HostTimer timer;
        for (int i = 0; i < n; ++i)
            data[i] += 1.0f;
        if (rep > 0)
            times.push_back(timer.ms());
    }
    if (data[n - 1] != static_cast<float>(reps + 1))
        throw LabError("the host loop's result is wrong: element " + std::to_string(n - 1) + " is " +
                       std::to_string(data[n - 1]) + ", expected " + std::to_string(reps + 1));
    double ms = median(times);
    double bytes = 2.0 * sizeof(float) * n;
    std::printf("host loop (one CPU core): n = %d, %.4f ms per repetition (median of %d), %.1f GB/s\n",
                n, ms, reps, gbps(bytes, ms));
    result.set("cpu_ms", ms);
    result.set("cpu_gbps", gbps(bytes, ms));
    return LAB_EXIT_OK;
}

static int increment_main(int argc, char **argv)
{
    Cli cli(argc, argv, {"sweep", "transfer", "bench", "cpu"}, kUsage);
    cli.allow_only({"n", "block", "reps", "seed", "out", "sweep", "transfer", "bench", "cpu"});
    if (!cli.has("n") || !cli.positional().empty())
        throw LabError(std::string("usage: ") + kUsage);
    int n = static_cast<int>(cli.integer("n", 0, 1, INT_MAX));
    int block_size = static_cast<int>(cli.integer("block", 256, 1, 1 << 20));
    if (cli.has("cpu")) {
        int reps = static_cast<int>(cli.integer("reps", 5, 1, 1 << 20));
        return with_result("increment", "host CPU (one core)",
                           [&](LabResult &result) { return cpu_baseline(n, reps, result); });
    }
    cudaDeviceProp prop = require_gpu("increment");
    std::printf("device: %s\n", prop.name);
    return with_result("increment", prop.name, [&](LabResult &result) {
        if (cli.has("sweep"))
            return sweep(n, block_size);
        if (cli.has("transfer"))
            return transfer(n, result);
        if (cli.has("bench"))
            return bench(n, block_size, result);
        return checked_run(cli, n, block_size, result);
    });
}

int main(int argc, char **argv) { return run_lab_main("increment", increment_main, argc, argv); }
