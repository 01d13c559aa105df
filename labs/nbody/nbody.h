// Lab 6, nbody: the functions the student writes in nbody.c.
//
// All-pairs N-body ([Nyland et al. 2007], the lecture's "All Pairs N-Body" [cs344 n.d.]): the
// acceleration of every body under the softened gravity of every body (G = 1),
//     a_i = sum over j of m_j (p_j - p_i) / (|p_j - p_i|^2 + eps^2)^(3/2),
// then one step of the bodies. A body is a float4: x, y, z and w = its mass. The term j = i is
// zero (p_j - p_i = 0), so no thread needs to skip itself. Each function launches its kernel,
// checks the launch with CUDA_CHECK_LAUNCH() and returns without waiting: the harness (main.cpp)
// owns the arrays (device pointers, n float4 each), times the kernels with CUDA events, waits
// for them and checks the results. Every kernel must be right for any n >= 1.
#pragma once

#include "cuda_check.h"

// One thread per destination body i, in blocks of `block` threads (enough blocks to cover n):
// the thread reads every source body from global memory and writes acc[i] = (ax, ay, az, 0).
// softening2 is eps^2.
void nbody_forces_naive(const float4 *pos, float4 *acc, int n, float softening2, int block);

// The lecture's tiles: blocks of p threads, each thread owning one destination body; the block
// walks the sources p at a time, each thread loading one source of the tile into __shared__,
// then every thread applying all p sources of the tile to its own body. p is 1 to 1024 (the
// harness checks); n need not be a multiple of p.
void nbody_forces_tiled(const float4 *pos, float4 *acc, int n, float softening2, int p);

// One step of length dt for every body (semi-implicit Euler, as GPU Gems 3's integrateBodies):
//     vel += acc * dt;   pos += vel * dt   (x, y, z only: the mass pos.w and vel.w stay).
void nbody_integrate(float4 *pos, float4 *vel, const float4 *acc, int n, float dt);
