// The float64 reference the harness checks the accelerations and the step against, and the
// tolerance it allows. Plain C++, no CUDA: the testcase tool computes expected outputs with it.
//
// The bound. Each component of a_i is a sum of n terms t_j = m_j d_j / (|d|^2 + eps^2)^(3/2)
// (d = p_j - p_i, one component of it). Computed in float32 in any order, with or without
// fused multiply-adds, each term carries a relative error of a few units of roundoff u = 2^-24
// (the difference d: 1; |d|^2 + eps^2: 4; the cube and the reciprocal square root, rsqrtf's
// 2 ulp included: about 12; the products: 3), and adding n terms in any order adds at most
// (n - 1) u times the sum of their magnitudes (Higham, Accuracy and Stability of Numerical
// Algorithms, 2nd ed., section 4.2). So
//     |computed - exact| <= (n + 32) u * sum_j |t_j|.
// The scale is the sum of |contributions| of the body's component, not |sum|: forces cancel
// (a body in the middle of a symmetric cluster feels none at all), and a sum near zero is as
// accurate as its terms allow, not more. A result missing a tile of sources, or one body, is off
// by far more than that bound (tests/nbody/test_nbody_tolerance.py shows it on every public case).
//
// Small n is checked body by body; past n = 16384 (2^28 interactions on the CPU) the harness
// checks 256 bodies: the first, the last and others drawn from the seed, and says so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bodies.h"

// The tolerance factor: |error| <= nbody_rtol(n) * sum_j |t_j|, each component.
double nbody_rtol(int n);

// eps^2 as the kernels get it: the float32 square of the float32 softening length. The
// reference uses this very float, so both sides add the same eps^2.
float softening_squared(double eps);

struct ForceReference {
    int n = 0;
    std::vector<int> bodies;   // the destination bodies computed: all, or a sample
    std::vector<double> acc;   // 3 a body: ax, ay, az
    std::vector<double> scale; // 3 a body: sum_j |t_j| of each component
    bool every_body() const { return static_cast<int>(bodies.size()) == n; }
    std::string describe() const;  // "all 100 bodies" or "256 of 65536 bodies (the first, the last, ...)"
};

// The accelerations of `bodies` (all when n^2 <= 2^28, else a sample chosen by `seed`).
ForceReference reference_forces(const Bodies &bodies, float softening2, uint64_t seed);

struct ForceCheck {
    size_t checked = 0, wrong = 0;
    size_t wrong_nan = 0;      // wrong entries that are NaN: never written (acc starts as NaN)
    size_t wrong_interior = 0; // wrong entries of bodies below (n / block) * block
    int first_body = -1, first_axis = -1;  // axis 3: the w, which must be 0
    double first_got = 0, first_want = 0, first_allowed = 0;
    double worst = 0;          // largest |error| / allowed: <= 1 when right
};

// Compares acc (n float4) with the reference. block: the launch's block size, for the hint
// that the grid left the last bodies out (0: no hint).
ForceCheck check_forces(const ForceReference &reference, const Body *acc, int block);

struct StepCheck {
    size_t wrong = 0;
    int first_body = -1;
    std::string first_what;    // "position x", "velocity z", "mass", ...
    double first_got = 0, first_want = 0;
    bool explicit_euler = false;  // every wrong position is x + v dt with the old velocity
};

// Checks one step from `before` with the kernels' own accelerations `acc`: v' = v + a dt,
// x' = x + v' dt, each within 4 u of its terms' magnitudes; masses and vel.w unchanged.
StepCheck check_step(const Bodies &before, const Body *acc, const Bodies &after, float dt);
