// Seeded bodies for the nbody lab's testcases and `--bench`, made the same by the harness and
// the testcase tool (testcases/nbody/nbody_tool.cpp), so large inputs are never stored.
//
//   cube     n bodies uniform in [-1, 1)^3, masses uniform in [0.5, 1.5) / n (total near 1)
//   lattice  the first n points of a k x k x k grid filling [-1, 1]^3 (k^3 >= n), masses 1 / n:
//            for n = k^3 with k odd, the centre body's forces cancel exactly (|sum| = 0, while
//            the sum of |contributions| is not): the case a tolerance on |sum| cannot grade
// With `moving`, every body gets a velocity uniform in [-0.5, 0.5)^3 (else at rest).
// Plain C++, no CUDA.
#pragma once

#include <cstdint>
#include <string>

#include "bodies.h"

Bodies make_bodies(const std::string &dist, int n, uint64_t seed, bool moving);

// The names make_bodies knows, for usage messages: "cube|lattice".
const char *body_dists();
