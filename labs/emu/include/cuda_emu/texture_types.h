// CUDA arrays, textures and surfaces: the runtime's types (CUDA 13's names, numbers and
// layouts, from driver_types.h, texture_types.h and surface_types.h) and the API calls that
// make and fill them. The device functions that read them are in texture_fetch.h; what the
// emulator does and where it differs from a GPU is in labs/emu/README.md ("Textures").
#pragma once

#include <cstddef>

#include "../driver_types.h"
#include "../vector_types.h"

enum cudaChannelFormatKind {
    cudaChannelFormatKindSigned   = 0,
    cudaChannelFormatKindUnsigned = 1,
    cudaChannelFormatKindFloat    = 2,
    cudaChannelFormatKindNone     = 3,
    cudaChannelFormatKindNV12     = 4,
    // The packed and block-compressed kinds of CUDA 11.5 and later are not emulated: an array
    // or texture of one fails with cudaErrorInvalidChannelDescriptor and says so.
    cudaChannelFormatKindUnsignedNormalized8X1 = 5,
    cudaChannelFormatKindUnsignedNormalized8X2 = 6,
    cudaChannelFormatKindUnsignedNormalized8X4 = 7,
    cudaChannelFormatKindUnsignedNormalized16X1 = 8,
    cudaChannelFormatKindUnsignedNormalized16X2 = 9,
    cudaChannelFormatKindUnsignedNormalized16X4 = 10,
    cudaChannelFormatKindSignedNormalized8X1 = 11,
    cudaChannelFormatKindSignedNormalized8X2 = 12,
    cudaChannelFormatKindSignedNormalized8X4 = 13,
    cudaChannelFormatKindSignedNormalized16X1 = 14,
    cudaChannelFormatKindSignedNormalized16X2 = 15,
    cudaChannelFormatKindSignedNormalized16X4 = 16,
};

// Bits per channel (x, y, z, w; 0 for a channel the format lacks) and their kind.
struct cudaChannelFormatDesc {
    int x;
    int y;
    int z;
    int w;
    enum cudaChannelFormatKind f;
};

// A CUDA array: device memory laid out for textures and surfaces, reached only through copies,
// texture fetches and surface reads and writes. Opaque, as in CUDA.
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
typedef const struct cudaMipmappedArray *cudaMipmappedArray_const_t;

#define cudaArrayDefault          0x00
#define cudaArrayLayered          0x01
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayCubemap          0x04
#define cudaArrayTextureGather    0x08
#define cudaArrayColorAttachment  0x20
#define cudaArraySparse           0x40
#define cudaArrayDeferredMapping  0x80

struct cudaExtent {
    size_t width;   // elements for an array; bytes for linear memory
    size_t height;
    size_t depth;
};
struct cudaPos {
    size_t x;
    size_t y;
    size_t z;
};
struct cudaPitchedPtr {
    void *ptr;
    size_t pitch;  // bytes from one row to the next
    size_t xsize;  // the row's width in bytes
    size_t ysize;  // rows in a slice
};
struct cudaMemcpy3DParms {
    cudaArray_t srcArray;
    struct cudaPos srcPos;
    struct cudaPitchedPtr srcPtr;
    cudaArray_t dstArray;
    struct cudaPos dstPos;
    struct cudaPitchedPtr dstPtr;
    struct cudaExtent extent;
    enum cudaMemcpyKind kind;
};

inline cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) { return cudaExtent{w, h, d}; }
inline cudaPos make_cudaPos(size_t x, size_t y, size_t z) { return cudaPos{x, y, z}; }
inline cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz)
{
    return cudaPitchedPtr{d, p, xsz, ysz};
}

enum cudaResourceType {
    cudaResourceTypeArray          = 0x00,
    cudaResourceTypeMipmappedArray = 0x01,
    cudaResourceTypeLinear         = 0x02,
    cudaResourceTypePitch2D        = 0x03,
};

enum cudaResourceViewFormat {
    cudaResViewFormatNone = 0x00,
};

struct cudaResourceDesc {
    enum cudaResourceType resType;
    union {
        struct {
            cudaArray_t array;
        } array;
        struct {
            cudaMipmappedArray_t mipmap;
        } mipmap;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t sizeInBytes;
        } linear;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t width;  // in elements
            size_t height;
            size_t pitchInBytes;
        } pitch2D;
        int reserved[32];
    } res;
    unsigned int flags;
};

struct cudaResourceViewDesc {
    enum cudaResourceViewFormat format;
    size_t width;
    size_t height;
    size_t depth;
    unsigned int firstMipmapLevel;
    unsigned int lastMipmapLevel;
    unsigned int firstLayer;
    unsigned int lastLayer;
    unsigned int reserved[16];
};

enum cudaTextureAddressMode {
    cudaAddressModeWrap   = 0,
    cudaAddressModeClamp  = 1,
    cudaAddressModeMirror = 2,
    cudaAddressModeBorder = 3,
};
enum cudaTextureFilterMode {
    cudaFilterModePoint  = 0,
    cudaFilterModeLinear = 1,
};
enum cudaTextureReadMode {
    cudaReadModeElementType     = 0,
    cudaReadModeNormalizedFloat = 1,
};

struct cudaTextureDesc {
    enum cudaTextureAddressMode addressMode[3];
    enum cudaTextureFilterMode filterMode;
    enum cudaTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    enum cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int seamlessCubemap;
};

enum cudaSurfaceBoundaryMode {
    cudaBoundaryModeZero  = 0,
    cudaBoundaryModeClamp = 1,
    cudaBoundaryModeTrap  = 2,
};
enum cudaSurfaceFormatMode {
    cudaFormatModeForced = 0,
    cudaFormatModeAuto   = 1,
};

typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

#define cudaTextureType1D              0x01
#define cudaTextureType2D              0x02
#define cudaTextureType3D              0x03
#define cudaTextureTypeCubemap         0x0C
#define cudaTextureType1DLayered       0xF1
#define cudaTextureType2DLayered       0xF2
#define cudaTextureTypeCubemapLayered  0xFC
#define cudaSurfaceType1D              0x01
#define cudaSurfaceType2D              0x02
#define cudaSurfaceType3D              0x03
#define cudaSurfaceTypeCubemap         0x0C
#define cudaSurfaceType1DLayered       0xF1
#define cudaSurfaceType2DLayered       0xF2
#define cudaSurfaceTypeCubemapLayered  0xFC

extern "C" {
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f);
cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array);

// Arrays: width, height (0 for 1D) and depth (0 for 2D) in elements; a layered array keeps
// its layers in depth, a cube map (width == height) its 6 faces.
cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                            size_t height = 0, unsigned int flags = 0);
cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
                              unsigned int flags = 0);
cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray, const struct cudaChannelFormatDesc *desc,
                                     struct cudaExtent extent, unsigned int numLevels, unsigned int flags = 0);
cudaError_t cudaFreeArray(cudaArray_t array);
cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray);
cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent, unsigned int *flags,
                             cudaArray_t array);
cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent);
cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent);
cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent,
                              cudaStream_t stream = 0);

// Copies into and out of arrays. wOffset is in bytes, hOffset in rows (as in CUDA).
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                              enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                                   enum cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                     enum cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                  size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                     size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
                                     cudaStream_t stream = 0);
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind,
                                       cudaStream_t stream = 0);
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src,
                                     size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height,
                                     enum cudaMemcpyKind kind = cudaMemcpyDeviceToDevice);
// Positions and the extent are in elements where an array takes part, in bytes (x) for memory.
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream = 0);

// Texture and surface objects.
cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc,
                                    const struct cudaTextureDesc *pTexDesc,
                                    const struct cudaResourceViewDesc *pResViewDesc);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject);
cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc, cudaTextureObject_t texObject);
cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc, cudaTextureObject_t texObject);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject, const struct cudaResourceDesc *pResDesc);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject);
cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc, cudaSurfaceObject_t surfObject);
}  // extern "C"

// cudaCreateChannelDesc<T>(): the format of T, as in CUDA's channel_descriptor.h.
namespace cudaemu {
template <class T>
struct ChannelOf;
#define CUDAEMU_CHANNELS(type, kind, n)                                                                \
    template <>                                                                                       \
    struct ChannelOf<type> {                                                                          \
        static cudaChannelFormatDesc desc()                                                           \
        {                                                                                             \
            const int bits = (int)(sizeof(type) / (n) * 8);                                           \
            return cudaChannelFormatDesc{bits, (n) > 1 ? bits : 0, (n) > 2 ? bits : 0, (n) > 3 ? bits : 0, \
                                         kind};                                                       \
        }                                                                                             \
    };
#define CUDAEMU_CHANNELS_1_2_4(scalar, vec, kind) \
    CUDAEMU_CHANNELS(scalar, kind, 1)             \
    CUDAEMU_CHANNELS(vec##1, kind, 1)             \
    CUDAEMU_CHANNELS(vec##2, kind, 2)             \
    CUDAEMU_CHANNELS(vec##4, kind, 4)
CUDAEMU_CHANNELS(char, cudaChannelFormatKindSigned, 1)
CUDAEMU_CHANNELS_1_2_4(signed char, char, cudaChannelFormatKindSigned)
CUDAEMU_CHANNELS_1_2_4(unsigned char, uchar, cudaChannelFormatKindUnsigned)
CUDAEMU_CHANNELS_1_2_4(short, short, cudaChannelFormatKindSigned)
CUDAEMU_CHANNELS_1_2_4(unsigned short, ushort, cudaChannelFormatKindUnsigned)
CUDAEMU_CHANNELS_1_2_4(int, int, cudaChannelFormatKindSigned)
CUDAEMU_CHANNELS_1_2_4(unsigned int, uint, cudaChannelFormatKindUnsigned)
CUDAEMU_CHANNELS_1_2_4(float, float, cudaChannelFormatKindFloat)
#undef CUDAEMU_CHANNELS_1_2_4
#undef CUDAEMU_CHANNELS
}  // namespace cudaemu

template <class T>
inline cudaChannelFormatDesc cudaCreateChannelDesc()
{
    return cudaemu::ChannelOf<T>::desc();
}
// 16-bit floats (cuda_fp16.h's __half) by their format.
inline cudaChannelFormatDesc cudaCreateChannelDescHalf() { return cudaChannelFormatDesc{16, 0, 0, 0, cudaChannelFormatKindFloat}; }
inline cudaChannelFormatDesc cudaCreateChannelDescHalf1() { return cudaChannelFormatDesc{16, 0, 0, 0, cudaChannelFormatKindFloat}; }
inline cudaChannelFormatDesc cudaCreateChannelDescHalf2() { return cudaChannelFormatDesc{16, 16, 0, 0, cudaChannelFormatKindFloat}; }
inline cudaChannelFormatDesc cudaCreateChannelDescHalf4() { return cudaChannelFormatDesc{16, 16, 16, 16, cudaChannelFormatKindFloat}; }
