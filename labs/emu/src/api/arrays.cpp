// CUDA arrays and the copies into and out of them (cudaMallocArray, cudaMalloc3DArray,
// cudaMemcpy2DToArray, cudaMemcpy3D, ...), and pitched 3D memory (cudaMalloc3D, cudaMemset3D).
// An array's elements are packed (no row padding) in host memory; every copy is checked
// against the array's shape and, for device memory, against its allocation, as a GPU driver
// checks them, and explained when it fails.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

#include "api/api_errors.h"
#include "api/device_work.h"
#include "api/devices.h"
#include "api/graph_capture.h"
#include "api/memory_registry.h"
#include "api/streams.h"
#include "api/texture_objects.h"

namespace cudaemu {
namespace {
std::mutex arrays_mutex;
// Every array record ever made, live or freed (a freed one keeps its record: see texture_objects.h).
std::set<const void *> &array_records()
{
    static auto *records = new std::set<const void *>;
    return *records;
}

const char *kind_name(cudaChannelFormatKind kind)
{
    switch (kind) {
    case cudaChannelFormatKindSigned: return "signed";
    case cudaChannelFormatKindUnsigned: return "unsigned";
    case cudaChannelFormatKindFloat: return "float";
    default: return "unsupported";
    }
}

// One end of a copy: an array (positions and widths in its elements) or memory (in bytes).
struct CopyEnd {
    const char *role;  // "source" or "destination"
    char *base;
    std::size_t pitch, slice;
    bool device;            // memory the device owns (checked against its allocation)
    const cudaArray *array; // or null
};

cudaError_t check_memory_span(const char *call, const CopyEnd &end, std::size_t first, std::size_t bytes)
{
    if (!end.device || bytes == 0) return cudaSuccess;
    Allocation allocation;
    const char *start = end.base + first;
    if (!find_allocation(start, &allocation))
        return fail(cudaErrorInvalidValue, "%s: the %s %p is not device memory from cudaMalloc; check the copy kind "
                    "and that the pointer was not freed", call, end.role, (const void *)start);
    std::size_t available = (std::size_t)(allocation.start + allocation.size - start);
    if (bytes > available)
        return fail(cudaErrorInvalidValue, "%s: the copy reaches %zu bytes past the %s %p, but its allocation has %zu "
                    "bytes from there: check the pitch, the width (bytes) and the height", call, bytes, end.role,
                    (const void *)start, available);
    return cudaSuccess;
}

// Which ends of a copy of `kind` are device memory; arrays are always device memory.
cudaError_t resolve_kind(const char *call, cudaMemcpyKind kind, CopyEnd *dst, CopyEnd *src)
{
    if ((int)kind < 0 || (int)kind > 4)
        return fail(cudaErrorInvalidMemcpyDirection, "%s: kind %d is not a cudaMemcpyKind", call, (int)kind);
    CopyEnd *ends[2] = {dst, src};
    for (int e = 0; e < 2; ++e) {
        CopyEnd &end = *ends[e];
        bool says_device = kind == cudaMemcpyDeviceToDevice ||
                           (e == 0 ? kind == cudaMemcpyHostToDevice : kind == cudaMemcpyDeviceToHost);
        if (end.array) {
            if (kind != cudaMemcpyDefault && !says_device)
                return fail(cudaErrorInvalidMemcpyDirection, "%s: the %s is a CUDA array (device memory), but the "
                            "kind is %d, which says host memory; use cudaMemcpy%s or cudaMemcpyDefault", call,
                            end.role, (int)kind, e == 0 ? "HostToDevice" : "DeviceToHost");
            end.device = false;  // checked against the array's shape instead
            continue;
        }
        Allocation allocation;
        end.device = kind == cudaMemcpyDefault ? find_allocation(end.base, &allocation) : says_device;
    }
    return cudaSuccess;
}

// Copies `height` x `depth` rows of `width_bytes`; positions are bytes (x) and rows/slices.
cudaError_t copy_region(const char *call, CopyEnd dst, std::size_t dx, std::size_t dy, std::size_t dz, CopyEnd src,
                        std::size_t sx, std::size_t sy, std::size_t sz, std::size_t width_bytes, std::size_t height,
                        std::size_t depth, cudaMemcpyKind kind)
{
    cudaError_t error = resolve_kind(call, kind, &dst, &src);
    if (error != cudaSuccess) return error;
    if (width_bytes == 0 || height == 0 || depth == 0) return cudaSuccess;
    const CopyEnd *ends[2] = {&dst, &src};
    const std::size_t xs[2] = {dx, sx}, ys[2] = {dy, sy}, zs[2] = {dz, sz};
    for (int e = 0; e < 2; ++e) {
        const CopyEnd &end = *ends[e];
        if (end.array) {
            const cudaArray &a = *end.array;
            std::size_t row_bytes = a.width * a.element_bytes;
            if (xs[e] + width_bytes > row_bytes || ys[e] + height > a.height || zs[e] + depth > a.depth)
                return fail(cudaErrorInvalidValue, "%s: the copy covers bytes %zu..%zu of rows %zu..%zu of slices "
                            "%zu..%zu of the %s array, which has %zu bytes a row (%zu elements of %zu bytes), %zu "
                            "rows and %zu slices: check the offsets and the width (in bytes for 2D copies, in "
                            "elements for cudaMemcpy3D)", call, xs[e], xs[e] + width_bytes - 1, ys[e],
                            ys[e] + height - 1, zs[e], zs[e] + depth - 1, end.role, row_bytes, a.width,
                            a.element_bytes, a.height, a.depth);
        } else {
            if (!end.base) return fail(cudaErrorInvalidValue, "%s: the %s pointer is NULL", call, end.role);
            if (width_bytes > end.pitch)
                return fail(cudaErrorInvalidPitchValue, "%s: rows of %zu bytes do not fit the %s's pitch of %zu bytes "
                            "(pitches are in bytes)", call, width_bytes, end.role, end.pitch);
            std::size_t first = zs[e] * end.slice + ys[e] * end.pitch + xs[e];
            std::size_t span = (depth - 1) * end.slice + (height - 1) * end.pitch + width_bytes;
            error = check_memory_span(call, end, first, span);
            if (error != cudaSuccess) return error;
        }
    }
    DeviceWork work(dst.array ? dst.array->device : src.array ? src.array->device : current_device());
    for (std::size_t z = 0; z < depth; ++z)
        for (std::size_t y = 0; y < height; ++y)
            std::memmove(dst.base + (dz + z) * dst.slice + (dy + y) * dst.pitch + dx,
                         src.base + (sz + z) * src.slice + (sy + y) * src.pitch + sx, width_bytes);
    return cudaSuccess;
}

CopyEnd array_end(const char *role, const cudaArray &a)
{
    std::size_t row = a.width * a.element_bytes;
    return CopyEnd{role, a.data, row, row * a.height, true, &a};
}
CopyEnd memory_end(const char *role, const void *base, std::size_t pitch, std::size_t rows_per_slice)
{
    return CopyEnd{role, static_cast<char *>(const_cast<void *>(base)), pitch, pitch * rows_per_slice, false, nullptr};
}

cudaError_t make_array(const char *call, cudaArray_t *array, const cudaChannelFormatDesc *desc, cudaExtent extent,
                       unsigned int flags)
{
    if (!array) return fail(cudaErrorInvalidValue, "%s(NULL, ...): pass the address of a cudaArray_t", call);
    *array = nullptr;
    if (!desc) return fail(cudaErrorInvalidValue, "%s: no channel format; pass &desc from cudaCreateChannelDesc", call);
    ElementFormat format;
    cudaError_t error = element_format(call, *desc, &format);
    if (error != cudaSuccess) return error;
    const unsigned int known = cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayCubemap | cudaArrayTextureGather;
    if (flags & ~known)
        return fail(cudaErrorNotSupported, "%s: flags 0x%x: the emulator makes arrays with cudaArrayLayered, "
                    "cudaArraySurfaceLoadStore, cudaArrayCubemap and cudaArrayTextureGather only (sparse, deferred "
                    "and color-attachment arrays are not emulated)", call, flags & ~known);
    bool layered = flags & cudaArrayLayered, cubemap = flags & cudaArrayCubemap;
    if (extent.width == 0)
        return fail(cudaErrorInvalidValue, "%s: an array of width 0; the width is in elements and at least 1", call);
    if (!layered && extent.height == 0 && extent.depth != 0)
        return fail(cudaErrorInvalidValue, "%s: depth %zu with height 0: a 3D array needs a height (a 1D layered array "
                    "needs cudaArrayLayered)", call, extent.depth);
    if (cubemap && (extent.width != extent.height || extent.depth == 0 || extent.depth % 6 != 0 ||
                    (!layered && extent.depth != 6)))
        return fail(cudaErrorInvalidValue, "%s: a cube map is width x width x 6 (x 6 * layers with cudaArrayLayered), "
                    "not %zu x %zu x %zu", call, extent.width, extent.height, extent.depth);
    if (layered && extent.depth == 0)
        return fail(cudaErrorInvalidValue, "%s: a layered array keeps its layer count in depth, which is 0", call);
    auto *record = new cudaArray{};
    record->magic = kArrayMagic;
    record->live = true;
    record->desc = *desc;
    record->extent = extent;
    record->flags = flags;
    record->device = current_device();
    record->channels = format.channels;
    record->channel_bytes = format.channel_bytes;
    record->element_bytes = format.element_bytes();
    record->width = extent.width;
    record->height = extent.height ? extent.height : 1;
    record->depth = extent.depth ? extent.depth : 1;
    std::size_t bytes = record->width * record->height * record->depth * record->element_bytes;
    // Zeroed, so that reading an array before filling it gives the same answer every run.
    record->data = static_cast<char *>(std::calloc(bytes, 1));
    if (!record->data) {
        delete record;
        return fail(cudaErrorMemoryAllocation, "%s: %zu bytes for the array: the host is out of memory", call, bytes);
    }
    {
        std::lock_guard<std::mutex> lock(arrays_mutex);
        array_records().insert(record);
    }
    *array = record;
    return cudaSuccess;
}
}  // namespace

cudaError_t element_format(const char *call, const cudaChannelFormatDesc &desc, ElementFormat *format)
{
    const int bits[4] = {desc.x, desc.y, desc.z, desc.w};
    unsigned int channels = 0;
    while (channels < 4 && bits[channels] != 0) ++channels;
    bool uniform = channels > 0;
    for (unsigned int c = 0; c < 4; ++c)
        if ((c < channels && bits[c] != desc.x) || (c >= channels && bits[c] != 0)) uniform = false;
    bool kind_ok = desc.f == cudaChannelFormatKindSigned || desc.f == cudaChannelFormatKindUnsigned ||
                   desc.f == cudaChannelFormatKindFloat;
    bool size_ok = desc.f == cudaChannelFormatKindFloat ? (desc.x == 16 || desc.x == 32)
                                                        : (desc.x == 8 || desc.x == 16 || desc.x == 32);
    if (!uniform || channels == 3 || !kind_ok || !size_ok)
        return fail(cudaErrorInvalidChannelDescriptor, "%s: the channel format {%d, %d, %d, %d, %s} is not one the "
                    "emulator stores: 1, 2 or 4 channels of one size (8, 16 or 32 bits; floats 16 or 32), signed, "
                    "unsigned or float (cudaCreateChannelDesc<float4>() and kin make one)", call, desc.x, desc.y,
                    desc.z, desc.w, kind_name(desc.f));
    *format = ElementFormat{desc.f, channels, (std::size_t)desc.x / 8};
    return cudaSuccess;
}

cudaArray *live_array(const char *call, cudaArray_const_t array)
{
    bool known;
    {
        std::lock_guard<std::mutex> lock(arrays_mutex);
        known = array && array_records().count(array) != 0;
    }
    if (!known) {
        fail(cudaErrorInvalidResourceHandle, "%s: %p is not a CUDA array from cudaMallocArray or cudaMalloc3DArray",
             call, (const void *)array);
        return nullptr;
    }
    if (!array->live) {
        fail(cudaErrorInvalidResourceHandle, "%s: the CUDA array %p was freed by cudaFreeArray", call,
             (const void *)array);
        return nullptr;
    }
    return const_cast<cudaArray *>(array);
}

// cudaMemcpyToArray and cudaMemcpyFromArray copy `count` bytes as one run through the array's
// rows, starting at byte wOffset of row hOffset, to the array (`to_array`) from `linear` or from
// it to `linear`. Their checks: the array is live, the kind puts device memory on the array's
// side, and the run ends inside the array.
static cudaError_t copy_array_run(const char *call, cudaArray_const_t array, bool to_array, const void *linear,
                                  size_t wOffset, size_t hOffset, size_t count, cudaMemcpyKind kind)
{
    const cudaArray *a = live_array(call, array);
    if (!a) return cudaErrorInvalidResourceHandle;
    // Besides HostToHost, the one kind that says the array's side is host memory.
    cudaMemcpyKind host_array_kind = to_array ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
    if (kind == cudaMemcpyHostToHost || kind == host_array_kind)
        return fail(cudaErrorInvalidMemcpyDirection, "%s: the %s is a CUDA array (device memory), but the kind (%d) "
                    "says host memory; use %s or cudaMemcpyDeviceToDevice", call,
                    to_array ? "destination" : "source", (int)kind,
                    to_array ? "cudaMemcpyHostToDevice" : "cudaMemcpyDeviceToHost");
    std::size_t row = a->width * a->element_bytes, total = row * a->height * a->depth;
    if (wOffset >= row || hOffset * row + wOffset + count > total)
        return fail(cudaErrorInvalidValue, "%s: %zu bytes from byte %zu of row %zu run past the array's %zu bytes "
                    "(%zu a row)", call, count, wOffset, hOffset, total, row);
    const char *in_array = a->data + hOffset * row + wOffset;
    // The array's bytes are host memory to copy_region: the kind it is given says so.
    cudaMemcpyKind as_copied = kind;
    if (kind == cudaMemcpyDeviceToDevice)
        as_copied = to_array ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
    else if (kind == (to_array ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost))
        as_copied = cudaMemcpyHostToHost;
    return copy_region(call, memory_end("destination", to_array ? in_array : linear, count, 1), 0, 0, 0,
                       memory_end("source", to_array ? linear : in_array, count, 1), 0, 0, 0, count, 1, 1,
                       as_copied);
}

const char *format_name(const ElementFormat &format, char *buffer, std::size_t size)
{
    std::snprintf(buffer, size, "%u x %zu-bit %s", format.channels, format.channel_bytes * 8, kind_name(format.kind));
    return buffer;
}

}  // namespace cudaemu

using namespace cudaemu;

extern "C" {

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f)
{
    return cudaChannelFormatDesc{x, y, z, w, f};
}

cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array)
{
    if (!desc) return fail(cudaErrorInvalidValue, "cudaGetChannelDesc(NULL, ...): pass the address of a desc");
    const cudaArray *a = live_array("cudaGetChannelDesc", array);
    if (!a) return cudaErrorInvalidResourceHandle;
    *desc = a->desc;
    return cudaSuccess;
}

cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width, size_t height,
                            unsigned int flags)
{
    if (flags & (cudaArrayLayered | cudaArrayCubemap))
        return fail(cudaErrorInvalidValue, "cudaMallocArray: layered and cube-map arrays are made by "
                    "cudaMalloc3DArray (their layers or faces are the depth)");
    return make_array("cudaMallocArray", array, desc, cudaExtent{width, height, 0}, flags);
}

cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
                              unsigned int flags)
{
    return make_array("cudaMalloc3DArray", array, desc, extent, flags);
}

cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray, const struct cudaChannelFormatDesc *,
                                     struct cudaExtent, unsigned int, unsigned int)
{
    if (mipmappedArray) *mipmappedArray = nullptr;
    return fail(cudaErrorNotSupported, "cudaMallocMipmappedArray: mipmapped arrays are not emulated; use a plain "
                "array (cudaMallocArray or cudaMalloc3DArray), whose fetches read level 0");
}

cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t)
{
    return fail(cudaErrorNotSupported, "cudaFreeMipmappedArray: mipmapped arrays are not emulated");
}

cudaError_t cudaFreeArray(cudaArray_t array)
{
    if (!array) return cudaSuccess;
    cudaArray *a = live_array("cudaFreeArray", array);
    if (!a) return cudaErrorInvalidResourceHandle;
    DeviceWork work(a->device);  // after the kernels that may read it
    a->live = false;
    std::free(a->data);
    a->data = nullptr;
    return cudaSuccess;
}

cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent, unsigned int *flags,
                             cudaArray_t array)
{
    const cudaArray *a = live_array("cudaArrayGetInfo", array);
    if (!a) return cudaErrorInvalidResourceHandle;
    if (desc) *desc = a->desc;
    if (extent) *extent = a->extent;
    if (flags) *flags = a->flags;
    return cudaSuccess;
}

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
    if (!pitchedDevPtr) return fail(cudaErrorInvalidValue, "cudaMalloc3D(NULL, ...): pass the address of a cudaPitchedPtr");
    std::size_t pitch = 0;
    void *memory = nullptr;
    cudaError_t error = cudaMallocPitch(&memory, &pitch, extent.width, extent.height * extent.depth);
    if (error != cudaSuccess) return error;
    *pitchedDevPtr = cudaPitchedPtr{memory, pitch, extent.width, extent.height};
    return cudaSuccess;
}

cudaError_t cudaMemset3D(struct cudaPitchedPtr p, int value, struct cudaExtent extent)
{
    const char *call = "cudaMemset3D";
    if (extent.width == 0 || extent.height == 0 || extent.depth == 0) return cudaSuccess;
    if (extent.width > p.pitch)
        return fail(cudaErrorInvalidValue, "%s: rows of %zu bytes do not fit the pitch of %zu bytes", call,
                    extent.width, p.pitch);
    std::size_t rows = p.ysize ? p.ysize : extent.height;
    CopyEnd end = memory_end("destination", p.ptr, p.pitch, rows);
    end.device = true;
    cudaError_t error = check_memory_span(call, end, 0, (extent.depth - 1) * end.slice + (extent.height - 1) * p.pitch +
                                                            extent.width);
    if (error != cudaSuccess) return error;
    DeviceWork work(p.ptr, nullptr);
    for (std::size_t z = 0; z < extent.depth; ++z)
        for (std::size_t y = 0; y < extent.height; ++y)
            std::memset(end.base + z * end.slice + y * p.pitch, value, extent.width);
    return cudaSuccess;
}

cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr p, int value, struct cudaExtent extent, cudaStream_t stream)
{
    cudaError_t error = check_stream(stream, "cudaMemset3DAsync");
    return error != cudaSuccess ? error : cudaMemset3D(p, value, extent);
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                size_t width, size_t height, enum cudaMemcpyKind kind)
{
    const cudaArray *a = live_array("cudaMemcpy2DToArray", dst);
    if (!a) return cudaErrorInvalidResourceHandle;
    return copy_region("cudaMemcpy2DToArray", array_end("destination", *a), wOffset, hOffset, 0,
                       memory_end("source", src, spitch, height), 0, 0, 0, width, height, 1, kind);
}

cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                  size_t width, size_t height, enum cudaMemcpyKind kind)
{
    const cudaArray *a = live_array("cudaMemcpy2DFromArray", src);
    if (!a) return cudaErrorInvalidResourceHandle;
    return copy_region("cudaMemcpy2DFromArray", memory_end("destination", dst, dpitch, height), 0, 0, 0,
                       array_end("source", *a), wOffset, hOffset, 0, width, height, 1, kind);
}

cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src,
                                     size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height,
                                     enum cudaMemcpyKind kind)
{
    const cudaArray *d = live_array("cudaMemcpy2DArrayToArray", dst), *s = d ? live_array("cudaMemcpy2DArrayToArray", src) : nullptr;
    if (!d || !s) return cudaErrorInvalidResourceHandle;
    return copy_region("cudaMemcpy2DArrayToArray", array_end("destination", *d), wOffsetDst, hOffsetDst, 0,
                       array_end("source", *s), wOffsetSrc, hOffsetSrc, 0, width, height, 1, kind);
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                     size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    cudaError_t error = check_stream(stream, "cudaMemcpy2DToArrayAsync");
    return error != cudaSuccess ? error : cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
}

cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind,
                                       cudaStream_t stream)
{
    cudaError_t error = check_stream(stream, "cudaMemcpy2DFromArrayAsync");
    return error != cudaSuccess ? error
                                : cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind);
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                              enum cudaMemcpyKind kind)
{
    return copy_array_run("cudaMemcpyToArray", dst, true, src, wOffset, hOffset, count, kind);
}

cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                enum cudaMemcpyKind kind)
{
    return copy_array_run("cudaMemcpyFromArray", src, false, dst, wOffset, hOffset, count, kind);
}

cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                                   enum cudaMemcpyKind kind, cudaStream_t stream)
{
    cudaError_t error = check_stream(stream, "cudaMemcpyToArrayAsync");
    return error != cudaSuccess ? error : cudaMemcpyToArray(dst, wOffset, hOffset, src, count, kind);
}

cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                     enum cudaMemcpyKind kind, cudaStream_t stream)
{
    cudaError_t error = check_stream(stream, "cudaMemcpyFromArrayAsync");
    return error != cudaSuccess ? error : cudaMemcpyFromArray(dst, src, wOffset, hOffset, count, kind);
}

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
    const char *call = "cudaMemcpy3D";
    if (!p) return fail(cudaErrorInvalidValue, "%s(NULL): pass the address of a cudaMemcpy3DParms", call);
    if ((p->srcArray != nullptr) == (p->srcPtr.ptr != nullptr) ||
        (p->dstArray != nullptr) == (p->dstPtr.ptr != nullptr))
        return fail(cudaErrorInvalidValue, "%s: give exactly one of srcArray and srcPtr, and one of dstArray and dstPtr "
                    "(zero the cudaMemcpy3DParms first: cudaMemcpy3DParms p = {0})", call);
    const cudaArray *sa = nullptr, *da = nullptr;
    if (p->srcArray && !(sa = live_array(call, p->srcArray))) return cudaErrorInvalidResourceHandle;
    if (p->dstArray && !(da = live_array(call, p->dstArray))) return cudaErrorInvalidResourceHandle;
    if (sa && da && sa->element_bytes != da->element_bytes)
        return fail(cudaErrorInvalidValue, "%s: the arrays' elements differ in size (%zu and %zu bytes)", call,
                    sa->element_bytes, da->element_bytes);
    // Widths and x positions in elements where an array takes part, else in bytes.
    std::size_t element = sa ? sa->element_bytes : da ? da->element_bytes : 1;
    std::size_t width_bytes = p->extent.width * element;
    CopyEnd src = sa ? array_end("source", *sa)
                     : memory_end("source", p->srcPtr.ptr, p->srcPtr.pitch,
                                  p->srcPtr.ysize ? p->srcPtr.ysize : p->extent.height);
    CopyEnd dst = da ? array_end("destination", *da)
                     : memory_end("destination", p->dstPtr.ptr, p->dstPtr.pitch,
                                  p->dstPtr.ysize ? p->dstPtr.ysize : p->extent.height);
    std::size_t sx = sa ? p->srcPos.x * element : p->srcPos.x, dx = da ? p->dstPos.x * element : p->dstPos.x;
    return copy_region(call, dst, dx, p->dstPos.y, p->dstPos.z, src, sx, p->srcPos.y, p->srcPos.z, width_bytes,
                       p->extent.height ? p->extent.height : 1, p->extent.depth ? p->extent.depth : 1, p->kind);
}

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    cudaError_t error = check_stream(stream, "cudaMemcpy3DAsync");
    if (error == cudaSuccess && p && capture_possible() && capture_copy(stream, *p, &error)) return error;
    return error != cudaSuccess ? error : cudaMemcpy3D(p);
}

}  // extern "C"
