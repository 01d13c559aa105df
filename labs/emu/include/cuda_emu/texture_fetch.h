// Texture fetches and surface reads and writes in device code: tex1D, tex2D, tex3D, tex1Dfetch,
// the layered and cube-map forms, and surf1D/2D/3D(read|write) and kin, on the objects of
// cudaCreateTextureObject and cudaCreateSurfaceObject. The runtime (src/engine/texture_sampling.cpp)
// addresses, filters and converts as the CUDA programming guide's "Texture Fetching" appendix
// says; these templates turn its texel into the type asked for, and stop the program with an
// explanation when that type cannot be read from the texture (a float from an integer texture
// read as element type, four channels from a one-channel texture).
#pragma once

#include <cstring>
#include <type_traits>

#include "memory_access.h"
#include "texture_types.h"

namespace cudaemu {

enum class TexCall : unsigned char { Fetch1D, Tex1D, Tex2D, Tex3D, Tex1DLayered, Tex2DLayered, Cubemap, CubemapLayered };
enum class SurfCall : unsigned char { Surf1D, Surf2D, Surf3D, Surf1DLayered, Surf2DLayered, Cubemap, CubemapLayered };

// One filtered texel: floats for float textures and for cudaReadModeNormalizedFloat, else the
// integers of the format (sign- or zero-extended).
struct Texel {
    union {
        float f[4];
        int i[4];
        unsigned int u[4];
    } v;
    unsigned char channels;
    bool is_float;
};

Texel texture_read(cudaTextureObject_t texture, TexCall call, float x, float y, float z, int layer, const char *file,
                   int line);
Texel texture_fetch_linear(cudaTextureObject_t texture, int x, const char *file, int line);
[[noreturn]] void texel_type_mismatch(cudaTextureObject_t texture, const char *function, const char *file, int line,
                                      int want_channels, bool want_float);

// The bytes a surface access touches, or null (cudaBoundaryModeZero, out of range). `x` is in
// bytes, as in CUDA.
void *surface_address(cudaSurfaceObject_t surface, SurfCall call, int x, int y, int z, int layer, std::size_t size,
                      cudaSurfaceBoundaryMode mode, bool write, const char *file, int line);
// The access site of a surface write, for the race detector (made once per file and line).
const AccessSite *surface_site(const char *file, int line);

// What a fetch may return: float, int, ... and their 1-, 2- and 4-vectors.
template <class T>
struct TexelOf {
    static constexpr int channels = 0;
};
#define CUDAEMU_TEXEL_SCALAR(type)                                                                  \
    template <>                                                                                     \
    struct TexelOf<type> {                                                                          \
        using Component = type;                                                                     \
        static constexpr int channels = 1;                                                          \
        static type make(const Texel &t) { return component<type>(t, 0); }                          \
    };
#define CUDAEMU_TEXEL_VECTORS(comp, vec)                                                            \
    template <>                                                                                     \
    struct TexelOf<vec##1> {                                                                        \
        using Component = comp;                                                                     \
        static constexpr int channels = 1;                                                          \
        static vec##1 make(const Texel &t) { return vec##1{component<comp>(t, 0)}; }                \
    };                                                                                              \
    template <>                                                                                     \
    struct TexelOf<vec##2> {                                                                        \
        using Component = comp;                                                                     \
        static constexpr int channels = 2;                                                          \
        static vec##2 make(const Texel &t) { return vec##2{component<comp>(t, 0), component<comp>(t, 1)}; } \
    };                                                                                              \
    template <>                                                                                     \
    struct TexelOf<vec##4> {                                                                        \
        using Component = comp;                                                                     \
        static constexpr int channels = 4;                                                          \
        static vec##4 make(const Texel &t)                                                          \
        {                                                                                           \
            return vec##4{component<comp>(t, 0), component<comp>(t, 1), component<comp>(t, 2),      \
                          component<comp>(t, 3)};                                                   \
        }                                                                                           \
    };

template <class C>
inline C component(const Texel &t, int k)
{
    if constexpr (std::is_floating_point<C>::value)
        return (C)t.v.f[k];
    else if constexpr (std::is_signed<C>::value)
        return (C)t.v.i[k];
    else
        return (C)t.v.u[k];
}

CUDAEMU_TEXEL_SCALAR(float)
CUDAEMU_TEXEL_SCALAR(char)
CUDAEMU_TEXEL_SCALAR(signed char)
CUDAEMU_TEXEL_SCALAR(unsigned char)
CUDAEMU_TEXEL_SCALAR(short)
CUDAEMU_TEXEL_SCALAR(unsigned short)
CUDAEMU_TEXEL_SCALAR(int)
CUDAEMU_TEXEL_SCALAR(unsigned int)
CUDAEMU_TEXEL_VECTORS(float, float)
CUDAEMU_TEXEL_VECTORS(signed char, char)
CUDAEMU_TEXEL_VECTORS(unsigned char, uchar)
CUDAEMU_TEXEL_VECTORS(short, short)
CUDAEMU_TEXEL_VECTORS(unsigned short, ushort)
CUDAEMU_TEXEL_VECTORS(int, int)
CUDAEMU_TEXEL_VECTORS(unsigned int, uint)
#undef CUDAEMU_TEXEL_SCALAR
#undef CUDAEMU_TEXEL_VECTORS

template <class T>
inline T texel_as(const Texel &t, cudaTextureObject_t texture, const char *function, const char *file, int line)
{
    static_assert(TexelOf<T>::channels > 0,
                  "a texture fetch returns float, char, short, int (signed or unsigned) or their 1-, 2- or "
                  "4-vectors (float4, uchar4, ...)");
    constexpr bool want_float = std::is_floating_point<typename TexelOf<T>::Component>::value;
    if (__builtin_expect(TexelOf<T>::channels > t.channels || want_float != t.is_float, 0))
        texel_type_mismatch(texture, function, file, line, TexelOf<T>::channels, want_float);
    return TexelOf<T>::make(t);
}
}  // namespace cudaemu

// ---- Texture fetches. Each also has CUDA's form that stores through a pointer.
#define CUDAEMU_WHERE const char *cudaemu_file = __builtin_FILE(), int cudaemu_line = __builtin_LINE()
#define CUDAEMU_FETCH(name, params, call, ...)                                                            \
    template <class T>                                                                                    \
    inline T name(cudaTextureObject_t texObject, params, CUDAEMU_WHERE)                                   \
    {                                                                                                     \
        return cudaemu::texel_as<T>(cudaemu::texture_read(texObject, cudaemu::TexCall::call, __VA_ARGS__, \
                                                          cudaemu_file, cudaemu_line),                    \
                                    texObject, #name, cudaemu_file, cudaemu_line);                        \
    }                                                                                                     \
    template <class T>                                                                                    \
    inline void name(T *result, cudaTextureObject_t texObject, params, CUDAEMU_WHERE)                     \
    {                                                                                                     \
        *result = cudaemu::texel_as<T>(cudaemu::texture_read(texObject, cudaemu::TexCall::call, __VA_ARGS__, \
                                                             cudaemu_file, cudaemu_line),                 \
                                       texObject, #name, cudaemu_file, cudaemu_line);                     \
    }
#define CUDAEMU_COMMA ,
CUDAEMU_FETCH(tex1D, float x, Tex1D, x, 0.0f, 0.0f, 0)
CUDAEMU_FETCH(tex2D, float x CUDAEMU_COMMA float y, Tex2D, x, y, 0.0f, 0)
CUDAEMU_FETCH(tex3D, float x CUDAEMU_COMMA float y CUDAEMU_COMMA float z, Tex3D, x, y, z, 0)
CUDAEMU_FETCH(tex1DLayered, float x CUDAEMU_COMMA int layer, Tex1DLayered, x, 0.0f, 0.0f, layer)
CUDAEMU_FETCH(tex2DLayered, float x CUDAEMU_COMMA float y CUDAEMU_COMMA int layer, Tex2DLayered, x, y, 0.0f, layer)
CUDAEMU_FETCH(texCubemap, float x CUDAEMU_COMMA float y CUDAEMU_COMMA float z, Cubemap, x, y, z, 0)
CUDAEMU_FETCH(texCubemapLayered, float x CUDAEMU_COMMA float y CUDAEMU_COMMA float z CUDAEMU_COMMA int layer,
              CubemapLayered, x, y, z, layer)
// Without mipmaps (the emulator has none) every level of detail reads level 0, as on a GPU for
// a texture of one level.
CUDAEMU_FETCH(tex1DLod, float x CUDAEMU_COMMA float, Tex1D, x, 0.0f, 0.0f, 0)
CUDAEMU_FETCH(tex2DLod, float x CUDAEMU_COMMA float y CUDAEMU_COMMA float, Tex2D, x, y, 0.0f, 0)
CUDAEMU_FETCH(tex3DLod, float x CUDAEMU_COMMA float y CUDAEMU_COMMA float z CUDAEMU_COMMA float, Tex3D, x, y, z, 0)
#undef CUDAEMU_FETCH
#undef CUDAEMU_COMMA

template <class T>
inline T tex1Dfetch(cudaTextureObject_t texObject, int x, CUDAEMU_WHERE)
{
    return cudaemu::texel_as<T>(cudaemu::texture_fetch_linear(texObject, x, cudaemu_file, cudaemu_line), texObject,
                                "tex1Dfetch", cudaemu_file, cudaemu_line);
}
template <class T>
inline void tex1Dfetch(T *result, cudaTextureObject_t texObject, int x, CUDAEMU_WHERE)
{
    *result = tex1Dfetch<T>(texObject, x, cudaemu_file, cudaemu_line);
}

// ---- Surfaces: x is in bytes; the boundary mode says what an access outside the surface
// does (cudaBoundaryModeTrap: stops the kernel, here with a message).
namespace cudaemu {
template <class T>
inline void surface_write(const T &data, cudaSurfaceObject_t surface, SurfCall call, int x, int y, int z, int layer,
                          cudaSurfaceBoundaryMode mode, const char *file, int line)
{
    static_assert(std::is_trivially_copyable<T>::value, "surface writes take plain values (float, uchar4, ...)");
    void *target = surface_address(surface, call, x, y, z, layer, sizeof(T), mode, true, file, line);
    if (!target) return;
    std::memcpy(target, &data, sizeof(T));
    if (__builtin_expect(access_hooks_on, 0)) {
        // Seen by the race detector as stores of up to 8 bytes, like a kernel's own stores.
        for (std::size_t offset = 0; offset < sizeof(T); offset += sizeof(unsigned long long)) {
            std::size_t part = sizeof(T) - offset < sizeof(unsigned long long) ? sizeof(T) - offset
                                                                                : sizeof(unsigned long long);
            unsigned long long bits = 0;
            std::memcpy(&bits, reinterpret_cast<const char *>(&data) + offset, part);
            observe_global_write(static_cast<char *>(target) + offset, part, bits,
                                 sizeof(T) <= 8 ? value_kind_of<T>() : ValueKind::Other, surface_site(file, line));
        }
    }
}
template <class T>
inline T surface_read(cudaSurfaceObject_t surface, SurfCall call, int x, int y, int z, int layer,
                      cudaSurfaceBoundaryMode mode, const char *file, int line)
{
    static_assert(std::is_trivially_copyable<T>::value, "surface reads return plain values (float, uchar4, ...)");
    T value;
    std::memset(static_cast<void *>(&value), 0, sizeof(T));
    if (const void *source = surface_address(surface, call, x, y, z, layer, sizeof(T), mode, false, file, line))
        std::memcpy(static_cast<void *>(&value), source, sizeof(T));
    return value;
}
}  // namespace cudaemu

#define CUDAEMU_MODE cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap
#define CUDAEMU_SURFACE(suffix, params, call, ...)                                                         \
    template <class T>                                                                                     \
    inline void surf##suffix##write(T data, cudaSurfaceObject_t surfObject, params, CUDAEMU_MODE, CUDAEMU_WHERE) \
    {                                                                                                      \
        cudaemu::surface_write(data, surfObject, cudaemu::SurfCall::call, __VA_ARGS__, boundaryMode, cudaemu_file, \
                               cudaemu_line);                                                              \
    }                                                                                                      \
    template <class T>                                                                                     \
    inline T surf##suffix##read(cudaSurfaceObject_t surfObject, params, CUDAEMU_MODE, CUDAEMU_WHERE)       \
    {                                                                                                      \
        return cudaemu::surface_read<T>(surfObject, cudaemu::SurfCall::call, __VA_ARGS__, boundaryMode,    \
                                        cudaemu_file, cudaemu_line);                                       \
    }                                                                                                      \
    template <class T>                                                                                     \
    inline void surf##suffix##read(T *data, cudaSurfaceObject_t surfObject, params, CUDAEMU_MODE, CUDAEMU_WHERE) \
    {                                                                                                      \
        *data = cudaemu::surface_read<T>(surfObject, cudaemu::SurfCall::call, __VA_ARGS__, boundaryMode,   \
                                         cudaemu_file, cudaemu_line);                                      \
    }
#define CUDAEMU_COMMA ,
CUDAEMU_SURFACE(1D, int x, Surf1D, x, 0, 0, 0)
CUDAEMU_SURFACE(2D, int x CUDAEMU_COMMA int y, Surf2D, x, y, 0, 0)
CUDAEMU_SURFACE(3D, int x CUDAEMU_COMMA int y CUDAEMU_COMMA int z, Surf3D, x, y, z, 0)
CUDAEMU_SURFACE(1DLayered, int x CUDAEMU_COMMA int layer, Surf1DLayered, x, 0, 0, layer)
CUDAEMU_SURFACE(2DLayered, int x CUDAEMU_COMMA int y CUDAEMU_COMMA int layer, Surf2DLayered, x, y, 0, layer)
CUDAEMU_SURFACE(Cubemap, int x CUDAEMU_COMMA int y CUDAEMU_COMMA int face, Cubemap, x, y, 0, face)
CUDAEMU_SURFACE(CubemapLayered, int x CUDAEMU_COMMA int y CUDAEMU_COMMA int layerFace, CubemapLayered, x, y, 0,
                layerFace)
#undef CUDAEMU_SURFACE
#undef CUDAEMU_COMMA
#undef CUDAEMU_MODE
#undef CUDAEMU_WHERE
