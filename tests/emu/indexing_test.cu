// Built-in variables and launch syntax: every thread of 1-, 2- and 3-D grids of 1-, 2- and 3-D
// blocks sees its own indexes, and launches written the ways students write them all work.
#include <cstdio>

#include "emu_test_util.h"

__global__ void record_1d(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i;
}

__global__ void record_2d(int *out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) out[y * width + x] = 1000 * y + x;
}

// Each thread writes its full identity: block and thread coordinates, and the dimensions.
struct Identity {
    unsigned int tx, ty, tz, bx, by, bz, dx, dy, dz, gx, gy, gz;
    int warp_size;
};

__global__ void record_3d(Identity *out)
{
    unsigned int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    Identity &me = out[block * blockDim.x * blockDim.y * blockDim.z + thread];
    me = Identity{threadIdx.x, threadIdx.y, threadIdx.z, blockIdx.x, blockIdx.y, blockIdx.z,
                  blockDim.x,  blockDim.y,  blockDim.z,  gridDim.x,  gridDim.y,  gridDim.z, warpSize};
}

TEST(Indexing, OneDimensionalCoversEveryElementOnce)
{
    const int n = 10007;  // not a multiple of the block size: the last block is partly idle
    DeviceArray<int> out(n, 0xff);
    record_1d<<<(n + 127) / 128, 128>>>(out.get(), n);
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<int> values = out.host();
    for (int i = 0; i < n; ++i) ASSERT_EQ(i, values[i]) << "element " << i;
}

TEST(Indexing, TwoDimensional)
{
    const int width = 70, height = 45;
    DeviceArray<int> out(width * height, 0xff);
    dim3 block(16, 8);
    dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
    record_2d<<<grid, block>>>(out.get(), width, height);
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<int> values = out.host();
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) ASSERT_EQ(1000 * y + x, values[y * width + x]) << x << "," << y;
}

TEST(Indexing, ThreeDimensionalGridOfThreeDimensionalBlocks)
{
    dim3 grid(3, 2, 4), block(4, 3, 5);
    const unsigned int threads = 3 * 2 * 4 * 4 * 3 * 5;
    DeviceArray<Identity> out(threads);
    record_3d<<<grid, block>>>(out.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<Identity> ids = out.host();
    unsigned int index = 0;
    for (unsigned int bz = 0; bz < grid.z; ++bz)
        for (unsigned int by = 0; by < grid.y; ++by)
            for (unsigned int bx = 0; bx < grid.x; ++bx)
                for (unsigned int tz = 0; tz < block.z; ++tz)
                    for (unsigned int ty = 0; ty < block.y; ++ty)
                        for (unsigned int tx = 0; tx < block.x; ++tx) {
                            const Identity &id = ids[index++];
                            ASSERT_EQ(tx, id.tx);
                            ASSERT_EQ(ty, id.ty);
                            ASSERT_EQ(tz, id.tz);
                            ASSERT_EQ(bx, id.bx);
                            ASSERT_EQ(by, id.by);
                            ASSERT_EQ(bz, id.bz);
                            ASSERT_EQ(block.x, id.dx);
                            ASSERT_EQ(block.y, id.dy);
                            ASSERT_EQ(block.z, id.dz);
                            ASSERT_EQ(grid.x, id.gx);
                            ASSERT_EQ(grid.y, id.gy);
                            ASSERT_EQ(grid.z, id.gz);
                            ASSERT_EQ(32, id.warp_size);
                        }
}

// ---- The launch forms the rewriter must understand.
template <typename T>
__global__ void fill(T *out, T value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value;
}

template <int Scale>
__global__ void scaled_index(int *out)
{
    out[threadIdx.x] = Scale * threadIdx.x;
}

__global__ void with_default(int *out, int value = 7) { out[threadIdx.x] = value; }

namespace kernels {
__global__ void negate(int *data) { data[threadIdx.x] = -data[threadIdx.x]; }
}  // namespace kernels

#define LAUNCH_FILL(out, v, n) fill<<<1, 32>>>(out, v, n)

__global__ void convert_args(double *out, float scale, long count)
{
    if (threadIdx.x == 0) out[0] = scale * count;
}

TEST(Launch, TemplateKernelsWithDeducedAndExplicitArguments)
{
    DeviceArray<float> floats(32);
    DeviceArray<int> ints(32);
    fill<<<1, 32>>>(floats.get(), 2.5f, 32);       // T deduced, as nvcc allows
    fill<int><<<1, 32>>>(ints.get(), 9, 32);      // T given
    scaled_index<3><<<1, 32>>>(ints.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    EXPECT_EQ(2.5f, floats.host()[31]);
    EXPECT_EQ(93, ints.host()[31]);
}

TEST(Launch, MultiLineLaunchDefaultArgumentsNamespacesMacrosAndPointers)
{
    DeviceArray<int> out(32);
    with_default<<<1,
                   32>>>(
        out.get());
    EXPECT_EQ(7, out.host()[5]);
    kernels::negate<<<1, 32, 0, 0>>>(out.get());
    EXPECT_EQ(-7, out.host()[5]);
    LAUNCH_FILL(out.get(), 4, 32);
    EXPECT_EQ(4, out.host()[5]);
    void (*pointer)(int *) = kernels::negate;
    pointer<<<dim3(1), dim3(32)>>>(out.get());
    EXPECT_EQ(-4, out.host()[5]);
    ASSERT_CUDA_OK(cudaGetLastError());
}

TEST(Launch, ArgumentsAreConvertedToParameterTypesOnce)
{
    DeviceArray<double> out(1);
    convert_args<<<1, 4>>>(out.get(), 3, 2);  // int -> float and int -> long, as at a call
    EXPECT_EQ(6.0, out.host()[0]);
}

TEST(Launch, ByAddressThroughTheCApi)
{
    DeviceArray<int> out(32);
    int *pointer = out.get();
    int value = 11;
    int n = 32;
    void *args[] = {&pointer, &value, &n};
    // fill<int> is a template: only the typed overload knows its parameters.
    ASSERT_CUDA_OK(cudaLaunchKernel(fill<int>, dim3(1), dim3(32), args, 0, 0));
    EXPECT_EQ(11, out.host()[3]);
    void *negate_args[] = {&pointer};
    // A non-template kernel defined in a rewritten file is known by address, even as void *.
    ASSERT_CUDA_OK(cudaLaunchKernel((const void *)kernels::negate, dim3(1), dim3(32), negate_args, 0, 0));
    EXPECT_EQ(-11, out.host()[3]);
}

TEST(Launch, DeviceFunctionsAndHostDeviceFunctions)
{
    // min/max with CUDA's overloads, and integer intrinsics, also callable from host code.
    EXPECT_EQ(2u, min(2u, 5));
    EXPECT_EQ(-1, max(-1, -3));
    EXPECT_EQ(1.5f, min(1.5f, 2.0f));
    EXPECT_EQ(3, __popc(0x13u));
    EXPECT_EQ(31, __clz(1));
    EXPECT_EQ(0x80000000u, __brev(1u));
    EXPECT_EQ(1, __ffs(1));
}

// Overloaded kernels: nvcc picks the overload from the arguments, and so does the emulator.
__global__ void store(int *out, int value) { out[threadIdx.x] = value; }
__global__ void store(float *out, float value) { out[threadIdx.x] = 2 * value; }

TEST(Launch, OverloadedKernelsResolveByArguments)
{
    DeviceArray<int> ints(4);
    DeviceArray<float> floats(4);
    store<<<1, 4>>>(ints.get(), 3);
    store<<<1, 4>>>(floats.get(), 1.5f);
    EXPECT_EQ(3, ints.host()[3]);
    EXPECT_EQ(3.0f, floats.host()[3]);
}
