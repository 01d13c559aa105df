// Student corpus: the tiled kernel walks whole tiles only (start + p <= n): when n is not a
// multiple of p, the last, partial tile of sources is never applied. Every body's forces miss
// a few sources: at n = 12345 (57 of them) an error inside the grader's file compare, far past
// each body's own bound (labs/nbody/reference.h), which is what catches it.
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

// Block b owns destination bodies b*p .. b*p+p-1, one a thread. For each tile of p sources,
// every thread loads one into shared memory; after the barrier, each thread applies all of them
// to its own body, keeping the sum in registers: no thread ever shares its destination body or
// its partial sum with another ("P threads, not P^2", the lecture's privatization). Each source
// is read from global memory once a block, n / p times in all instead of n.
__global__ void forces_tiled_kernel(const float4 *pos, float4 *acc, int n, float softening2)
{
    extern __shared__ float4 tile[];  // p = blockDim.x sources, sized at launch
    int p = blockDim.x;
    int i = blockIdx.x * p + threadIdx.x;
    // Threads past the last body still load their source and reach every barrier (no early
    // return): the tile needs them.
    float4 me = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float3 a = make_float3(0.0f, 0.0f, 0.0f);
    for (int start = 0; start + p <= n; start += p) {
        tile[threadIdx.x] = pos[start + threadIdx.x];
        __syncthreads();  // the tile is complete before anyone reads it
        for (int k = 0; k < p; ++k)
            a = body_body_interaction(me, tile[k], a, softening2);
        __syncthreads();  // everyone is done with the tile before the next overwrites it
    }
    if (i < n)
        acc[i] = make_float4(a.x, a.y, a.z, 0.0f);
}

void nbody_forces_tiled(const float4 *pos, float4 *acc, int n, float softening2, int p)
{
    size_t shared_bytes = sizeof(float4) * p;
    forces_tiled_kernel<<<blocks_to_cover(n, p), p, shared_bytes>>>(pos, acc, n, softening2);
    CUDA_CHECK_LAUNCH();
}
