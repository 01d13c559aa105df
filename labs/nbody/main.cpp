// Lab 6 harness: reads the bodies (or makes them, for --bench), runs one of the student's force
// kernels (nbody.h), times it, then one step of the bodies; checks both against float64 and
// writes the results. The student never edits this.
//
//   nbody INPUT [--kernel naive|tiled] [--block B] [--softening EPS] [--dt DT] [--reps R]
//         [--out FILE] [--state-out FILE] [--no-check]
//       one checked run: a warm-up launch of the force kernel, then R timed ones (the median is
//       reported), then nbody_integrate once. INPUT is a bodies file (bodies.h: binary, or text
//       when its name ends in .txt). --out: the accelerations, n float4 (ax, ay, az, 0), raw
//       little-endian, no header; --state-out: the bodies after the step, in the binary form.
//       B is the block of the naive kernel and the tile p of the tiled one (default 256).
//   nbody --bench [--n N] [--reps R]
//       the reference's kernels on generated bodies (a cube, n = 1024 ... 262144, or N), in
//       interactions per second and as a fraction of the GPU's FP32 peak (20 flops an
//       interaction, as [Nyland et al. 2007] count them).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "binfile.h"
#include "bodies.h"
#include "body_gen.h"
#include "cli.h"
#include "device.h"
#include "device_memory.h"
#include "fp32_peak.h"
#include "host_timer.h"
#include "lab_error.h"
#include "nbody.h"
#include "profile_output.h"
#include "real_option.h"
#include "reference.h"
#include "result.h"
#include "timed_runs.h"

static const char *kUsage =
    "nbody INPUT [--kernel naive|tiled] [--block B] [--softening EPS] [--dt DT] [--reps R] [--out FILE] "
    "[--state-out FILE] [--no-check]\n"
    "       nbody --bench [--n N] [--reps R]";

static const double kFlopsPerInteraction = 20;  // [Nyland et al. 2007]'s count for bodyBodyInteraction
static const double kDefaultSoftening = 0.05, kDefaultDt = 0.01;

// ---- the kernels ---------------------------------------------------------------------------

enum class Kernel { Naive, Tiled };

static Kernel parse_kernel(const std::string &name)
{
    if (name == "naive")
        return Kernel::Naive;
    if (name == "tiled")
        return Kernel::Tiled;
    throw LabError("--kernel " + name + " names no kernel; the kernels are: naive, tiled");
}

static const char *kernel_name(Kernel k) { return k == Kernel::Naive ? "naive" : "tiled"; }

static void launch_forces(Kernel k, const float4 *pos, float4 *acc, int n, float softening2, int block)
{
    if (k == Kernel::Naive)
        nbody_forces_naive(pos, acc, n, softening2, block);
    else
        nbody_forces_tiled(pos, acc, n, softening2, block);
}

// ---- device arrays -------------------------------------------------------------------------

struct DeviceBodies {
    static_assert(sizeof(Body) == sizeof(float4), "a Body is laid out as a float4");
    DeviceMemory memory;  // frees pos, vel and acc
    int n;
    size_t bytes;
    float4 *pos, *vel, *acc;

    explicit DeviceBodies(const Bodies &b)
        : n(b.n()), bytes(sizeof(float4) * b.pos.size()),
          pos(memory.copy_of<float4>(b.pos.data(), b.pos.size())),
          vel(memory.copy_of<float4>(b.vel.data(), b.vel.size())), acc(memory.alloc<float4>(b.pos.size()))
    {
    }

    // All bits set is a NaN: an acceleration no kernel writes stays NaN and fails the check.
    void poison_acc() { CUDA_CHECK(cudaMemset(acc, 0xFF, bytes)); }
    std::vector<Body> copy_acc() const
    {
        std::vector<Body> host(n);
        CUDA_CHECK(cudaMemcpy(host.data(), acc, bytes, cudaMemcpyDeviceToHost));
        lab_result_ready(host.data(), bytes, "the accelerations");
        return host;
    }
    Bodies copy_state() const
    {
        Bodies host;
        host.pos.resize(n);
        host.vel.resize(n);
        CUDA_CHECK(cudaMemcpy(host.pos.data(), pos, bytes, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(host.vel.data(), vel, bytes, cudaMemcpyDeviceToHost));
        // x, y, z of each float4: the step leaves pos.w (the mass) and vel.w as they were.
        lab_result_rows_ready(host.pos.data(), sizeof(Body), 3 * sizeof(float), n, "the positions after the step");
        lab_result_rows_ready(host.vel.data(), sizeof(Body), 3 * sizeof(float), n, "the velocities after the step");
        return host;
    }
};

// ---- timing --------------------------------------------------------------------------------

static double interactions(int n) { return static_cast<double>(n) * n; }

// ---- one checked run -----------------------------------------------------------------------

static const char *kAxisNames[] = {"ax", "ay", "az", "w"};

// The check's verdict, one line the grader quotes (it keeps the last 200 characters of the
// output): WRONG lines are printed last, and the hints before them.
static std::string forces_verdict(const ForceCheck &c, const ForceReference &ref, Kernel kernel, int block)
{
    int n = ref.n;
    char line[400];
    if (c.wrong == 0) {
        std::snprintf(line, sizeof line, "CORRECT (%s forces): %s within (n + 32) u = %.3g of the float64 sums, "
                      "relative to each component's sum of |contributions|; worst error %.0f%% of that bound",
                      kernel_name(kernel), ref.describe().c_str(), nbody_rtol(n), 100 * c.worst);
        return line;
    }
    std::printf("  the bound: each component within (n + 32) u = %.3g times the sum of its |contributions|; a "
                "source or a tile left out, or counted twice, is far more\n", nbody_rtol(n));
    if (c.wrong_nan == c.wrong)
        std::printf("  every wrong entry is NaN: never written (the harness fills acc with NaN before the kernel "
                    "runs)\n");
    if (c.wrong_interior == 0 && n % block)
        std::printf("  every wrong body is among the last n %% %d = %d: does the grid round n / %d up%s?\n", block,
                    n % block, block, kernel == Kernel::Tiled ? ", and is the last tile's edge guarded" : "");
    char got[32];
    std::snprintf(got, sizeof got, std::isnan(c.first_got) ? "NaN" : "%.9g", c.first_got);
    // Far past the bound with every entry a number: terms left out or added twice, not rounding.
    bool far = c.worst >= 100 && c.wrong_nan == 0;
    if (c.first_axis == 3)
        std::snprintf(line, sizeof line, "WRONG (%s forces): acc[%d].w is %s, write 0 there; %zu of %zu entries "
                      "wrong", kernel_name(kernel), c.first_body, got, c.wrong, c.checked);
    else
        std::snprintf(line, sizeof line, "WRONG (%s forces): body %d's %s is %s, expected %.9g (allowed error "
                      "%.3g); %zu of %zu entries wrong%s", kernel_name(kernel), c.first_body,
                      kAxisNames[c.first_axis], got, c.first_want, c.first_allowed, c.wrong, c.checked,
                      far ? "; far past rounding: a source or tile left out or counted twice" : "");
    return line;
}

static std::string step_verdict(const StepCheck &s, int n, float dt)
{
    char line[400];
    if (s.wrong == 0) {
        std::snprintf(line, sizeof line, "CORRECT (step): all %d bodies moved by v += a dt, x += v dt (dt = %g)", n,
                      dt);
        return line;
    }
    std::printf("  the step is vel += acc * dt, then pos += vel * dt with the NEW velocity, x, y, z only; "
                "masses and vel.w stay%s\n", s.explicit_euler ? " (yours moved each body with its old velocity)" : "");
    std::snprintf(line, sizeof line, "WRONG (step): body %d's %s is %.9g, expected %.9g; %zu entries wrong%s",
                  s.first_body, s.first_what.c_str(), s.first_got, s.first_want, s.wrong,
                  s.explicit_euler ? "; moved with the old velocity?" : "");
    return line;
}

struct RunOptions {
    std::string input, out, state_out;
    Kernel kernel;
    int block, reps;  // reps 0: the default (5 on a GPU, 1 under emulation)
    double softening, dt;
    bool check;
};

static RunOptions parse_run_options(const Cli &cli)
{
    if (cli.positional().size() != 1)
        throw LabError(std::string("give one bodies file (or --bench)\nusage: ") + kUsage);
    RunOptions o;
    o.input = cli.positional()[0];
    o.out = cli.str("out", "");
    o.state_out = cli.str("state-out", "");
    o.kernel = parse_kernel(cli.str("kernel", "naive"));
    o.block = static_cast<int>(cli.integer("block", 256, 1, 1024));
    o.reps = static_cast<int>(cli.integer("reps", 0, 1, 100000));
    o.softening = real_option(cli, "softening", kDefaultSoftening, 1e-4, 100);
    o.dt = real_option(cli, "dt", kDefaultDt, 0, 100);
    o.check = !cli.has("no-check");
    return o;
}

static int checked_run(const RunOptions &o, LabResult &result, bool emulated)
{
    Bodies bodies = read_bodies(o.input);
    int n = bodies.n(), reps = o.reps ? o.reps : (emulated ? 1 : 5);
    float softening2 = softening_squared(o.softening), dt = static_cast<float>(o.dt);
    // The emulator does some 10^7 interactions a second: say so when a run takes minutes.
    if (emulated && interactions(n) * (reps + 1) > 1e9)
        std::printf("note: CPU emulation: n = %d with %d repetition(s) is about %.0f s of emulated kernels here; "
                    "--reps 1 or fewer bodies take seconds\n", n, reps, interactions(n) * (reps + 1) / 1e7);
    std::fflush(stdout);

    HostTimer total;
    DeviceBodies d(bodies);
    d.poison_acc();
    Timing timing = time_runs([&] { launch_forces(o.kernel, d.pos, d.acc, n, softening2, o.block); }, reps);
    std::vector<Body> acc = d.copy_acc();
    nbody_integrate(d.pos, d.vel, d.acc, n, dt);
    CUDA_CHECK(cudaDeviceSynchronize());
    Bodies after = d.copy_state();
    double total_ms = total.ms();

    double rate = interactions(n) / (timing.ms * 1e-3);
    std::printf("kernel %s, n = %d, %s %d, median of %d launches after a warm-up\n", kernel_name(o.kernel), n,
                o.kernel == Kernel::Naive ? "block" : "tile p =", o.block, timing.reps);
    std::printf("forces: %.4f ms, %.3g interactions/s, %.1f GFLOP/s (20 flops an interaction); whole run %.3f ms\n",
                timing.ms, rate, rate * kFlopsPerInteraction / 1e9, total_ms);
    result.set("kernel_ms", timing.ms);
    result.set("kernel_host_ms", timing.host_ms);
    result.set("total_ms", total_ms);
    result.set("interactions_per_s", rate);
    result.note("kernel", kernel_name(o.kernel));
    result.note("block", std::to_string(o.block));

    if (!o.out.empty())
        write_binary_file(o.out, acc.data(), acc.size() * sizeof(Body));
    if (!o.state_out.empty())
        write_bodies(o.state_out, after);
    if (!o.check)
        return LAB_EXIT_OK;
    ForceReference ref = reference_forces(bodies, softening2, 1);
    ForceCheck forces = check_forces(ref, acc.data(), o.block);
    result.set("checked_entries", static_cast<double>(forces.checked));
    result.set("wrong_entries", static_cast<double>(forces.wrong));
    // The step is checked from the kernel's own accelerations: a wrong force is reported once.
    StepCheck step = check_step(bodies, acc.data(), after, dt);
    std::string verdicts[2] = {forces_verdict(forces, ref, o.kernel, o.block), step_verdict(step, n, dt)};
    if (step.wrong && !forces.wrong)
        std::swap(verdicts[0], verdicts[1]);  // the WRONG one last
    std::printf("%s\n%s\n", verdicts[0].c_str(), verdicts[1].c_str());
    return forces.wrong == 0 && step.wrong == 0 ? LAB_EXIT_OK : LAB_EXIT_WRONG;
}

// ---- the bench: naive and tiled against the FP32 peak ---------------------------------------

struct BenchKernel {
    Kernel kernel;
    int block;
    std::string label() const { return std::string(kernel_name(kernel)) + "_" + std::to_string(block); }
};

static int bench(const Cli &cli, LabResult &result, bool emulated)
{
    std::vector<int> sizes = {1024, 4096, 16384, 65536, 262144};
    if (cli.has("n"))
        sizes = {static_cast<int>(cli.integer("n", 0, 1, kMaxBodies))};
    int reps = static_cast<int>(cli.integer("reps", emulated ? 1 : 0, 1, 100000));
    const std::vector<BenchKernel> kernels = {{Kernel::Naive, 256}, {Kernel::Tiled, 32}, {Kernel::Tiled, 128},
                                              {Kernel::Tiled, 256}, {Kernel::Tiled, 1024}};
    Fp32Peak peak;
    if (emulated) {
        std::printf("CPU emulation: no FP32 peak to measure; the rates are the emulator's\n");
    } else {
        peak = measure_fp32_peak();
        std::printf("FP32 peak: %d SMs x %d lanes x 2 flops x %.0f MHz = %.1f GFLOP/s; a kernel of nothing but "
                    "fused multiply-adds reaches %.1f GFLOP/s (%.2f of peak)\n",
                    peak.sms, peak.lanes_per_sm, peak.clock_mhz, peak.peak_gflops, peak.fma_gflops,
                    peak.fma_gflops / peak.peak_gflops);
        result.set("sms", peak.sms);
        result.set("clock_mhz", peak.clock_mhz);
        result.set("peak_gflops", peak.peak_gflops);
        result.set("fma_gflops", peak.fma_gflops);
    }
    std::printf("interactions/s = n^2 / median kernel time; GFLOP/s = 20 x that; err/bound: the largest error "
                "over the allowed (n + 32) u sum_j |contribution|\n");
    std::printf("%7s  %-12s %10s %12s %10s %8s %10s\n", "n", "kernel", "ms", "Ginter/s", "GFLOP/s", "of peak",
                "err/bound");
    bool all_right = true;
    double softening2 = softening_squared(kDefaultSoftening);
    for (int n : sizes) {
        Bodies bodies = make_bodies("cube", n, 1, false);
        ForceReference ref = reference_forces(bodies, softening2, 1);
        DeviceBodies d(bodies);
        for (const BenchKernel &k : kernels) {
            d.poison_acc();
            double ms = time_runs([&] { launch_forces(k.kernel, d.pos, d.acc, n, softening2, k.block); }, reps).ms;
            std::vector<Body> acc = d.copy_acc();
            ForceCheck check = check_forces(ref, acc.data(), 0);
            double rate = interactions(n) / (ms * 1e-3), gflops = rate * kFlopsPerInteraction / 1e9;
            double fraction = emulated ? 0 : gflops / peak.peak_gflops;
            std::printf("%7d  %-12s %10.3f %12.1f %10.1f %8.3f %10.2f%s\n", n, k.label().c_str(), ms, rate / 1e9,
                        gflops, fraction, check.worst, check.wrong ? "  WRONG" : "");
            std::string key = k.label() + "_" + std::to_string(n);
            result.set(key + "_ginteractions", rate / 1e9);
            if (!emulated)
                result.set(key + "_of_peak", fraction);
            all_right = all_right && check.wrong == 0;
        }
        std::fflush(stdout);
    }
    return bench_status(all_right, "a kernel's accelerations");
}

static int nbody_main(int argc, char **argv)
{
    Cli cli(argc, argv, {"bench", "no-check"}, kUsage);
    cli.allow_only({"kernel", "block", "softening", "dt", "reps", "out", "state-out", "no-check", "bench", "n"});
    bool bench_mode = cli.has("bench");
    RunOptions options;
    if (bench_mode) {
        if (!cli.positional().empty())
            throw LabError("--bench makes its own bodies: give no input file\nusage: " + std::string(kUsage));
        cli.integer("n", 0, 1, kMaxBodies);  // checked here, used by bench()
    } else {
        if (cli.has("n"))
            throw LabError("--n goes with --bench; a checked run reads its bodies from INPUT\nusage: " +
                           std::string(kUsage));
        options = parse_run_options(cli);
    }
    cudaDeviceProp prop = require_gpu("nbody");
    bool emulated = is_emulated(prop);
    std::printf("device: %s\n", prop.name);
    return with_result("nbody", prop.name, [&](LabResult &result) {
        return bench_mode ? bench(cli, result, emulated) : checked_run(options, result, emulated);
    });
}

int main(int argc, char **argv) { return run_lab_main("nbody", nbody_main, argc, argv); }
