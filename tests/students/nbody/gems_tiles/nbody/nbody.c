// Student corpus: the lab written after the structure of [Nyland et al. 2007] (bodyBodyInteraction
// with the sixth power of the distance, tile_calculation, calculate_forces), in the student's own
// words: the last tile padded with massless bodies, which add nothing, and all p applied.
#include "nbody.h"

__device__ float3 bodyBodyInteraction(float4 bi, float4 bj, float3 ai, float eps2)
{
    float3 r;
    r.x = bj.x - bi.x;
    r.y = bj.y - bi.y;
    r.z = bj.z - bi.z;
    float distSqr = r.x * r.x + r.y * r.y + r.z * r.z + eps2;
    float distSixth = distSqr * distSqr * distSqr;
    float invDistCube = 1.0f / sqrtf(distSixth);
    float s = bj.w * invDistCube;
    ai.x += r.x * s;
    ai.y += r.y * s;
    ai.z += r.z * s;
    return ai;
}

__global__ void naiveForces(const float4 *pos, float4 *acc, int n, float eps2)
{
    int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gtid < n) {
        float3 a = {0.0f, 0.0f, 0.0f};
        for (int j = 0; j < n; j++)
            a = bodyBodyInteraction(pos[gtid], pos[j], a, eps2);
        acc[gtid] = make_float4(a.x, a.y, a.z, 0.0f);
    }
}

void nbody_forces_naive(const float4 *pos, float4 *acc, int n, float softening2, int block)
{
    int blocks = (n + block - 1) / block;
    naiveForces<<<blocks, block>>>(pos, acc, n, softening2);
    CUDA_CHECK_LAUNCH();
}

__global__ void integrateBodies(float4 *pos, float4 *vel, const float4 *acc, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        vel[i].x += acc[i].x * dt;
        vel[i].y += acc[i].y * dt;
        vel[i].z += acc[i].z * dt;
        pos[i].x += vel[i].x * dt;
        pos[i].y += vel[i].y * dt;
        pos[i].z += vel[i].z * dt;
    }
}

void nbody_integrate(float4 *pos, float4 *vel, const float4 *acc, int n, float dt)
{
    integrateBodies<<<(n + 255) / 256, 256>>>(pos, vel, acc, n, dt);
    CUDA_CHECK_LAUNCH();
}

__device__ float3 tile_calculation(float4 myPosition, float3 accel, float eps2)
{
    extern __shared__ float4 shPosition[];
    for (int i = 0; i < blockDim.x; i++)
        accel = bodyBodyInteraction(myPosition, shPosition[i], accel, eps2);
    return accel;
}

__global__ void calculate_forces(const float4 *pos, float4 *acc, int n, float eps2)
{
    extern __shared__ float4 shPosition[];
    int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    float4 myPosition = gtid < n ? pos[gtid] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float3 acc3 = {0.0f, 0.0f, 0.0f};
    for (int tile = 0; tile * blockDim.x < n; tile++) {
        int idx = tile * blockDim.x + threadIdx.x;
        // past the last body: a body of mass 0, which pulls nothing
        shPosition[threadIdx.x] = idx < n ? pos[idx] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        acc3 = tile_calculation(myPosition, acc3, eps2);
        __syncthreads();
    }
    if (gtid < n)
        acc[gtid] = make_float4(acc3.x, acc3.y, acc3.z, 0.0f);
}

void nbody_forces_tiled(const float4 *pos, float4 *acc, int n, float softening2, int p)
{
    int blocks = (n + p - 1) / p;
    calculate_forces<<<blocks, p, p * sizeof(float4)>>>(pos, acc, n, softening2);
    CUDA_CHECK_LAUNCH();
}
