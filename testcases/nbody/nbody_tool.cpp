// The nbody lab's testcase maker, built with g++ by gen.py (python3 testcases/nbody/gen.py builds
// and runs it from the command line too). It shares the generators and the file forms with the
// lab's harness (labs/nbody/body_gen.h, bodies.h) and its float64 all-pairs sums with the
// harness's check (labs/nbody/reference.h), and nothing with the GPU code it helps to grade.
//
//   nbody_tool bodies --dist cube|lattice --n N [--seed S] [--moving 0|1] --out FILE
//   nbody_tool expected INPUT [--softening EPS] --out FILE
//        the accelerations by float64 all-pairs sums, rounded to float32: n float4 (ax, ay, az, 0)
//   nbody_tool check INPUT ACC [--softening EPS]
//        the harness's check of an acceleration file (exit 0: right, 1: wrong, with the reason)
#include <climits>
#include <cstdio>
#include <string>
#include <vector>

#include "binfile.h"
#include "bodies.h"
#include "body_gen.h"
#include "cli.h"
#include "exit_codes.h"
#include "lab_error.h"
#include "real_option.h"
#include "reference.h"

static const char *kUsage =
    "nbody_tool bodies --dist cube|lattice --n N [--seed S] [--moving 0|1] --out FILE\n"
    "       nbody_tool expected INPUT [--softening EPS] --out FILE\n"
    "       nbody_tool check INPUT ACC [--softening EPS]";

static const double kDefaultSoftening = 0.05;  // the harness's default (labs/nbody/main.cpp)

static std::string required(const Cli &cli, const std::string &name)
{
    if (!cli.has(name))
        throw LabError("--" + name + " is required\nusage: " + std::string(kUsage));
    return cli.str(name, "");
}

static int tool_main(int argc, char **argv)
{
    Cli cli(argc, argv, {}, kUsage);
    cli.allow_only({"dist", "n", "seed", "moving", "softening", "out"});
    const std::vector<std::string> &args = cli.positional();
    std::string command = args.empty() ? "" : args[0];
    if (command == "bodies" && args.size() == 1) {
        Bodies b = make_bodies(required(cli, "dist"), static_cast<int>(cli.integer("n", 0, 1, kMaxBodies)),
                               static_cast<uint64_t>(cli.integer("seed", 1, 0, LLONG_MAX)),
                               cli.integer("moving", 0, 0, 1) == 1);
        write_bodies(required(cli, "out"), b);
        return LAB_EXIT_OK;
    }
    double eps = real_option(cli, "softening", kDefaultSoftening, 1e-4, 100);
    if (command == "expected" && args.size() == 2) {
        Bodies b = read_bodies(args[1]);
        ForceReference ref = reference_forces(b, softening_squared(eps), 1);
        if (!ref.every_body())
            throw LabError(args[1] + ": " + std::to_string(b.n()) + " bodies is past what the tool sums on the "
                           "CPU (2^28 interactions); make a smaller case");
        std::vector<Body> acc(b.n());
        for (int i = 0; i < b.n(); ++i)
            acc[i] = Body{float(ref.acc[3 * i]), float(ref.acc[3 * i + 1]), float(ref.acc[3 * i + 2]), 0.0f};
        std::string out = required(cli, "out");
        write_binary_file(out, acc.data(), acc.size() * sizeof(Body));
        return LAB_EXIT_OK;
    }
    if (command == "check" && args.size() == 3) {
        Bodies b = read_bodies(args[1]);
        BinaryFile file(args[2]);
        if (file.size() != b.pos.size() * sizeof(Body))
            throw LabError(args[2] + ": " + std::to_string(file.size()) + " bytes; " + std::to_string(b.n()) +
                           " accelerations are " + std::to_string(b.pos.size() * sizeof(Body)));
        std::vector<Body> acc(b.n());
        const int32_t *words = file.next_i32_array(acc.size() * 4, "the accelerations");
        std::copy(reinterpret_cast<const Body *>(words), reinterpret_cast<const Body *>(words) + acc.size(),
                  acc.begin());
        ForceReference ref = reference_forces(b, softening_squared(eps), 1);
        ForceCheck c = check_forces(ref, acc.data(), 0);
        if (c.wrong == 0) {
            std::printf("CORRECT: %s within (n + 32) u of the float64 sums; worst error %.0f%% of the bound\n",
                        ref.describe().c_str(), 100 * c.worst);
            return LAB_EXIT_OK;
        }
        std::printf("WRONG: %zu of %zu entries; the first, body %d axis %d, is %.9g, expected %.9g (allowed %.3g)\n",
                    c.wrong, c.checked, c.first_body, c.first_axis, c.first_got, c.first_want, c.first_allowed);
        return LAB_EXIT_WRONG;
    }
    throw LabError("usage: " + std::string(kUsage));
}

int main(int argc, char **argv) { return run_lab_main("nbody_tool", tool_main, argc, argv); }
