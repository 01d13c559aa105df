// CUDA arrays and texture and surface objects as the runtime holds them (src/api/arrays.cpp,
// src/api/textures.cpp) and device code reads them (src/engine/texture_sampling.cpp).
//
// An array is host memory, its elements packed row after row, slice after slice (layers and
// cube faces are slices). A cudaArray_t is the address of a record the runtime never frees: a
// freed array keeps its record, marked dead, so that a use after cudaFreeArray is reported as
// that rather than read from freed memory. Texture and surface handles are indices into tables
// that remember destroyed handles the same way (textures.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda_runtime.h"

struct cudaArray {
    std::uint32_t magic;
    bool live;
    cudaChannelFormatDesc desc;
    cudaExtent extent;  // as asked (0 for a dimension the array lacks)
    unsigned int flags;
    int device;
    unsigned int channels;
    std::size_t channel_bytes;
    std::size_t element_bytes;
    // The stored shape: at least 1 in each dimension.
    std::size_t width, height, depth;
    char *data;
};

namespace cudaemu {

constexpr std::uint32_t kArrayMagic = 0xA22A7u;
constexpr std::uint32_t kTextureMagic = 0x7E47u;
constexpr std::uint32_t kSurfaceMagic = 0x5F2Fu;

// The layout of an element: channels of one size and kind.
struct ElementFormat {
    cudaChannelFormatKind kind;
    unsigned int channels;
    std::size_t channel_bytes;
    std::size_t element_bytes() const { return channels * channel_bytes; }
};

// What a texture or surface reads: the memory and its shape.
struct TexelStore {
    char *base;
    ElementFormat format;
    std::size_t width, height, depth;  // depth holds the layers or faces of a layered or cube-map array
    std::size_t row_bytes, slice_bytes;
    bool layered, cubemap, linear, pitch2d;
    const cudaArray *array;  // null for linear and pitch2D memory
};

struct TextureObject {
    std::uint32_t magic;
    bool live;
    cudaResourceDesc resource;
    cudaTextureDesc description;
    TexelStore store;
    bool returns_float;  // float formats, or cudaReadModeNormalizedFloat
};

struct SurfaceObject {
    std::uint32_t magic;
    bool live;
    cudaResourceDesc resource;
    TexelStore store;
};

enum class HandleState { Unknown, Destroyed, Live };
HandleState find_texture(cudaTextureObject_t handle, const TextureObject **found);
HandleState find_surface(cudaSurfaceObject_t handle, const SurfaceObject **found);

// The format `desc` names, or an error (recorded and explained, naming `call`).
cudaError_t element_format(const char *call, const cudaChannelFormatDesc &desc, ElementFormat *format);
// The live array `array` is, or null after explaining why not (naming `call`).
cudaArray *live_array(const char *call, cudaArray_const_t array);
const char *format_name(const ElementFormat &format, char *buffer, std::size_t size);

}  // namespace cudaemu
