#include "body_gen.h"

#include <cmath>
#include <vector>

#include "lab_error.h"
#include "seeded.h"

const char *body_dists() { return "cube|lattice"; }

static Bodies cube(int n, uint64_t seed)
{
    std::vector<float> u(static_cast<size_t>(n) * 4);
    seeded_uniform_floats(u.data(), u.size(), seed);
    Bodies b;
    for (int i = 0; i < n; ++i) {
        const float *r = &u[static_cast<size_t>(i) * 4];
        // 2u - 1 is exact for u a multiple of 2^-24: the positions are the same on every machine.
        b.pos.push_back(Body{2 * r[0] - 1, 2 * r[1] - 1, 2 * r[2] - 1, (0.5f + r[3]) / n});
    }
    return b;
}

static Bodies lattice(int n)
{
    int k = 1;
    while (static_cast<long long>(k) * k * k < n)
        ++k;
    Bodies b;
    for (int i = 0; i < n; ++i) {
        int cell[3] = {i % k, i / k % k, i / k / k};
        float xyz[3];
        for (int d = 0; d < 3; ++d)  // cell centres, symmetric about 0: (2c + 1) / k - 1
            xyz[d] = static_cast<float>((2.0 * cell[d] + 1) / k - 1);
        b.pos.push_back(Body{xyz[0], xyz[1], xyz[2], 1.0f / n});
    }
    return b;
}

Bodies make_bodies(const std::string &dist, int n, uint64_t seed, bool moving)
{
    if (n < 1 || n > kMaxBodies)
        throw LabError("--n " + std::to_string(n) + ": the lab takes 1 to " + std::to_string(kMaxBodies) + " bodies");
    Bodies b;
    if (dist == "cube")
        b = cube(n, seed);
    else if (dist == "lattice")
        b = lattice(n);
    else
        throw LabError("--dist " + dist + " names no distribution; use one of " + body_dists());
    b.vel.assign(static_cast<size_t>(n), Body{0, 0, 0, 0});
    if (moving) {
        std::vector<float> u(static_cast<size_t>(n) * 3);
        seeded_uniform_floats(u.data(), u.size(), seed ^ 0x76656cull);  // "vel": a stream of its own
        for (int i = 0; i < n; ++i)
            b.vel[i] = Body{u[3 * i] - 0.5f, u[3 * i + 1] - 0.5f, u[3 * i + 2] - 0.5f, 0};
    }
    return b;
}
