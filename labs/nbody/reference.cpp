#include "reference.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "seeded.h"

static const double kUnitRoundoff = 1.0 / 16777216.0;  // 2^-24
static const double kFullCheckWork = 268435456.0;      // 2^28 interactions
static const int kSampledBodies = 256;

double nbody_rtol(int n) { return (n + 32) * kUnitRoundoff; }

float softening_squared(double eps)
{
    float e = static_cast<float>(eps);
    return e * e;
}

std::string ForceReference::describe() const
{
    if (every_body())
        return "all " + std::to_string(n) + " bodies";
    return std::to_string(bodies.size()) + " of " + std::to_string(n) +
           " bodies (the first, the last and others drawn from the seed)";
}

static std::vector<int> sample_bodies(int n, uint64_t seed)
{
    std::set<int> chosen = {0, n - 1};
    uint64_t state = seed ^ 0x626f646965ull;  // "bodie"
    while (static_cast<int>(chosen.size()) < std::min(n, kSampledBodies))
        chosen.insert(static_cast<int>(splitmix64_next(&state) % static_cast<uint64_t>(n)));
    return std::vector<int>(chosen.begin(), chosen.end());
}

ForceReference reference_forces(const Bodies &b, float softening2, uint64_t seed)
{
    ForceReference ref;
    ref.n = b.n();
    if (static_cast<double>(ref.n) * ref.n <= kFullCheckWork) {
        for (int i = 0; i < ref.n; ++i)
            ref.bodies.push_back(i);
    } else {
        ref.bodies = sample_bodies(ref.n, seed);
    }
    ref.acc.assign(3 * ref.bodies.size(), 0.0);
    ref.scale.assign(3 * ref.bodies.size(), 0.0);
    const double eps2 = softening2;
    for (size_t k = 0; k < ref.bodies.size(); ++k) {
        const Body &p = b.pos[ref.bodies[k]];
        double acc[3] = {0, 0, 0}, scale[3] = {0, 0, 0};
        for (const Body &q : b.pos) {
            double d[3] = {double(q.x) - p.x, double(q.y) - p.y, double(q.z) - p.z};
            double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
            double s = q.w / (r2 * std::sqrt(r2));
            for (int c = 0; c < 3; ++c) {
                acc[c] += s * d[c];
                scale[c] += std::fabs(s * d[c]);
            }
        }
        for (int c = 0; c < 3; ++c) {
            ref.acc[3 * k + c] = acc[c];
            ref.scale[3 * k + c] = scale[c];
        }
    }
    return ref;
}

ForceCheck check_forces(const ForceReference &ref, const Body *acc, int block)
{
    ForceCheck result;
    const double rtol = nbody_rtol(ref.n);
    const int edge = block > 0 ? ref.n / block * block : ref.n;
    auto wrong = [&](int body, int axis, double got, double want, double allowed) {
        result.worst = INFINITY;
        if (result.wrong++ == 0) {
            result.first_body = body;
            result.first_axis = axis;
            result.first_got = got;
            result.first_want = want;
            result.first_allowed = allowed;
        }
        if (std::isnan(got))
            ++result.wrong_nan;
        if (body < edge)
            ++result.wrong_interior;
    };
    for (size_t k = 0; k < ref.bodies.size(); ++k) {
        int body = ref.bodies[k];
        const Body &a = acc[body];
        double got[3] = {a.x, a.y, a.z};
        for (int c = 0; c < 3; ++c) {
            ++result.checked;
            double want = ref.acc[3 * k + c], allowed = rtol * ref.scale[3 * k + c];
            double error = std::fabs(got[c] - want);
            if (error <= allowed) {  // false for NaN
                if (allowed > 0)
                    result.worst = std::max(result.worst, error / allowed);
                continue;
            }
            wrong(body, c, got[c], want, allowed);
        }
        ++result.checked;
        if (a.w != 0.0f)  // NaN included
            wrong(body, 3, a.w, 0.0, 0.0);
    }
    return result;
}

static const char *kAxis[] = {"x", "y", "z"};

StepCheck check_step(const Bodies &before, const Body *acc, const Bodies &after, float dt)
{
    StepCheck result;
    const double u4 = 4 * kUnitRoundoff;
    size_t wrong_positions = 0, explicit_positions = 0;
    auto wrong = [&](int body, const std::string &what, double got, double want) {
        if (result.wrong++ == 0) {
            result.first_body = body;
            result.first_what = what;
            result.first_got = got;
            result.first_want = want;
        }
    };
    for (int i = 0; i < before.n(); ++i) {
        const Body &p = before.pos[i], &v = before.vel[i], &a = acc[i], &p1 = after.pos[i], &v1 = after.vel[i];
        double x[3] = {p.x, p.y, p.z}, vel[3] = {v.x, v.y, v.z}, ac[3] = {a.x, a.y, a.z};
        double x1[3] = {p1.x, p1.y, p1.z}, vel1[3] = {v1.x, v1.y, v1.z};
        bool position_wrong = false, explicit_ok = true;
        for (int c = 0; c < 3; ++c) {
            double want_v = vel[c] + ac[c] * dt;
            double allowed_v = u4 * (std::fabs(vel[c]) + std::fabs(ac[c] * dt));
            if (!(std::fabs(vel1[c] - want_v) <= allowed_v))
                wrong(i, std::string("velocity ") + kAxis[c], vel1[c], want_v);
            double want_x = x[c] + want_v * dt;
            double allowed_x = u4 * (std::fabs(x[c]) + std::fabs(want_v * dt)) + allowed_v * std::fabs(dt);
            if (!(std::fabs(x1[c] - want_x) <= allowed_x)) {
                wrong(i, std::string("position ") + kAxis[c], x1[c], want_x);
                position_wrong = true;
            }
            double old_v_x = x[c] + vel[c] * dt;  // explicit Euler: moved with the old velocity
            if (!(std::fabs(x1[c] - old_v_x) <= u4 * (std::fabs(x[c]) + std::fabs(vel[c] * dt))))
                explicit_ok = false;
        }
        if (position_wrong) {
            ++wrong_positions;
            explicit_positions += explicit_ok;
        }
        if (p1.w != p.w)
            wrong(i, "mass (pos.w)", p1.w, p.w);
        if (v1.w != v.w)
            wrong(i, "vel.w", v1.w, v.w);
    }
    result.explicit_euler = wrong_positions > 0 && explicit_positions == wrong_positions;
    return result;
}
