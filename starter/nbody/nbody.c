// Lab 6: all-pairs N-body on the GPU: the forces between every pair of bodies, first naive,
// then tiled in shared memory, and one step of the bodies.
// Fill in each TODO in order; nbody.h says what each function must do, and handouts/nbody.md
// walks through them. Build and check with:  make check LAB=nbody   (EMU=1 without a GPU)
// Try one kernel by hand with, e.g.:
//     ./build/starter/nbody/nbody testcases/nbody/five-bodies.txt --kernel naive --block 4
#include "nbody.h"

// Given: the acceleration body bj gives body bi, added to ai ([Nyland et al. 2007]'s
// bodyBodyInteraction, 20 flops). A body is a float4: x, y, z, and w = its mass. For j = i, r is
// 0 and it adds nothing, so a thread need not skip its own body.
__device__ float3 body_body_interaction(float4 bi, float4 bj, float3 ai, float softening2)
{
    float3 r = make_float3(bj.x - bi.x, bj.y - bi.y, bj.z - bi.z);
    float dist_sqr = r.x * r.x + r.y * r.y + r.z * r.z + softening2;
    float inv_dist = rsqrtf(dist_sqr);
    float s = bj.w * inv_dist * inv_dist * inv_dist;  // m_j / (|r|^2 + eps^2)^(3/2)
    ai.x += r.x * s;
    ai.y += r.y * s;
    ai.z += r.z * s;
    return ai;
}

// ---- 1. naive: one thread per destination body, every source from global memory -----------

// TODO 1: the naive kernel. Thread i = blockIdx.x * blockDim.x + threadIdx.x owns body i: if
// i < n, it reads its own body pos[i], starts an acceleration a = (0, 0, 0) in a local float3,
// applies every source j = 0 .. n-1 to it with body_body_interaction(me, pos[j], a, softening2),
// and stores acc[i] = make_float4(a.x, a.y, a.z, 0.0f).
__global__ void forces_naive_kernel(const float4 *pos, float4 *acc, int n, float softening2)
{
}

void nbody_forces_naive(const float4 *pos, float4 *acc, int n, float softening2, int block)
{
    // TODO 2: blocks of `block` threads, enough of them for n bodies: n / block ROUNDED UP,
    // (n + block - 1) / block. Launch forces_naive_kernel<<<blocks, block>>>(pos, acc, n, softening2), then
    // CUDA_CHECK_LAUNCH(). (No cudaDeviceSynchronize here: the harness waits and times it.)
    LAB_TODO("compute the grid and launch forces_naive_kernel in nbody_forces_naive");
}

// ---- 2. the step: move every body -----------------------------------------------------------

// TODO 3: one thread per body i < n: vel[i] += acc[i] * dt, then pos[i] += vel[i] * dt with the
// NEW velocity, for x, y and z only (pos[i].w is the mass, vel[i].w stays 0). Then launch it
// below with blocks of 256 threads (rounded up as in TODO 2) and CUDA_CHECK_LAUNCH().
__global__ void integrate_kernel(float4 *pos, float4 *vel, const float4 *acc, int n, float dt)
{
}

void nbody_integrate(float4 *pos, float4 *vel, const float4 *acc, int n, float dt)
{
    LAB_TODO("write integrate_kernel and launch it in nbody_integrate");
}

// ---- 3. tiled: p sources at a time through shared memory ------------------------------------

// TODO 4: the tiled kernel, for blocks of p = blockDim.x threads. Thread i = blockIdx.x * p +
// threadIdx.x owns body i, as in TODO 1, and keeps its sum in a local float3. Declare the tile,
//     extern __shared__ float4 tile[];     // p float4, sized by the launch (TODO 5)
// and walk the sources a tile at a time: for start = 0, p, 2p, ... < n:
//     tile[threadIdx.x] = pos[start + threadIdx.x];   // each thread loads ONE source
//     __syncthreads();                                 // the tile is complete
//     apply tile[0 .. count-1] to your body            // count = min(p, n - start)
//     __syncthreads();                                 // all are done before the next load
// and at the end, if i < n, acc[i] = (a.x, a.y, a.z, 0). When n is not a multiple of p, the
// last tile is partial: load only where start + threadIdx.x < n and apply only `count` sources.
// Threads with i >= n must not return early: they still load their source of each tile and
// reach both barriers (only their store is skipped).
__global__ void forces_tiled_kernel(const float4 *pos, float4 *acc, int n, float softening2)
{
}

void nbody_forces_tiled(const float4 *pos, float4 *acc, int n, float softening2, int p)
{
    // TODO 5: blocks of p threads, n / p of them rounded up, and p * sizeof(float4) bytes of
    // shared memory for the tile as the launch's third argument:
    //     forces_tiled_kernel<<<blocks, p, p * sizeof(float4)>>>(pos, acc, n, softening2);
    // then CUDA_CHECK_LAUNCH().
    LAB_TODO("compute the grid and launch forces_tiled_kernel with its shared tile in nbody_forces_tiled");
}
