// Textures, surfaces and CUDA arrays, checked against the CUDA programming guide's "Texture
// Fetching" appendix: coordinates (unnormalized and normalized), the four address modes,
// point and linear filtering (with its 8-bit fractional weights), the read modes, tex1Dfetch,
// pitched 2D memory, 3D, layered and cube-map arrays, and surface reads and writes with their
// boundary modes; then the errors a GPU reports and the misuses the emulator stops on.
#include <cmath>
#include <vector>

#include "emu_test_util.h"
#include "exit_codes.h"

namespace {
// A float texture over a 1D array of `values`, with the given modes.
struct Texture1D {
    cudaArray_t array = nullptr;
    cudaTextureObject_t object = 0;
    Texture1D(const std::vector<float> &values, cudaTextureFilterMode filter, cudaTextureAddressMode mode,
              bool normalized, float border = 0.0f)
    {
        cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
        EXPECT_CUDA_OK(cudaMallocArray(&array, &desc, values.size()));
        EXPECT_CUDA_OK(cudaMemcpy2DToArray(array, 0, 0, values.data(), values.size() * sizeof(float),
                                           values.size() * sizeof(float), 1, cudaMemcpyHostToDevice));
        cudaResourceDesc resource = {};
        resource.resType = cudaResourceTypeArray;
        resource.res.array.array = array;
        cudaTextureDesc texture = {};
        texture.addressMode[0] = mode;
        texture.filterMode = filter;
        texture.readMode = cudaReadModeElementType;
        texture.normalizedCoords = normalized;
        for (float &c : texture.borderColor) c = border;
        EXPECT_CUDA_OK(cudaCreateTextureObject(&object, &resource, &texture, nullptr));
    }
    ~Texture1D()
    {
        cudaDestroyTextureObject(object);
        cudaFreeArray(array);
    }
};

__global__ void sample_1d(cudaTextureObject_t texture, const float *coords, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float>(texture, coords[i]);
}

std::vector<float> sample(const Texture1D &texture, const std::vector<float> &coords)
{
    DeviceArray<float> d_coords(coords), out(coords.size());
    sample_1d<<<1, 64>>>(texture.object, d_coords.get(), out.get(), (int)coords.size());
    EXPECT_CUDA_OK(cudaGetLastError());
    return out.host();
}
}  // namespace

TEST(Texture, PointFilteringReadsTheTexelUnderTheCoordinateAndClamps)
{
    Texture1D texture({10, 20, 30, 40}, cudaFilterModePoint, cudaAddressModeClamp, false);
    std::vector<float> got = sample(texture, {0.0f, 0.5f, 0.99f, 1.0f, 3.5f, 3.99f, 4.0f, 100.0f, -0.01f, -50.0f});
    std::vector<float> want = {10, 10, 10, 20, 40, 40, 40, 40, 10, 10};
    EXPECT_EQ(want, got);
}

TEST(Texture, LinearFilteringInterpolatesBetweenTexelCentresWithEightBitWeights)
{
    Texture1D texture({0, 256, 512, 1024}, cudaFilterModeLinear, cudaAddressModeClamp, false);
    // x - 0.5 = 0.5 + frac: halfway, a quarter, at a centre; clamped at both ends.
    std::vector<float> got = sample(texture, {1.0f, 1.25f, 1.5f, 3.0f, 0.0f, 4.0f, 10.0f});
    std::vector<float> want = {128, 192, 256, 768, 0, 1024, 1024};
    EXPECT_EQ(want, got);
    // The weight is kept in 9-bit fixed point with 8 fractional bits: 0.001 rounds to 0,
    // 0.003 to 1/256 (of 256: exactly 1), 0.5 + 0.3/256 to 128/256.
    std::vector<float> fine = sample(texture, {0.501f, 0.503f, 1.0f + 0.3f / 256});
    EXPECT_EQ(0.0f, fine[0]);
    EXPECT_EQ(1.0f, fine[1]);
    EXPECT_EQ(128.0f, fine[2]);
}

TEST(Texture, NormalizedCoordinatesWithEachAddressMode)
{
    const std::vector<float> values = {1, 2, 3, 4};
    const std::vector<float> coords = {0.0f, 0.3f, 0.99f, 1.25f, -0.25f, 1.9f};
    // Texel indices: floor(x * 4) = 0, 1, 3, 5, -1, 7.
    Texture1D clamp(values, cudaFilterModePoint, cudaAddressModeClamp, true);
    EXPECT_EQ((std::vector<float>{1, 2, 4, 4, 1, 4}), sample(clamp, coords));
    Texture1D wrap(values, cudaFilterModePoint, cudaAddressModeWrap, true);
    EXPECT_EQ((std::vector<float>{1, 2, 4, 2, 4, 4}), sample(wrap, coords));
    Texture1D mirror(values, cudaFilterModePoint, cudaAddressModeMirror, true);
    EXPECT_EQ((std::vector<float>{1, 2, 4, 3, 1, 1}), sample(mirror, coords));
    Texture1D border(values, cudaFilterModePoint, cudaAddressModeBorder, true, -7.0f);
    EXPECT_EQ((std::vector<float>{1, 2, 4, -7, -7, -7}), sample(border, coords));
    // Linear filtering blends with the border colour and wraps across the ends.
    Texture1D border_linear(values, cudaFilterModeLinear, cudaAddressModeBorder, true, 0.0f);
    EXPECT_EQ((std::vector<float>{0.5f}), sample(border_linear, {0.0f}));
    Texture1D wrap_linear(values, cudaFilterModeLinear, cudaAddressModeWrap, true);
    EXPECT_EQ((std::vector<float>{2.5f}), sample(wrap_linear, {0.0f}));  // halfway from texel 3 to texel 0
}

TEST(Texture, WrapWithUnnormalizedCoordinatesClampsAsOnAGpu)
{
    Texture1D texture({1, 2, 3, 4}, cudaFilterModePoint, cudaAddressModeWrap, false);
    EXPECT_EQ((std::vector<float>{4, 1}), sample(texture, {5.5f, -1.5f}));
}

// ---- 2D: arrays, pitched memory, read modes.
__global__ void sample_2d_uchar4(cudaTextureObject_t normalized, cudaTextureObject_t raw, float4 *as_float,
                                 uchar4 *as_uchar, int width, int height)
{
    int x = threadIdx.x, y = threadIdx.y;
    if (x >= width || y >= height) return;
    as_float[y * width + x] = tex2D<float4>(normalized, x + 0.5f, y + 0.5f);
    tex2D(&as_uchar[y * width + x], raw, x + 0.5f, y + 0.5f);  // the form that stores through a pointer
}

TEST(Texture, ReadModesOfAnUchar4ArrayNormalizedFloatAndElementType)
{
    const int width = 3, height = 2;
    std::vector<uchar4> texels(width * height);
    for (int i = 0; i < width * height; ++i)
        texels[i] = make_uchar4((unsigned char)(i * 51), 255, 0, (unsigned char)(i + 1));
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<uchar4>();
    EXPECT_EQ(8, desc.x);
    EXPECT_EQ(8, desc.w);
    EXPECT_EQ(cudaChannelFormatKindUnsigned, desc.f);
    cudaArray_t array;
    ASSERT_CUDA_OK(cudaMallocArray(&array, &desc, width, height));
    ASSERT_CUDA_OK(cudaMemcpy2DToArray(array, 0, 0, texels.data(), width * sizeof(uchar4), width * sizeof(uchar4),
                                       height, cudaMemcpyHostToDevice));
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaTextureDesc texture = {};
    texture.readMode = cudaReadModeNormalizedFloat;
    cudaTextureObject_t normalized, raw;
    ASSERT_CUDA_OK(cudaCreateTextureObject(&normalized, &resource, &texture, nullptr));
    texture.readMode = cudaReadModeElementType;
    ASSERT_CUDA_OK(cudaCreateTextureObject(&raw, &resource, &texture, nullptr));
    DeviceArray<float4> as_float(width * height);
    DeviceArray<uchar4> as_uchar(width * height);
    sample_2d_uchar4<<<1, dim3(4, 4)>>>(normalized, raw, as_float.get(), as_uchar.get(), width, height);
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<float4> f = as_float.host();
    std::vector<uchar4> u = as_uchar.host();
    for (int i = 0; i < width * height; ++i) {
        EXPECT_FLOAT_EQ(i * 51 / 255.0f, f[i].x) << i;
        EXPECT_EQ(1.0f, f[i].y);
        EXPECT_EQ(0.0f, f[i].z);
        EXPECT_FLOAT_EQ((i + 1) / 255.0f, f[i].w);
        EXPECT_EQ(texels[i].x, u[i].x);
        EXPECT_EQ(texels[i].w, u[i].w);
    }
    cudaDestroyTextureObject(normalized);
    cudaDestroyTextureObject(raw);
    cudaFreeArray(array);
}

__global__ void sample_signed(cudaTextureObject_t texture, float *out)
{
    out[threadIdx.x] = tex1D<float>(texture, threadIdx.x + 0.5f);
}

TEST(Texture, SignedNormalizedFloatMapsToMinusOneToOne)
{
    std::vector<signed char> values = {-128, -127, -64, 0, 127};
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<signed char>();
    cudaArray_t array;
    ASSERT_CUDA_OK(cudaMallocArray(&array, &desc, values.size()));
    ASSERT_CUDA_OK(cudaMemcpyToArray(array, 0, 0, values.data(), values.size(), cudaMemcpyHostToDevice));
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaTextureDesc texture = {};
    texture.readMode = cudaReadModeNormalizedFloat;
    cudaTextureObject_t object;
    ASSERT_CUDA_OK(cudaCreateTextureObject(&object, &resource, &texture, nullptr));
    DeviceArray<float> out(values.size());
    sample_signed<<<1, (unsigned)values.size()>>>(object, out.get());
    std::vector<float> got = out.host();
    EXPECT_EQ(-1.0f, got[0]);
    EXPECT_EQ(-1.0f, got[1]);
    EXPECT_FLOAT_EQ(-64 / 127.0f, got[2]);
    EXPECT_EQ(0.0f, got[3]);
    EXPECT_EQ(1.0f, got[4]);
    cudaDestroyTextureObject(object);
    cudaFreeArray(array);
}

__global__ void bilinear_of_pitched(cudaTextureObject_t texture, float *out)
{
    out[0] = tex2D<float>(texture, 1.0f, 1.0f);   // the four texels (0..1, 0..1) equally
    out[1] = tex2D<float>(texture, 2.5f, 1.5f);   // the centre of texel (2, 1)
    out[2] = tex2D<float>(texture, 1.5f, 1.25f);  // column 1, three quarters of the way from row 0 to row 1
}

TEST(Texture, BilinearFilteringOfPitchedMemory)
{
    const int width = 4, height = 3;
    float *device;
    size_t pitch;
    ASSERT_CUDA_OK(cudaMallocPitch(&device, &pitch, width * sizeof(float), height));
    std::vector<float> host(width * height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) host[y * width + x] = (float)(10 * y + x);
    ASSERT_CUDA_OK(cudaMemcpy2D(device, pitch, host.data(), width * sizeof(float), width * sizeof(float), height,
                                cudaMemcpyHostToDevice));
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypePitch2D;
    resource.res.pitch2D.devPtr = device;
    resource.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    resource.res.pitch2D.width = width;
    resource.res.pitch2D.height = height;
    resource.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc texture = {};
    texture.filterMode = cudaFilterModeLinear;
    cudaTextureObject_t object;
    ASSERT_CUDA_OK(cudaCreateTextureObject(&object, &resource, &texture, nullptr));
    DeviceArray<float> out(3);
    bilinear_of_pitched<<<1, 1>>>(object, out.get());
    std::vector<float> got = out.host();
    EXPECT_EQ((0 + 1 + 10 + 11) / 4.0f, got[0]);
    EXPECT_EQ(12.0f, got[1]);
    EXPECT_EQ(0.25f * 1 + 0.75f * 11, got[2]);
    cudaDestroyTextureObject(object);
    cudaFree(device);
}

// ---- tex1Dfetch: linear memory, integer indices, no filtering, zero outside.
__global__ void fetch_linear(cudaTextureObject_t ints, cudaTextureObject_t shorts, int *as_int, float *as_float, int n)
{
    int i = (int)threadIdx.x - 1;  // from -1 to n
    as_int[threadIdx.x] = tex1Dfetch<int>(ints, i);
    as_float[threadIdx.x] = tex1Dfetch<float>(shorts, i);
}

TEST(Texture, Tex1DfetchOfLinearMemory)
{
    const int n = 5;
    DeviceArray<int> ints(std::vector<int>{7, -8, 9, 10, 11});
    DeviceArray<unsigned short> shorts(std::vector<unsigned short>{0, 65535, 32768, 1, 2});
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeLinear;
    resource.res.linear.devPtr = ints.get();
    resource.res.linear.desc = cudaCreateChannelDesc<int>();
    resource.res.linear.sizeInBytes = n * sizeof(int);
    cudaTextureDesc texture = {};
    cudaTextureObject_t int_texture, short_texture;
    ASSERT_CUDA_OK(cudaCreateTextureObject(&int_texture, &resource, &texture, nullptr));
    resource.res.linear.devPtr = shorts.get();
    resource.res.linear.desc = cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindUnsigned);
    resource.res.linear.sizeInBytes = n * sizeof(unsigned short);
    texture.readMode = cudaReadModeNormalizedFloat;
    ASSERT_CUDA_OK(cudaCreateTextureObject(&short_texture, &resource, &texture, nullptr));
    DeviceArray<int> as_int(n + 2);
    DeviceArray<float> as_float(n + 2);
    fetch_linear<<<1, n + 2>>>(int_texture, short_texture, as_int.get(), as_float.get(), n);
    EXPECT_EQ((std::vector<int>{0, 7, -8, 9, 10, 11, 0}), as_int.host());
    std::vector<float> f = as_float.host();
    EXPECT_EQ(0.0f, f[0]);
    EXPECT_EQ(0.0f, f[1]);
    EXPECT_EQ(1.0f, f[2]);
    EXPECT_FLOAT_EQ(32768 / 65535.0f, f[3]);
    EXPECT_EQ(0.0f, f[6]);
    cudaDestroyTextureObject(int_texture);
    cudaDestroyTextureObject(short_texture);
}

// ---- 3D, layered and cube-map arrays.
__global__ void sample_3d(cudaTextureObject_t point, cudaTextureObject_t linear, float *out)
{
    out[0] = tex3D<float>(point, 1.5f, 0.5f, 2.5f);   // texel (1, 0, 2)
    out[1] = tex3D<float>(linear, 1.0f, 1.0f, 1.0f);  // the mean of the 8 texels of the first 2x2x2 cube
    out[2] = tex3D<float>(point, 0.5f, 1.5f, 9.0f);   // z clamps to slice 3
}

TEST(Texture, Tex3DOfAnArrayFilledByCudaMemcpy3D)
{
    const int w = 3, h = 2, d = 4;
    std::vector<float> host(w * h * d);
    for (int z = 0; z < d; ++z)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) host[(z * h + y) * w + x] = (float)(100 * z + 10 * y + x);
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    ASSERT_CUDA_OK(cudaMalloc3DArray(&array, &desc, make_cudaExtent(w, h, d)));
    cudaMemcpy3DParms copy = {};
    copy.srcPtr = make_cudaPitchedPtr(host.data(), w * sizeof(float), w, h);
    copy.dstArray = array;
    copy.extent = make_cudaExtent(w, h, d);
    copy.kind = cudaMemcpyHostToDevice;
    ASSERT_CUDA_OK(cudaMemcpy3D(&copy));
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaTextureDesc texture = {};
    cudaTextureObject_t point, linear;
    ASSERT_CUDA_OK(cudaCreateTextureObject(&point, &resource, &texture, nullptr));
    texture.filterMode = cudaFilterModeLinear;
    ASSERT_CUDA_OK(cudaCreateTextureObject(&linear, &resource, &texture, nullptr));
    DeviceArray<float> out(3);
    sample_3d<<<1, 1>>>(point, linear, out.get());
    std::vector<float> got = out.host();
    EXPECT_EQ(201.0f, got[0]);
    EXPECT_EQ((0 + 1 + 10 + 11 + 100 + 101 + 110 + 111) / 8.0f, got[1]);
    EXPECT_EQ(310.0f, got[2]);

    // And back out through cudaMemcpy3D, from a sub-box at an offset.
    std::vector<float> box(2 * 1 * 2, -1);
    cudaMemcpy3DParms back = {};
    back.srcArray = array;
    back.srcPos = make_cudaPos(1, 1, 2);
    back.dstPtr = make_cudaPitchedPtr(box.data(), 2 * sizeof(float), 2, 1);
    back.extent = make_cudaExtent(2, 1, 2);
    back.kind = cudaMemcpyDeviceToHost;
    ASSERT_CUDA_OK(cudaMemcpy3D(&back));
    EXPECT_EQ((std::vector<float>{211, 212, 311, 312}), box);
    cudaDestroyTextureObject(point);
    cudaDestroyTextureObject(linear);
    cudaFreeArray(array);
}

__global__ void sample_layers(cudaTextureObject_t texture, float *out, int layers)
{
    int layer = (int)threadIdx.x - 1;  // -1 .. layers: out-of-range layers clamp
    out[threadIdx.x] = tex2DLayered<float>(texture, 1.5f, 0.5f, layer);
}

TEST(Texture, LayeredArrayReadsTheLayerAsked)
{
    const int w = 2, h = 2, layers = 3;
    std::vector<float> host(w * h * layers);
    for (size_t i = 0; i < host.size(); ++i) host[i] = (float)i;
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    ASSERT_CUDA_OK(cudaMalloc3DArray(&array, &desc, make_cudaExtent(w, h, layers), cudaArrayLayered));
    cudaMemcpy3DParms copy = {};
    copy.srcPtr = make_cudaPitchedPtr(host.data(), w * sizeof(float), w, h);
    copy.dstArray = array;
    copy.extent = make_cudaExtent(w, h, layers);
    copy.kind = cudaMemcpyHostToDevice;
    ASSERT_CUDA_OK(cudaMemcpy3D(&copy));
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaTextureDesc texture = {};
    cudaTextureObject_t object;
    ASSERT_CUDA_OK(cudaCreateTextureObject(&object, &resource, &texture, nullptr));
    DeviceArray<float> out(layers + 2);
    sample_layers<<<1, layers + 2>>>(object, out.get(), layers);
    EXPECT_EQ((std::vector<float>{1, 1, 5, 9, 9}), out.host());
    cudaDestroyTextureObject(object);
    cudaFreeArray(array);
}

__global__ void sample_cube(cudaTextureObject_t texture, const float3 *directions, float *out)
{
    float3 d = directions[threadIdx.x];
    out[threadIdx.x] = texCubemap<float>(texture, d.x, d.y, d.z);
}

TEST(Texture, CubemapPicksTheFaceOfTheLargestComponent)
{
    const int w = 2;
    // Face f holds 10 f + its texel index (row-major, 2 x 2).
    std::vector<float> host(w * w * 6);
    for (int f = 0; f < 6; ++f)
        for (int i = 0; i < w * w; ++i) host[f * w * w + i] = (float)(10 * f + i);
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    ASSERT_CUDA_OK(cudaMalloc3DArray(&array, &desc, make_cudaExtent(w, w, 6), cudaArrayCubemap));
    cudaMemcpy3DParms copy = {};
    copy.srcPtr = make_cudaPitchedPtr(host.data(), w * sizeof(float), w, w);
    copy.dstArray = array;
    copy.extent = make_cudaExtent(w, w, 6);
    copy.kind = cudaMemcpyHostToDevice;
    ASSERT_CUDA_OK(cudaMemcpy3D(&copy));
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaTextureDesc texture = {};
    cudaTextureObject_t object;
    ASSERT_CUDA_OK(cudaCreateTextureObject(&object, &resource, &texture, nullptr));
    // The guide's table: +x: s = -z, t = -y; -x: s = z, t = -y; +y: s = x, t = z; -y: s = x,
    // t = -z; +z: s = x, t = -y; -z: s = -x, t = -y; face coordinates (s/m + 1) / 2.
    std::vector<float3> directions = {
        {1, -0.5f, 0.5f},   // face 0: s = -0.5 -> texel 0, t = 0.5 -> row 1: index 2
        {-1, 0.5f, 0.5f},   // face 1: s = 0.5 -> 1, t = -0.5 -> 0: index 1
        {0.5f, 1, -0.5f},   // face 2: s = 0.5 -> 1, t = -0.5 -> 0: index 1
        {-0.5f, -1, -0.5f}, // face 3: s = -0.5 -> 0, t = 0.5 -> 1: index 2
        {0.5f, 0.5f, 1},    // face 4: s = 0.5 -> 1, t = -0.5 -> 0: index 1
        {0.5f, -0.5f, -1},  // face 5: s = -0.5 -> 0, t = 0.5 -> 1: index 2
    };
    DeviceArray<float3> d_directions(directions);
    DeviceArray<float> out(6);
    sample_cube<<<1, 6>>>(object, d_directions.get(), out.get());
    EXPECT_EQ((std::vector<float>{2, 11, 21, 32, 41, 52}), out.host());
    cudaDestroyTextureObject(object);
    cudaFreeArray(array);
}

// ---- Surfaces: x in bytes, boundary modes.
__global__ void invert_through_surface(cudaSurfaceObject_t surface, int width, int height)
{
    int x = threadIdx.x, y = threadIdx.y;
    if (x >= width || y >= height) return;
    float v = surf2Dread<float>(surface, x * (int)sizeof(float), y);
    surf2Dwrite(-v, surface, x * (int)sizeof(float), y);
}

__global__ void read_outside(cudaSurfaceObject_t surface, int width, int height, float *out)
{
    out[0] = surf2Dread<float>(surface, -4, 0, cudaBoundaryModeZero);
    out[1] = surf2Dread<float>(surface, width * 4 + 40, 0, cudaBoundaryModeClamp);  // the row's last element
    surf2Dwrite(99.0f, surface, 0, height + 5, cudaBoundaryModeZero);                 // dropped
    surf2Dread(&out[2], surface, 4, 1);                                               // the pointer form
}

TEST(Surface, Surf2DReadAndWriteAddressXInBytes)
{
    const int width = 4, height = 3;
    std::vector<float> host(width * height);
    for (int i = 0; i < width * height; ++i) host[i] = (float)(i + 1);
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    ASSERT_CUDA_OK(cudaMallocArray(&array, &desc, width, height, cudaArraySurfaceLoadStore));
    ASSERT_CUDA_OK(cudaMemcpy2DToArray(array, 0, 0, host.data(), width * sizeof(float), width * sizeof(float), height,
                                       cudaMemcpyHostToDevice));
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaSurfaceObject_t surface;
    ASSERT_CUDA_OK(cudaCreateSurfaceObject(&surface, &resource));
    invert_through_surface<<<1, dim3(width, height)>>>(surface, width, height);
    DeviceArray<float> outside(3);
    read_outside<<<1, 1>>>(surface, width, height, outside.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<float> back(width * height);
    ASSERT_CUDA_OK(cudaMemcpy2DFromArray(back.data(), width * sizeof(float), array, 0, 0, width * sizeof(float), height,
                                         cudaMemcpyDeviceToHost));
    for (int i = 0; i < width * height; ++i) EXPECT_EQ(-(float)(i + 1), back[i]) << i;
    EXPECT_EQ((std::vector<float>{0, -4, -6}), outside.host());
    cudaDestroySurfaceObject(surface);
    cudaFreeArray(array);
}

__global__ void write_1d_3d_layered(cudaSurfaceObject_t s1, cudaSurfaceObject_t s3, cudaSurfaceObject_t layered)
{
    int x = threadIdx.x;
    surf1Dwrite((unsigned char)(x + 1), s1, x);
    surf3Dwrite(make_int2(x, 7), s3, x * (int)sizeof(int2), 1, 2);
    surf2DLayeredwrite((short)(100 + x), layered, x * 2, 0, 1);
}

TEST(Surface, OneDimensionalThreeDimensionalAndLayeredSurfaces)
{
    cudaChannelFormatDesc byte = cudaCreateChannelDesc<unsigned char>(), pair = cudaCreateChannelDesc<int2>(),
                          half_word = cudaCreateChannelDesc<short>();
    cudaArray_t a1, a3, al;
    ASSERT_CUDA_OK(cudaMallocArray(&a1, &byte, 4, 0, cudaArraySurfaceLoadStore));
    ASSERT_CUDA_OK(cudaMalloc3DArray(&a3, &pair, make_cudaExtent(4, 2, 3), cudaArraySurfaceLoadStore));
    ASSERT_CUDA_OK(cudaMalloc3DArray(&al, &half_word, make_cudaExtent(4, 1, 2), cudaArraySurfaceLoadStore | cudaArrayLayered));
    cudaSurfaceObject_t s1, s3, sl;
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = a1;
    ASSERT_CUDA_OK(cudaCreateSurfaceObject(&s1, &resource));
    resource.res.array.array = a3;
    ASSERT_CUDA_OK(cudaCreateSurfaceObject(&s3, &resource));
    resource.res.array.array = al;
    ASSERT_CUDA_OK(cudaCreateSurfaceObject(&sl, &resource));
    write_1d_3d_layered<<<1, 4>>>(s1, s3, sl);
    ASSERT_CUDA_OK(cudaGetLastError());
    std::vector<unsigned char> b1(4);
    ASSERT_CUDA_OK(cudaMemcpyFromArray(b1.data(), a1, 0, 0, 4, cudaMemcpyDeviceToHost));
    EXPECT_EQ((std::vector<unsigned char>{1, 2, 3, 4}), b1);
    std::vector<int2> b3(4 * 2 * 3);
    cudaMemcpy3DParms copy = {};
    copy.srcArray = a3;
    copy.dstPtr = make_cudaPitchedPtr(b3.data(), 4 * sizeof(int2), 4, 2);
    copy.extent = make_cudaExtent(4, 2, 3);
    copy.kind = cudaMemcpyDeviceToHost;
    ASSERT_CUDA_OK(cudaMemcpy3D(&copy));
    for (int x = 0; x < 4; ++x) {
        EXPECT_EQ(x, b3[(2 * 2 + 1) * 4 + x].x);
        EXPECT_EQ(7, b3[(2 * 2 + 1) * 4 + x].y);
        EXPECT_EQ(0, b3[x].y);
    }
    std::vector<short> bl(8);
    copy = {};
    copy.srcArray = al;
    copy.dstPtr = make_cudaPitchedPtr(bl.data(), 4 * sizeof(short), 4, 1);
    copy.extent = make_cudaExtent(4, 1, 2);
    copy.kind = cudaMemcpyDeviceToHost;
    ASSERT_CUDA_OK(cudaMemcpy3D(&copy));
    EXPECT_EQ((std::vector<short>{0, 0, 0, 0, 100, 101, 102, 103}), bl);
    cudaDestroySurfaceObject(s1);
    cudaDestroySurfaceObject(s3);
    cudaDestroySurfaceObject(sl);
    cudaFreeArray(a1);
    cudaFreeArray(a3);
    cudaFreeArray(al);
}

// ---- What a GPU's driver refuses, and what the emulator does not do.
TEST(TextureErrors, TheDriversChecks)
{
    cudaChannelFormatDesc ints = cudaCreateChannelDesc<int>();
    cudaArray_t array;
    ASSERT_CUDA_OK(cudaMallocArray(&array, &ints, 8, 8));
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaTextureDesc texture = {};
    cudaTextureObject_t object;
    texture.filterMode = cudaFilterModeLinear;  // linear filtering of integers read as integers
    EXPECT_EQ(cudaErrorInvalidFilterSetting, cudaCreateTextureObject(&object, &resource, &texture, nullptr));
    texture.filterMode = cudaFilterModePoint;
    texture.readMode = cudaReadModeNormalizedFloat;  // 32-bit integers cannot be normalized
    EXPECT_EQ(cudaErrorInvalidNormSetting, cudaCreateTextureObject(&object, &resource, &texture, nullptr));
    cudaSurfaceObject_t surface;  // no cudaArraySurfaceLoadStore
    EXPECT_EQ(cudaErrorInvalidValue, cudaCreateSurfaceObject(&surface, &resource));
    std::vector<int> host(8 * 9);  // a row too many
    EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy2DToArray(array, 0, 0, host.data(), 32, 32, 9, cudaMemcpyHostToDevice));
    EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy2DToArray(array, 4, 0, host.data(), 32, 32, 1, cudaMemcpyHostToDevice));
    EXPECT_EQ(cudaErrorInvalidMemcpyDirection,
              cudaMemcpy2DToArray(array, 0, 0, host.data(), 32, 32, 1, cudaMemcpyDeviceToHost));
    cudaChannelFormatDesc three = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
    cudaArray_t bad;
    EXPECT_EQ(cudaErrorInvalidChannelDescriptor, cudaMallocArray(&bad, &three, 4));
    EXPECT_EQ(cudaErrorInvalidValue, cudaMalloc3DArray(&bad, &ints, make_cudaExtent(4, 5, 6), cudaArrayCubemap));
    int *device;
    ASSERT_CUDA_OK(cudaMalloc(&device, 64));
    resource = {};
    resource.resType = cudaResourceTypeLinear;
    resource.res.linear.devPtr = device;
    resource.res.linear.desc = ints;
    resource.res.linear.sizeInBytes = 128;  // past the allocation
    texture = {};
    EXPECT_EQ(cudaErrorInvalidValue, cudaCreateTextureObject(&object, &resource, &texture, nullptr));
    cudaFree(device);
    ASSERT_CUDA_OK(cudaFreeArray(array));
    EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaFreeArray(array));
    cudaChannelFormatDesc got;
    EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaGetChannelDesc(&got, array));
    EXPECT_EQ(cudaErrorInvalidValue, cudaDestroyTextureObject(12345));
    cudaGetLastError();
}

TEST(TextureErrors, OneRunCopiesToAndFromAnArrayCheckTheKindAndTheEnd)
{
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<unsigned char>();
    cudaArray_t array;
    ASSERT_CUDA_OK(cudaMallocArray(&array, &desc, 8, 2));  // 16 bytes, 8 a row
    std::vector<unsigned char> values = {1, 2, 3, 4, 5, 6}, back(4);
    // Bytes 4 to 9, then 6 to 9 back: both runs go on from row 0 into row 1.
    ASSERT_CUDA_OK(cudaMemcpyToArray(array, 4, 0, values.data(), values.size(), cudaMemcpyHostToDevice));
    ASSERT_CUDA_OK(cudaMemcpyFromArray(back.data(), array, 6, 0, back.size(), cudaMemcpyDeviceToHost));
    EXPECT_EQ((std::vector<unsigned char>{3, 4, 5, 6}), back);
    EXPECT_EQ(cudaErrorInvalidMemcpyDirection,
              cudaMemcpyToArray(array, 0, 0, values.data(), values.size(), cudaMemcpyDeviceToHost));
    EXPECT_EQ(cudaErrorInvalidMemcpyDirection,
              cudaMemcpyFromArray(back.data(), array, 0, 0, back.size(), cudaMemcpyHostToDevice));
    EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpyToArray(array, 4, 1, values.data(), values.size(), cudaMemcpyHostToDevice))
        << "6 bytes from byte 4 of the last row run past the array";
    EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpyFromArray(back.data(), array, 8, 0, 1, cudaMemcpyDeviceToHost))
        << "byte 8 of an 8-byte row";
    cudaGetLastError();
    ASSERT_CUDA_OK(cudaFreeArray(array));
}

TEST(TextureErrors, ArrayInfoAndTheTextureDescriptionsComeBack)
{
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float2>();
    cudaArray_t array;
    ASSERT_CUDA_OK(cudaMalloc3DArray(&array, &desc, make_cudaExtent(5, 4, 3), cudaArrayLayered));
    cudaChannelFormatDesc got;
    cudaExtent extent;
    unsigned int flags;
    ASSERT_CUDA_OK(cudaArrayGetInfo(&got, &extent, &flags, array));
    EXPECT_EQ(32, got.y);
    EXPECT_EQ(0, got.z);
    EXPECT_EQ(5u, extent.width);
    EXPECT_EQ(3u, extent.depth);
    EXPECT_EQ((unsigned)cudaArrayLayered, flags);
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaTextureDesc texture = {};
    texture.addressMode[1] = cudaAddressModeBorder;
    cudaTextureObject_t object;
    ASSERT_CUDA_OK(cudaCreateTextureObject(&object, &resource, &texture, nullptr));
    cudaTextureDesc texture_back;
    cudaResourceDesc resource_back;
    ASSERT_CUDA_OK(cudaGetTextureObjectTextureDesc(&texture_back, object));
    ASSERT_CUDA_OK(cudaGetTextureObjectResourceDesc(&resource_back, object));
    EXPECT_EQ(cudaAddressModeBorder, texture_back.addressMode[1]);
    EXPECT_EQ(array, resource_back.res.array.array);
    cudaDestroyTextureObject(object);
    cudaFreeArray(array);
}

// ---- Misuses a GPU would not report (a wrong result, a trap): the emulator stops and says.
__global__ void read_int_from_float_texture(cudaTextureObject_t texture, int *out)
{
    out[0] = tex1D<int>(texture, 0.5f);
}
__global__ void read_2d_from_1d(cudaTextureObject_t texture, float *out) { out[0] = tex2D<float>(texture, 0.5f, 0.5f); }
__global__ void write_past_surface(cudaSurfaceObject_t surface) { surf2Dwrite(1.0f, surface, 4 * 4, 0); }

TEST(TextureDeathTest, MisusesStopWithTheLineAndWhatToDo)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    Texture1D texture({1, 2}, cudaFilterModePoint, cudaAddressModeClamp, false);
    DeviceArray<int> out(1);
    DeviceArray<float> out_f(1);
    EXPECT_DEATH(read_int_from_float_texture<<<1, 1>>>(texture.object, out.get()),
                 "tex1D at .*texture_test.cu:[0-9]+ in kernel read_int_from_float_texture.* asks for integers, but "
                 "texture object [0-9]+ holds 1 x 32-bit float read as element type, which returns floats");
    EXPECT_DEATH(read_2d_from_1d<<<1, 1>>>(texture.object, out_f.get()),
                 "tex2D at .*texture_test.cu:[0-9]+.*is a 1D array \\(2\\), which tex2D does not read; use tex1D");
    cudaTextureObject_t destroyed;
    {
        Texture1D gone({1}, cudaFilterModePoint, cudaAddressModeClamp, false);
        destroyed = gone.object;
    }
    EXPECT_DEATH(read_2d_from_1d<<<1, 1>>>(destroyed, out_f.get()), "which cudaDestroyTextureObject destroyed");

    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    ASSERT_CUDA_OK(cudaMallocArray(&array, &desc, 4, 2, cudaArraySurfaceLoadStore));
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaSurfaceObject_t surface;
    ASSERT_CUDA_OK(cudaCreateSurfaceObject(&surface, &resource));
    EXPECT_DEATH(write_past_surface<<<1, 1>>>(surface),
                 "surf2Dwrite at .*texture_test.cu:[0-9]+.*4 bytes at byte x = 16, y = 0.* are outside surface "
                 "object .*cudaBoundaryModeTrap.*did you pass x \\* sizeof\\(element\\)\\?");
    cudaDestroySurfaceObject(surface);
    cudaFreeArray(array);
}

// ---- The race detector sees surface writes as the global stores they are.
__global__ void racy_surface_writes(cudaSurfaceObject_t surface) { surf2Dwrite((float)threadIdx.x, surface, 0, 0); }
__global__ void own_surface_elements(cudaSurfaceObject_t surface)
{
    surf2Dwrite((float)threadIdx.x, surface, (int)threadIdx.x * 4, 0);
}

TEST(TextureRacecheck, TwoThreadsWritingOneSurfaceElementAreARace)
{
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    ASSERT_CUDA_OK(cudaMallocArray(&array, &desc, 32, 1, cudaArraySurfaceLoadStore));
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaSurfaceObject_t surface;
    ASSERT_CUDA_OK(cudaCreateSurfaceObject(&surface, &resource));
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            setenv("EMU_RACECHECK", "1", 1);
            own_surface_elements<<<1, 32>>>(surface);
            cudaDeviceSynchronize();
            std::exit(0);
        },
        ::testing::ExitedWithCode(0), "^$");
    EXPECT_EXIT(
        {
            setenv("EMU_RACECHECK", "1", 1);
            racy_surface_writes<<<1, 32>>>(surface);
            cudaDeviceSynchronize();
            std::exit(0);
        },
        ::testing::ExitedWithCode(LAB_EXIT_RACE),
        "data race on global memory surface\\[...\\] at 0x[0-9a-f]+: thread \\([0-9]+,0,0\\) of block \\(0,0,0\\) "
        "writes [0-9]+ at .*texture_test.cu:[0-9]+, thread \\([0-9]+,0,0\\) of block \\(0,0,0\\) writes [0-9]+");
    cudaDestroySurfaceObject(surface);
    cudaFreeArray(array);
}

// ---- AddressSanitizer sees through a fetch: a texture whose memory was freed (built with
// ASan, tests/emu/asan/texture_after_free.cu).
TEST(TextureAddressSanitizer, AFetchOfFreedMemoryIsReportedAtTheFetchsLine)
{
    const std::string program = "texture_after_free";
    const std::string source = std::string(EMU_REPO_ROOT) + "/tests/emu/asan/" + program + ".cu";
    FILE *file = fopen(source.c_str(), "r");
    ASSERT_NE(nullptr, file) << source;
    char text[512];
    int line = 0, planted = -1;
    while (fgets(text, sizeof text, file)) {
        ++line;
        if (strstr(text, "PLANTED")) planted = line;
    }
    fclose(file);
    CommandResult run = run_command(std::string(EMU_TEST_PROGRAMS) + "/asan/" + program);
    EXPECT_NE(0, run.status) << run.output;
    EXPECT_NE(std::string::npos, run.output.find("ERROR: AddressSanitizer: heap-use-after-free")) << run.output;
    const std::string location = "tests/emu/asan/" + program + ".cu:" + std::to_string(planted);
    EXPECT_NE(std::string::npos, run.output.find(location)) << "expected " << location << " in:\n" << run.output;
    EXPECT_EQ(std::string::npos, run.output.find("finished without a report"));
}

// ---- The other shapes: 1D layered, layered cube maps and their surfaces; 16-bit floats.
__global__ void layered_and_cube_fetches(cudaTextureObject_t layered_1d, cudaTextureObject_t cube_layers,
                                         cudaSurfaceObject_t cube_surface, float *out)
{
    out[0] = tex1DLayered<float>(layered_1d, 2.5f, 1);                    // layer 1, texel 2
    out[1] = texCubemapLayered<float>(cube_layers, 0.0f, 0.0f, -1.0f, 1); // layer 1, face 5, centre
    surfCubemapLayeredwrite(77.0f, cube_surface, 4, 0, 6 + 3);            // layer 1, face 3, texel (1, 0)
    out[2] = surfCubemapLayeredread<float>(cube_surface, 4, 0, 9);
    out[3] = surfCubemapLayeredread<float>(cube_surface, 0, 1, 2);       // layer 0, face 2
}

TEST(Texture, OneDimensionalLayersAndLayeredCubeMaps)
{
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t layers_1d, cubes;
    ASSERT_CUDA_OK(cudaMalloc3DArray(&layers_1d, &desc, make_cudaExtent(4, 0, 2), cudaArrayLayered));
    std::vector<float> host_1d = {0, 1, 2, 3, 10, 11, 12, 13};
    cudaMemcpy3DParms copy = {};
    copy.srcPtr = make_cudaPitchedPtr(host_1d.data(), 4 * sizeof(float), 4, 1);
    copy.dstArray = layers_1d;
    copy.extent = make_cudaExtent(4, 1, 2);
    copy.kind = cudaMemcpyHostToDevice;
    ASSERT_CUDA_OK(cudaMemcpy3D(&copy));
    const int w = 2;
    ASSERT_CUDA_OK(cudaMalloc3DArray(&cubes, &desc, make_cudaExtent(w, w, 12),
                                     cudaArrayCubemap | cudaArrayLayered | cudaArraySurfaceLoadStore));
    std::vector<float> host_cube(w * w * 12);
    for (int slice = 0; slice < 12; ++slice)
        for (int i = 0; i < w * w; ++i) host_cube[slice * w * w + i] = (float)(100 * slice);
    copy = {};
    copy.srcPtr = make_cudaPitchedPtr(host_cube.data(), w * sizeof(float), w, w);
    copy.dstArray = cubes;
    copy.extent = make_cudaExtent(w, w, 12);
    copy.kind = cudaMemcpyHostToDevice;
    ASSERT_CUDA_OK(cudaMemcpy3D(&copy));
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    cudaTextureDesc texture = {};
    cudaTextureObject_t layered_texture, cube_texture;
    resource.res.array.array = layers_1d;
    ASSERT_CUDA_OK(cudaCreateTextureObject(&layered_texture, &resource, &texture, nullptr));
    resource.res.array.array = cubes;
    ASSERT_CUDA_OK(cudaCreateTextureObject(&cube_texture, &resource, &texture, nullptr));
    cudaSurfaceObject_t cube_surface;
    ASSERT_CUDA_OK(cudaCreateSurfaceObject(&cube_surface, &resource));
    DeviceArray<float> out(4);
    layered_and_cube_fetches<<<1, 1>>>(layered_texture, cube_texture, cube_surface, out.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    EXPECT_EQ((std::vector<float>{12, 1100, 77, 200}), out.host());
    cudaDestroyTextureObject(layered_texture);
    cudaDestroyTextureObject(cube_texture);
    cudaDestroySurfaceObject(cube_surface);
    cudaFreeArray(layers_1d);
    cudaFreeArray(cubes);
}

__global__ void fetch_halves(cudaTextureObject_t texture, float2 *out)
{
    out[0] = tex1D<float2>(texture, 0.5f);
    out[1] = tex1D<float2>(texture, 1.0f);  // linear: halfway between texels 0 and 1
}

TEST(Texture, SixteenBitFloatsAreWidenedAndFiltered)
{
    // 1.0, -2.0 and 0.5, 65504 (the largest half), as IEEE half-precision bits.
    std::vector<unsigned short> halves = {0x3c00, 0xc000, 0x3800, 0x7bff};
    cudaChannelFormatDesc desc = cudaCreateChannelDescHalf2();
    cudaArray_t array;
    ASSERT_CUDA_OK(cudaMallocArray(&array, &desc, 2));
    ASSERT_CUDA_OK(cudaMemcpyToArray(array, 0, 0, halves.data(), halves.size() * 2, cudaMemcpyHostToDevice));
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaTextureDesc texture = {};
    texture.filterMode = cudaFilterModeLinear;
    cudaTextureObject_t object;
    ASSERT_CUDA_OK(cudaCreateTextureObject(&object, &resource, &texture, nullptr));
    DeviceArray<float2> out(2);
    fetch_halves<<<1, 1>>>(object, out.get());
    std::vector<float2> got = out.host();
    EXPECT_EQ(1.0f, got[0].x);
    EXPECT_EQ(-2.0f, got[0].y);
    EXPECT_EQ(0.75f, got[1].x);
    EXPECT_EQ((-2.0f + 65504.0f) / 2, got[1].y);
    cudaDestroyTextureObject(object);
    cudaFreeArray(array);
}
