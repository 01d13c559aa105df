// Texture fetches and surface accesses from device code (include/cuda_emu/texture_fetch.h), as
// the CUDA programming guide's "Texture Fetching" appendix defines them:
//
// - coordinates: unnormalized, x in [0, N); normalized (normalizedCoords, and always for cube
//   maps), x in [0, 1) scaled by N;
// - addressing, per dimension, on texel indices: clamp (to 0..N-1), border (the border color
//   outside 0..N-1), wrap (index mod N) and mirror (period 2N, reflected); wrap and mirror apply
//   to normalized coordinates only, and otherwise clamp (cudaCreateTextureObject says so);
// - point filtering: the texel floor(x); linear filtering: x - 0.5 split into the index i =
//   floor and the weight alpha = frac, T[i] (1 - alpha) + T[i+1] alpha per dimension (4 texels
//   in 2D, 8 in 3D). The hardware keeps alpha in 9-bit fixed point with 8 fractional bits: the
//   emulator rounds alpha to the nearest 1/256 likewise, then interpolates in float, so a
//   linearly filtered value can differ from a GPU's in its last bits (the hardware's own
//   rounding of the products is not documented);
// - read modes: element type (integers as stored) or normalized float (unsigned 8/16-bit to
//   [0, 1], signed to [-1, 1]); 16-bit floats are widened to float;
// - tex1Dfetch: an integer index into linear memory, no filtering, 0 outside the texture;
// - layers are clamped to the array's; cube maps pick a face by the coordinate of largest
//   magnitude (the guide's table) and filter within that face (no seamless filtering).
// Surfaces are addressed in bytes in x; an access outside traps (stops with a message),
// reads zero and drops writes, or clamps, by the boundary mode.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "api/texture_objects.h"
#include "engine/block_runner.h"
#include "reports/diagnostics.h"

namespace cudaemu {
namespace {

std::string in_kernel()
{
    BlockRunner *runner = BlockRunner::running_kernel();
    if (!runner || !runner->grid()) return std::string();
    std::string text = std::string(" in kernel ") + runner->grid()->kernel_name + runner->grid()->launch_site();
    uint3 t;
    if (runner->current_thread_index(&t))
        text += " (thread " + std::to_string(t.x) + "," + std::to_string(t.y) + "," + std::to_string(t.z) + ")";
    return text;
}

const char *call_name(TexCall call)
{
    switch (call) {
    case TexCall::Fetch1D: return "tex1Dfetch";
    case TexCall::Tex1D: return "tex1D";
    case TexCall::Tex2D: return "tex2D";
    case TexCall::Tex3D: return "tex3D";
    case TexCall::Tex1DLayered: return "tex1DLayered";
    case TexCall::Tex2DLayered: return "tex2DLayered";
    case TexCall::Cubemap: return "texCubemap";
    case TexCall::CubemapLayered: return "texCubemapLayered";
    }
    return "a texture fetch";
}

const char *surf_name(SurfCall call, bool write)
{
    switch (call) {
    case SurfCall::Surf1D: return write ? "surf1Dwrite" : "surf1Dread";
    case SurfCall::Surf2D: return write ? "surf2Dwrite" : "surf2Dread";
    case SurfCall::Surf3D: return write ? "surf3Dwrite" : "surf3Dread";
    case SurfCall::Surf1DLayered: return write ? "surf1DLayeredwrite" : "surf1DLayeredread";
    case SurfCall::Surf2DLayered: return write ? "surf2DLayeredwrite" : "surf2DLayeredread";
    case SurfCall::Cubemap: return write ? "surfCubemapwrite" : "surfCubemapread";
    case SurfCall::CubemapLayered: return write ? "surfCubemapLayeredwrite" : "surfCubemapLayeredread";
    }
    return "a surface access";
}

// What a store is, in the words of the API that makes it.
std::string shape_of(const TexelStore &s)
{
    if (s.linear) return "linear memory (cudaResourceTypeLinear)";
    if (s.pitch2d) return "pitched 2D memory (cudaResourceTypePitch2D)";
    const cudaExtent &e = s.array->extent;
    char text[160];
    if (s.cubemap)
        std::snprintf(text, sizeof text, "a %scube-map array (%zu x %zu%s)", s.layered ? "layered " : "", e.width,
                      e.height, s.layered ? (", " + std::to_string(e.depth / 6) + " layers").c_str() : "");
    else if (s.layered)
        std::snprintf(text, sizeof text, "a %s layered array (%zu%s, %zu layers)", e.height ? "2D" : "1D", e.width,
                      e.height ? (" x " + std::to_string(e.height)).c_str() : "", e.depth);
    else if (e.depth)
        std::snprintf(text, sizeof text, "a 3D array (%zu x %zu x %zu)", e.width, e.height, e.depth);
    else if (e.height)
        std::snprintf(text, sizeof text, "a 2D array (%zu x %zu)", e.width, e.height);
    else
        std::snprintf(text, sizeof text, "a 1D array (%zu)", e.width);
    return text;
}

// Whether a fetch or surface access of this kind reads a store of this shape, as on a GPU
// (where a mismatch reads nothing useful).
bool call_fits(const TexelStore &s, int dims, bool layered, bool cubemap)
{
    if (s.linear) return false;
    if (s.layered != layered || s.cubemap != cubemap) return false;
    if (cubemap) return true;
    bool has_height = s.pitch2d || s.array->extent.height != 0;
    bool has_depth = !layered && s.array && s.array->extent.depth != 0;
    switch (dims) {
    case 1: return !has_height && !has_depth;
    case 2: return has_height && !has_depth;
    default: return has_height && has_depth;
    }
}

const char *what_to_use(const TexelStore &s, bool texture)
{
    if (s.linear) return "tex1Dfetch";
    if (s.cubemap) {
        if (s.layered) return texture ? "texCubemapLayered" : "surfCubemapLayeredread/write";
        return texture ? "texCubemap" : "surfCubemapread/write";
    }
    bool two_d = s.pitch2d || (s.array->extent.height && (s.layered || !s.array->extent.depth));
    if (s.layered) {
        if (two_d) return texture ? "tex2DLayered" : "surf2DLayeredread/write";
        return texture ? "tex1DLayered" : "surf1DLayeredread/write";
    }
    if (two_d) return texture ? "tex2D" : "surf2Dread/write";
    if (s.array->extent.depth) return texture ? "tex3D" : "surf3Dread/write";
    return texture ? "tex1D" : "surf1Dread/write";
}

float half_to_float(std::uint16_t h)
{
    std::uint32_t sign = (std::uint32_t)(h >> 15) << 31, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    float value;
    if (exponent == 0)
        value = std::ldexp((float)mantissa, -24);
    else if (exponent == 31)
        value = mantissa ? NAN : INFINITY;
    else
        value = std::ldexp((float)(mantissa | 0x400), (int)exponent - 25);
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    bits |= sign;
    std::memcpy(&value, &bits, sizeof bits);
    return value;
}

// One stored element, converted as the texture's read mode says.
// An integer channel at p of Signed's width, sign-extended where is_signed, else zero-extended.
template <class Signed, class Unsigned>
long long channel_value(const char *p, bool is_signed)
{
    Signed s;
    Unsigned u;
    std::memcpy(&s, p, sizeof s);
    std::memcpy(&u, p, sizeof u);
    return is_signed ? (long long)s : (long long)u;
}

void load_texel(const TexelStore &s, bool returns_float, const char *at, Texel *out)
{
    const ElementFormat &f = s.format;
    for (unsigned int c = 0; c < f.channels; ++c) {
        const char *p = at + c * f.channel_bytes;
        if (f.kind == cudaChannelFormatKindFloat) {
            if (f.channel_bytes == 4)
                std::memcpy(&out->v.f[c], p, 4);
            else {
                std::uint16_t h;
                std::memcpy(&h, p, 2);
                out->v.f[c] = half_to_float(h);
            }
            continue;
        }
        bool is_signed = f.kind == cudaChannelFormatKindSigned;
        long long value = 0;
        switch (f.channel_bytes) {
        case 1: value = channel_value<std::int8_t, std::uint8_t>(p, is_signed); break;
        case 2: value = channel_value<std::int16_t, std::uint16_t>(p, is_signed); break;
        default: value = channel_value<std::int32_t, std::uint32_t>(p, is_signed); break;
        }
        if (returns_float) {
            // Normalized float: unsigned n bits to [0, 1], signed to [-1, 1] (the most negative
            // value clamps to -1).
            double top = is_signed ? (double)((1ll << (f.channel_bytes * 8 - 1)) - 1)
                                   : (double)((1ll << (f.channel_bytes * 8)) - 1);
            float normalized = (float)((double)value / top);
            out->v.f[c] = normalized < -1.0f ? -1.0f : normalized;
        } else if (is_signed) {
            out->v.i[c] = (int)value;
        } else {
            out->v.u[c] = (unsigned int)value;
        }
    }
}

// The texel index `i` after the address mode, or -1 for the border.
long long address(long long i, long long n, cudaTextureAddressMode mode, bool normalized)
{
    if (i >= 0 && i < n) return i;
    if (!normalized && (mode == cudaAddressModeWrap || mode == cudaAddressModeMirror)) mode = cudaAddressModeClamp;
    switch (mode) {
    case cudaAddressModeBorder: return -1;
    case cudaAddressModeWrap: return ((i % n) + n) % n;
    case cudaAddressModeMirror: {
        long long j = ((i % (2 * n)) + 2 * n) % (2 * n);
        return j < n ? j : 2 * n - 1 - j;
    }
    default: return i < 0 ? 0 : n - 1;
    }
}

// floor of a coordinate, kept in range so that NaN and huge values stay defined.
long long floor_index(float u)
{
    if (!(u == u)) return 0;
    float clamped = u < -1e15f ? -1e15f : u > 1e15f ? 1e15f : u;
    long long toward_zero = (long long)clamped;  // exact: |clamped| <= 1e15 < 2^63
    return (float)toward_zero > clamped ? toward_zero - 1 : toward_zero;
}

// Cube map: the face and the face's normalized coordinates, by the guide's table.
void cube_face(float x, float y, float z, int *face, float *s, float *t)
{
    float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z), m, sc, tc;
    if (ax >= ay && ax >= az) {
        *face = x >= 0 ? 0 : 1;
        m = ax;
        sc = x >= 0 ? -z : z;
        tc = -y;
    } else if (ay >= az) {
        *face = y >= 0 ? 2 : 3;
        m = ay;
        sc = x;
        tc = y >= 0 ? z : -z;
    } else {
        *face = z >= 0 ? 4 : 5;
        m = az;
        sc = z >= 0 ? x : -x;
        tc = -y;
    }
    *s = m > 0 ? (sc / m + 1) / 2 : 0.5f;
    *t = m > 0 ? (tc / m + 1) / 2 : 0.5f;
}

const TextureObject &texture_or_stop(cudaTextureObject_t handle, const char *function, const char *file, int line)
{
    const TextureObject *object = nullptr;
    HandleState state = find_texture(handle, &object);
    if (state == HandleState::Destroyed)
        fatal("%s at %s:%d%s reads texture object %llu, which cudaDestroyTextureObject destroyed; destroy it after "
              "the kernels that read it", function, file, line, in_kernel().c_str(), handle);
    if (state != HandleState::Live)
        fatal("%s at %s:%d%s reads texture object %llu, which is not one from cudaCreateTextureObject (is the "
              "kernel argument the object, and was it created before the launch?)",
              function, file, line, in_kernel().c_str(), handle);
    if (object->store.array && !object->store.array->live)
        fatal("%s at %s:%d%s reads texture object %llu, whose array was freed by cudaFreeArray; free the array after "
              "destroying the texture", function, file, line, in_kernel().c_str(), handle);
    return *object;
}

// The texel or filtered value at `coords` (already normalized or not, a cube map's face
// coordinates), for a texture of Dims dimensions: the loops over dimensions and corners unroll.
template <int Dims>
Texel sample(const TextureObject &t, const float (&coords)[3], bool normalized, bool sliced, long long slice)
{
    const TexelStore &s = t.store;
    constexpr int dims = Dims;
    const long long sizes[3] = {(long long)s.width, (long long)s.height, (long long)s.depth};
    bool linear = t.description.filterMode == cudaFilterModeLinear;
    long long index[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    float weight[3] = {0, 0, 0};
    for (int d = 0; d < dims; ++d) {
        float u = normalized ? coords[d] * (float)sizes[d] : coords[d];
        cudaTextureAddressMode mode = t.description.addressMode[d];
        if (linear) {
            u -= 0.5f;
            long long i = floor_index(u);
            float alpha = u - (float)i;
            if (!(alpha >= 0.0f && alpha <= 1.0f)) alpha = 0.0f;
            weight[d] = std::nearbyint(alpha * 256.0f) / 256.0f;  // 9-bit fixed point, 8 fractional bits
            index[d][0] = address(i, sizes[d], mode, normalized);
            index[d][1] = address(i + 1, sizes[d], mode, normalized);
        } else {
            index[d][0] = index[d][1] = address(floor_index(u), sizes[d], mode, normalized);
        }
    }

    Texel result;
    std::memset(&result, 0, sizeof result);
    result.channels = (unsigned char)s.format.channels;
    result.is_float = t.returns_float;
    auto texel_at = [&](long long ix, long long iy, long long iz, Texel *out) {
        std::memset(out, 0, sizeof *out);
        if (ix < 0 || iy < 0 || iz < 0) {  // the border
            for (unsigned int c = 0; c < s.format.channels; ++c) {
                if (t.returns_float)
                    out->v.f[c] = t.description.borderColor[c];
                else
                    out->v.i[c] = (int)t.description.borderColor[c];
            }
            return;
        }
        long long zi = sliced ? slice : iz;
        load_texel(s, t.returns_float, s.base + zi * s.slice_bytes + iy * s.row_bytes + ix * s.format.element_bytes(),
                   out);
    };
    if (!linear) {
        texel_at(index[0][0], dims > 1 ? index[1][0] : 0, dims > 2 ? index[2][0] : 0, &result);
        result.channels = (unsigned char)s.format.channels;
        result.is_float = t.returns_float;
        return result;
    }
    // Linear: the weighted sum of the 2, 4 or 8 texels around the point.
    int corners = 1 << dims;
    for (int corner = 0; corner < corners; ++corner) {
        float w = 1.0f;
        long long at[3] = {0, 0, 0};
        for (int d = 0; d < dims; ++d) {
            int upper = (corner >> d) & 1;
            at[d] = index[d][upper];
            w *= upper ? weight[d] : 1.0f - weight[d];
        }
        if (w == 0.0f) continue;
        Texel texel;
        texel_at(at[0], at[1], at[2], &texel);
        for (unsigned int c = 0; c < s.format.channels; ++c) result.v.f[c] += w * texel.v.f[c];
    }
    return result;
}


}  // namespace

Texel texture_read(cudaTextureObject_t handle, TexCall call, float x, float y, float z, int layer, const char *file,
                   int line)
{
    const char *function = call_name(call);
    const TextureObject &t = texture_or_stop(handle, function, file, line);
    const TexelStore &s = t.store;
    int dims = call == TexCall::Tex1D || call == TexCall::Tex1DLayered ? 1 : call == TexCall::Tex3D ? 3 : 2;
    bool layered = call == TexCall::Tex1DLayered || call == TexCall::Tex2DLayered || call == TexCall::CubemapLayered;
    bool cubemap = call == TexCall::Cubemap || call == TexCall::CubemapLayered;
    if (!call_fits(s, dims, layered, cubemap))
        fatal("%s at %s:%d%s: texture object %llu is %s, which %s does not read; use %s", function, file, line,
              in_kernel().c_str(), handle, shape_of(s).c_str(), function, what_to_use(s, true));

    long long slice = 0;
    float coords[3] = {x, y, z};
    bool normalized = t.description.normalizedCoords != 0;
    if (cubemap) {
        int face;
        cube_face(x, y, z, &face, &coords[0], &coords[1]);
        normalized = true;
        long long layers = (long long)s.depth / 6;
        long long l = layer < 0 ? 0 : layer >= layers ? layers - 1 : layer;
        slice = l * 6 + face;
    } else if (layered) {
        slice = layer < 0 ? 0 : layer >= (long long)s.depth ? (long long)s.depth - 1 : layer;
    }

    switch (dims) {
    case 1: return sample<1>(t, coords, normalized, layered || cubemap, slice);
    case 2: return sample<2>(t, coords, normalized, layered || cubemap, slice);
    default: return sample<3>(t, coords, normalized, layered || cubemap, slice);
    }
}

Texel texture_fetch_linear(cudaTextureObject_t handle, int x, const char *file, int line)
{
    const TextureObject &t = texture_or_stop(handle, "tex1Dfetch", file, line);
    const TexelStore &s = t.store;
    if (!s.linear)
        fatal("tex1Dfetch at %s:%d%s: texture object %llu is %s; tex1Dfetch reads textures of linear memory "
              "(cudaResourceTypeLinear): use %s", file, line, in_kernel().c_str(), handle, shape_of(s).c_str(),
              what_to_use(s, true));
    Texel result;
    std::memset(&result, 0, sizeof result);
    result.channels = (unsigned char)s.format.channels;
    result.is_float = t.returns_float;
    if (x >= 0 && (std::size_t)x < s.width)  // outside the texture: zero, as on a GPU
        load_texel(s, t.returns_float, s.base + (std::size_t)x * s.format.element_bytes(), &result);
    return result;
}

void texel_type_mismatch(cudaTextureObject_t handle, const char *function, const char *file, int line,
                         int want_channels, bool want_float)
{
    const TextureObject *object = nullptr;
    find_texture(handle, &object);
    char format[64];
    format_name(object->store.format, format, sizeof format);
    if (want_float != object->returns_float)
        fatal("%s at %s:%d%s asks for %s, but texture object %llu holds %s read as %s, which returns %s: read it as "
              "%s, or create the texture with %s", function, file, line, in_kernel().c_str(),
              want_float ? "floats" : "integers", handle, format,
              object->description.readMode == cudaReadModeNormalizedFloat ? "normalized float" : "element type",
              object->returns_float ? "floats" : "integers",
              object->returns_float ? "float, float2 or float4" : "the stored type (int, uchar4, ...)",
              want_float ? "readMode = cudaReadModeNormalizedFloat (8- and 16-bit integers)"
                         : "a format of integers read as element type");
    fatal("%s at %s:%d%s asks for %d channels, but texture object %llu holds %s: ask for at most %u (float, float2, "
          "float4, uchar4, ...)", function, file, line, in_kernel().c_str(), want_channels, handle, format,
          object->store.format.channels);
}

void *surface_address(cudaSurfaceObject_t handle, SurfCall call, int x, int y, int z, int layer, std::size_t size,
                      cudaSurfaceBoundaryMode mode, bool write, const char *file, int line)
{
    const char *function = surf_name(call, write);
    const SurfaceObject *object = nullptr;
    HandleState state = find_surface(handle, &object);
    if (state != HandleState::Live)
        fatal("%s at %s:%d%s: surface object %llu %s", function, file, line, in_kernel().c_str(), handle,
              state == HandleState::Destroyed ? "was destroyed by cudaDestroySurfaceObject; destroy it after the "
                                                "kernels that use it"
                                              : "is not one from cudaCreateSurfaceObject");
    const TexelStore &s = object->store;
    if (!s.array->live)
        fatal("%s at %s:%d%s: surface object %llu's array was freed by cudaFreeArray; free it after destroying the "
              "surface", function, file, line, in_kernel().c_str(), handle);
    int dims = call == SurfCall::Surf1D || call == SurfCall::Surf1DLayered ? 1 : call == SurfCall::Surf3D ? 3 : 2;
    bool layered = call == SurfCall::Surf1DLayered || call == SurfCall::Surf2DLayered ||
                   call == SurfCall::CubemapLayered;
    bool cubemap = call == SurfCall::Cubemap || call == SurfCall::CubemapLayered;
    if (!call_fits(s, dims, layered, cubemap))
        fatal("%s at %s:%d%s: surface object %llu is %s, which %s does not access; use %s", function, file, line,
              in_kernel().c_str(), handle, shape_of(s).c_str(), function, what_to_use(s, false));
    long long pos[3] = {x, dims > 1 ? y : 0, dims > 2 ? z : (layered || cubemap ? layer : 0)};
    const long long limit[3] = {(long long)s.row_bytes - (long long)size, (long long)s.height - 1,
                                (long long)s.depth - 1};
    bool outside = false;
    for (int d = 0; d < 3; ++d) outside = outside || pos[d] < 0 || pos[d] > limit[d];
    if (outside) {
        if (mode == cudaBoundaryModeZero) return nullptr;
        if (mode != cudaBoundaryModeClamp || limit[0] < 0)
            fatal("%s at %s:%d%s: %zu bytes at byte x = %d, y = %lld, %s = %lld are outside surface object %llu (%s, "
                  "%zu bytes a row): with cudaBoundaryModeTrap a GPU stops the kernel here. x is in bytes: did you "
                  "pass x * sizeof(element)?", function, file, line, in_kernel().c_str(), size, x, pos[1],
                  layered || cubemap ? "layer" : "z", pos[2], handle, shape_of(s).c_str(), s.row_bytes);
        for (int d = 0; d < 3; ++d) pos[d] = pos[d] < 0 ? 0 : pos[d] > limit[d] ? limit[d] : pos[d];
    }
    return s.base + pos[2] * s.slice_bytes + pos[1] * s.row_bytes + pos[0];
}

const AccessSite *surface_site(const char *file, int line)
{
    static std::mutex sites_mutex;
    static auto *sites = new std::map<std::pair<std::string, int>, AccessSite>;
    std::lock_guard<std::mutex> lock(sites_mutex);
    auto key = std::make_pair(std::string(file), line);
    auto it = sites->find(key);
    if (it == sites->end()) it = sites->emplace(key, AccessSite{file, line, 0, "surface"}).first;
    return &it->second;
}

}  // namespace cudaemu
