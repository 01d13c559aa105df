// Texture and surface objects: cudaCreateTextureObject checks what a GPU driver checks (the
// resource, the format against the read and filter modes) and what the emulator does not do
// (mipmaps, resource views, sRGB), and records what device code reads. A handle is an index
// into a table (1, 2, ...), so that a fetch finds its texture with one load, and a destroyed
// or made-up handle is recognized and explained rather than read.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "api/api_errors.h"
#include "api/memory_registry.h"
#include "api/texture_objects.h"
#include "reports/diagnostics.h"

namespace cudaemu {
namespace {
constexpr std::size_t kMaxObjects = 1u << 20;  // handles a program may make in its lifetime, of each kind

std::atomic<TextureObject *> texture_table[kMaxObjects];
std::atomic<SurfaceObject *> surface_table[kMaxObjects];
std::atomic<std::size_t> textures_made{0}, surfaces_made{0};

cudaError_t check_memory(const char *call, const void *pointer, std::size_t bytes, const char *what)
{
    Allocation allocation;
    if (!pointer || !find_allocation(pointer, &allocation) ||
        (allocation.kind != MemoryKind::Device && allocation.kind != MemoryKind::Managed &&
         allocation.kind != MemoryKind::Graph))
        return fail(cudaErrorInvalidValue, "%s: the %s devPtr %p is not device memory from cudaMalloc", call, what,
                    pointer);
    std::size_t available = (std::size_t)(allocation.start + allocation.size - static_cast<const char *>(pointer));
    if (bytes > available)
        return fail(cudaErrorInvalidValue, "%s: the %s resource covers %zu bytes from %p, but its allocation has %zu "
                    "bytes from there: check the size, the width, the height and the pitch (in bytes)", call, what,
                    bytes, pointer, available);
    if ((std::uintptr_t)pointer % 256 != 0)
        return fail(cudaErrorInvalidValue, "%s: the %s devPtr %p is not aligned as a texture's memory must be (the "
                    "device's textureAlignment); texture the start of an allocation", call, what, pointer);
    return cudaSuccess;
}

// The memory and shape a resource description names.
cudaError_t resolve_resource(const char *call, const cudaResourceDesc &resource, TexelStore *store)
{
    *store = TexelStore{};
    switch (resource.resType) {
    case cudaResourceTypeArray: {
        cudaArray *a = live_array(call, resource.res.array.array);
        if (!a) return cudaErrorInvalidResourceHandle;
        store->base = a->data;
        store->format = ElementFormat{a->desc.f, a->channels, a->channel_bytes};
        store->width = a->width;
        store->height = a->height;
        store->depth = a->depth;
        store->layered = a->flags & cudaArrayLayered;
        store->cubemap = a->flags & cudaArrayCubemap;
        store->array = a;
        break;
    }
    case cudaResourceTypeLinear: {
        cudaError_t error = element_format(call, resource.res.linear.desc, &store->format);
        if (error == cudaSuccess)
            error = check_memory(call, resource.res.linear.devPtr, resource.res.linear.sizeInBytes, "linear");
        if (error != cudaSuccess) return error;
        store->base = static_cast<char *>(resource.res.linear.devPtr);
        store->width = resource.res.linear.sizeInBytes / store->format.element_bytes();
        store->height = store->depth = 1;
        store->linear = true;
        break;
    }
    case cudaResourceTypePitch2D: {
        const auto &p = resource.res.pitch2D;
        cudaError_t error = element_format(call, p.desc, &store->format);
        if (error != cudaSuccess) return error;
        std::size_t row = p.width * store->format.element_bytes();
        if (p.width == 0 || p.height == 0 || row > p.pitchInBytes || p.pitchInBytes % 32 != 0)
            return fail(cudaErrorInvalidValue, "%s: a pitch2D resource of %zu x %zu elements (%zu bytes a row) with a "
                        "pitch of %zu bytes: the pitch must hold a row and be a multiple of 32 (the device's "
                        "texturePitchAlignment; cudaMallocPitch gives one)", call, p.width, p.height, row,
                        p.pitchInBytes);
        error = check_memory(call, p.devPtr, (p.height - 1) * p.pitchInBytes + row, "pitch2D");
        if (error != cudaSuccess) return error;
        store->base = static_cast<char *>(p.devPtr);
        store->width = p.width;
        store->height = p.height;
        store->depth = 1;
        store->row_bytes = p.pitchInBytes;
        store->slice_bytes = p.pitchInBytes * p.height;
        store->pitch2d = true;
        return cudaSuccess;
    }
    case cudaResourceTypeMipmappedArray:
        return fail(cudaErrorNotSupported, "%s: mipmapped arrays are not emulated; use a plain array", call);
    default:
        return fail(cudaErrorInvalidValue, "%s: resType %d is not a cudaResourceType", call, (int)resource.resType);
    }
    store->row_bytes = store->width * store->format.element_bytes();
    store->slice_bytes = store->row_bytes * store->height;
    return cudaSuccess;
}

// A destroyed object's slot holds this, so that its handle is told apart from a made-up one.
template <class Object>
Object *destroyed() { return reinterpret_cast<Object *>(1); }

template <class Object>
HandleState find_object(std::atomic<Object *> *table, unsigned long long handle, const Object **found)
{
    if (handle == 0 || handle > kMaxObjects) return HandleState::Unknown;
    Object *object = table[handle - 1].load(std::memory_order_acquire);
    if (!object) return HandleState::Unknown;
    if (object == destroyed<Object>()) return HandleState::Destroyed;
    *found = object;
    return HandleState::Live;
}

// What cudaCreateTextureObject and cudaCreateSurfaceObject end with: the new object's handle (its
// slot + 1) into *handle, or the failure once the program has made all the emulator keeps.
// `kind` names it in the message ("texture", "surface").
template <class Object, class Handle>
cudaError_t register_object(const char *call, const char *kind, std::atomic<Object *> *table,
                            std::atomic<std::size_t> &made, Object *object, Handle *handle)
{
    std::size_t slot = made.fetch_add(1);
    if (slot >= kMaxObjects) {
        delete object;
        return fail(cudaErrorMemoryAllocation, "%s: this program has made %zu %s objects, all the emulator keeps "
                    "handles for; destroy and reuse fewer", call, kMaxObjects, kind);
    }
    table[slot].store(object, std::memory_order_release);
    *handle = slot + 1;
    return cudaSuccess;
}

// cudaDestroyTextureObject and cudaDestroySurfaceObject; `maker` is the call that makes one.
template <class Object>
cudaError_t destroy_object(const char *call, const char *kind, const char *maker, std::atomic<Object *> *table,
                           unsigned long long handle)
{
    const Object *object = nullptr;
    if (handle == 0) return cudaSuccess;
    if (find_object(table, handle, &object) != HandleState::Live)
        return fail(cudaErrorInvalidValue, "%s(%llu): not a %s object from %s, or destroyed already", call, handle,
                    kind, maker);
    table[handle - 1].store(destroyed<Object>(), std::memory_order_release);
    delete object;
    return cudaSuccess;
}

// cudaGet{Texture,Surface}ObjectResourceDesc and cudaGetTextureObjectTextureDesc: the object's
// `described` member, which the call names `desc`.
template <class Object, class Desc>
cudaError_t describe_object(const char *call, const char *kind, std::atomic<Object *> *table,
                            unsigned long long handle, Desc Object::*described, Desc *desc)
{
    const Object *object = nullptr;
    if (!desc || find_object(table, handle, &object) != HandleState::Live)
        return fail(cudaErrorInvalidValue, "%s: pass a desc's address and a live %s object (%llu is not one)", call,
                    kind, handle);
    *desc = object->*described;
    return cudaSuccess;
}
}  // namespace

HandleState find_texture(cudaTextureObject_t handle, const TextureObject **found)
{
    return find_object(texture_table, handle, found);
}

HandleState find_surface(cudaSurfaceObject_t handle, const SurfaceObject **found)
{
    return find_object(surface_table, handle, found);
}

}  // namespace cudaemu

using namespace cudaemu;

extern "C" {

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc,
                                    const struct cudaTextureDesc *pTexDesc,
                                    const struct cudaResourceViewDesc *pResViewDesc)
{
    const char *call = "cudaCreateTextureObject";
    if (!pTexObject || !pResDesc || !pTexDesc)
        return fail(cudaErrorInvalidValue, "%s: pass the address of a cudaTextureObject_t, a cudaResourceDesc and a "
                    "cudaTextureDesc (zeroed, then filled)", call);
    *pTexObject = 0;
    if (pResViewDesc)
        return fail(cudaErrorNotSupported, "%s: resource views (the last argument) are not emulated; pass NULL", call);
    const cudaTextureDesc &tex = *pTexDesc;
    TexelStore store;
    cudaError_t error = resolve_resource(call, *pResDesc, &store);
    if (error != cudaSuccess) return error;
    for (int d = 0; d < 3; ++d)
        if ((int)tex.addressMode[d] < 0 || (int)tex.addressMode[d] > 3)
            return fail(cudaErrorInvalidValue, "%s: addressMode[%d] = %d is not a cudaTextureAddressMode", call, d,
                        (int)tex.addressMode[d]);
    if ((int)tex.filterMode < 0 || (int)tex.filterMode > 1 || (int)tex.readMode < 0 || (int)tex.readMode > 1)
        return fail(cudaErrorInvalidValue, "%s: filterMode %d or readMode %d is not a valid mode", call,
                    (int)tex.filterMode, (int)tex.readMode);
    if (tex.sRGB)
        return fail(cudaErrorNotSupported, "%s: sRGB conversion is not emulated; set sRGB to 0", call);
    bool is_float = store.format.kind == cudaChannelFormatKindFloat;
    char format[64];
    if (tex.readMode == cudaReadModeNormalizedFloat && !is_float && store.format.channel_bytes == 4)
        return fail(cudaErrorInvalidNormSetting, "%s: cudaReadModeNormalizedFloat needs 8- or 16-bit integers; this "
                    "texture holds %s: read it with cudaReadModeElementType", call,
                    format_name(store.format, format, sizeof format));
    bool returns_float = is_float || tex.readMode == cudaReadModeNormalizedFloat;
    if (tex.filterMode == cudaFilterModeLinear && !returns_float)
        return fail(cudaErrorInvalidFilterSetting, "%s: linear filtering returns floats, but this texture holds %s read "
                    "as element type: use cudaFilterModePoint, or cudaReadModeNormalizedFloat", call,
                    format_name(store.format, format, sizeof format));
    if (!tex.normalizedCoords && !store.cubemap)
        for (int d = 0; d < 3; ++d)
            if (tex.addressMode[d] == cudaAddressModeWrap || tex.addressMode[d] == cudaAddressModeMirror) {
                static std::atomic_flag warned = ATOMIC_FLAG_INIT;
                if (!warned.test_and_set())
                    warn("%s: addressMode %s applies to normalized coordinates only (the programming guide); with "
                         "normalizedCoords = 0 this texture clamps, as a GPU's does. Set normalizedCoords = 1 to "
                         "wrap or mirror", call, tex.addressMode[d] == cudaAddressModeWrap ? "cudaAddressModeWrap"
                                                                                           : "cudaAddressModeMirror");
                break;
            }
    auto *object = new TextureObject{kTextureMagic, true, *pResDesc, tex, store, returns_float};
    return register_object(call, "texture", texture_table, textures_made, object, pTexObject);
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
    return destroy_object("cudaDestroyTextureObject", "texture", "cudaCreateTextureObject", texture_table, texObject);
}

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc, cudaTextureObject_t texObject)
{
    return describe_object("cudaGetTextureObjectResourceDesc", "texture", texture_table, texObject,
                           &TextureObject::resource, pResDesc);
}

cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc, cudaTextureObject_t texObject)
{
    return describe_object("cudaGetTextureObjectTextureDesc", "texture", texture_table, texObject,
                           &TextureObject::description, pTexDesc);
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject, const struct cudaResourceDesc *pResDesc)
{
    const char *call = "cudaCreateSurfaceObject";
    if (!pSurfObject || !pResDesc)
        return fail(cudaErrorInvalidValue, "%s: pass the address of a cudaSurfaceObject_t and a cudaResourceDesc", call);
    *pSurfObject = 0;
    if (pResDesc->resType != cudaResourceTypeArray)
        return fail(cudaErrorInvalidValue, "%s: a surface is made from a CUDA array (resType cudaResourceTypeArray), "
                    "not resType %d", call, (int)pResDesc->resType);
    TexelStore store;
    cudaError_t error = resolve_resource(call, *pResDesc, &store);
    if (error != cudaSuccess) return error;
    if (!(store.array->flags & cudaArraySurfaceLoadStore))
        return fail(cudaErrorInvalidValue, "%s: the array was made without cudaArraySurfaceLoadStore; pass that flag "
                    "to cudaMallocArray or cudaMalloc3DArray to use it as a surface", call);
    auto *object = new SurfaceObject{kSurfaceMagic, true, *pResDesc, store};
    return register_object(call, "surface", surface_table, surfaces_made, object, pSurfObject);
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject)
{
    return destroy_object("cudaDestroySurfaceObject", "surface", "cudaCreateSurfaceObject", surface_table, surfObject);
}

cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc, cudaSurfaceObject_t surfObject)
{
    return describe_object("cudaGetSurfaceObjectResourceDesc", "surface", surface_table, surfObject,
                           &SurfaceObject::resource, pResDesc);
}

}  // extern "C"
