// The nbody lab's bodies and their two file forms (handouts/nbody.md, "Formats").
//
// Binary, little-endian: int32 n, int32 k (4 or 8), then n float4 (x, y, z, mass); when k is
// 8, n more float4 (vx, vy, vz, 0) follow: the velocities. k = 4: every body starts at rest.
// The header's two int32 are what the grader reads as a case's sizes (grader/work.py).
//
// Text, for small hand-made cases (a name ending in .txt): one body a line,
//     x y z mass [vx vy vz]
// blank lines and anything after '#' ignored. Plain C++, no CUDA: the testcase tool uses it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct Body {  // the layout of a float4
    float x, y, z, w;
};

// The lab's kernels index bodies with int and all-pairs work is n^2: past this, refused.
constexpr int32_t kMaxBodies = 1 << 24;

struct Bodies {
    std::vector<Body> pos;  // w: the mass
    std::vector<Body> vel;  // w: 0
    int n() const { return static_cast<int>(pos.size()); }
};

// Reads either form (text when the name ends in .txt); throws LabError naming the file, the
// line or field, and what is wrong (a short file, n out of range, a negative or non-finite mass).
Bodies read_bodies(const std::string &path);

// Writes the binary form with k = 8 (positions and velocities); throws LabError on failure.
void write_bodies(const std::string &path, const Bodies &bodies);
