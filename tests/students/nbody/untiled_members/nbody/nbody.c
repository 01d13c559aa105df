// Student corpus: a "tiled" kernel in blocks of p threads that reads every source from global
// memory member by member (pos[j].x, pos[j].y, ...): right output, no tile in shared memory.
#include "nbody.h"

static unsigned blocks_to_cover(int n, int per_block) { return (unsigned)((n + per_block - 1) / per_block); }

// [Nyland et al. 2007]'s bodyBodyInteraction, counted as 20 flops: the acceleration body bj
// gives body bi, added to ai. The softening eps^2 keeps the term j = i finite (r = 0: it adds 0)
// and two close bodies from flinging each other away.
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

// ---- 1. naive ---------------------------------------------------------------------------------

// The threads of a warp read the same source at the same time: one broadcast load each, n of
// them for every thread. The L1 cache catches many of them; the tiles make it certain.
__global__ void forces_naive_kernel(const float4 *pos, float4 *acc, int n, float softening2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 me = pos[i];
    float3 a = make_float3(0.0f, 0.0f, 0.0f);
    for (int j = 0; j < n; ++j)
        a = body_body_interaction(me, pos[j], a, softening2);
    acc[i] = make_float4(a.x, a.y, a.z, 0.0f);
}

void nbody_forces_naive(const float4 *pos, float4 *acc, int n, float softening2, int block)
{
    forces_naive_kernel<<<blocks_to_cover(n, block), block>>>(pos, acc, n, softening2);
    CUDA_CHECK_LAUNCH();
}

// ---- 2. the step ------------------------------------------------------------------------------

__global__ void integrate_kernel(float4 *pos, float4 *vel, const float4 *acc, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 p = pos[i], v = vel[i], a = acc[i];
    v.x += a.x * dt;
    v.y += a.y * dt;
    v.z += a.z * dt;
    p.x += v.x * dt;  // with the new velocity: semi-implicit Euler, stable for orbits
    p.y += v.y * dt;
    p.z += v.z * dt;
    pos[i] = p;
    vel[i] = v;
}

void nbody_integrate(float4 *pos, float4 *vel, const float4 *acc, int n, float dt)
{
    integrate_kernel<<<blocks_to_cover(n, 256), 256>>>(pos, vel, acc, n, dt);
    CUDA_CHECK_LAUNCH();
}

// ---- 3. tiled ---------------------------------------------------------------------------------

// "Tiled": blocks of p threads, one body each, but every source still read from global memory.
__global__ void forces_tiled_kernel(const float4 *pos, float4 *acc, int n, float softening2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 me = pos[i];
    float3 a = make_float3(0.0f, 0.0f, 0.0f);
    for (int j = 0; j < n; ++j) {
        float dx = pos[j].x - me.x, dy = pos[j].y - me.y, dz = pos[j].z - me.z;
        float inv_dist = rsqrtf(dx * dx + dy * dy + dz * dz + softening2);
        float s = pos[j].w * inv_dist * inv_dist * inv_dist;
        a.x += dx * s;
        a.y += dy * s;
        a.z += dz * s;
    }
    acc[i].x = a.x;
    acc[i].y = a.y;
    acc[i].z = a.z;
    acc[i].w = 0.0f;
}

void nbody_forces_tiled(const float4 *pos, float4 *acc, int n, float softening2, int p)
{
    forces_tiled_kernel<<<blocks_to_cover(n, p), p>>>(pos, acc, n, softening2);
    CUDA_CHECK_LAUNCH();
}
