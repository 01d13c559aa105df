// Copies and fills: memmove and memset, after the checks a GPU driver makes (device
// pointers that are device memory, byte counts that stay inside their allocation), and after
// the work running on the devices whose memory they touch (device_work.h).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "api/api_errors.h"
#include "reports/diagnostics.h"
#include "api/device_work.h"
#include "api/devices.h"
#include "api/memory_owners.h"
#include "api/graph_capture.h"
#include "api/memory_registry.h"
#include "api/streams.h"

namespace cudaemu {
namespace {
const char *kind_name(cudaMemcpyKind kind)
{
    switch (kind) {
    case cudaMemcpyHostToHost: return "cudaMemcpyHostToHost";
    case cudaMemcpyHostToDevice: return "cudaMemcpyHostToDevice";
    case cudaMemcpyDeviceToHost: return "cudaMemcpyDeviceToHost";
    case cudaMemcpyDeviceToDevice: return "cudaMemcpyDeviceToDevice";
    case cudaMemcpyDefault: return "cudaMemcpyDefault";
    }
    return "an unknown cudaMemcpyKind";
}

// Checks that `count` bytes at `pointer` lie in memory the device can reach (one allocation).
cudaError_t check_device_range(const char *call, const char *role, const void *pointer, std::size_t count)
{
    Allocation allocation;
    if (!find_allocation(pointer, &allocation))
        return fail(cudaErrorInvalidValue, "%s: the %s %p is not device memory from cudaMalloc; check the order of "
                    "the arguments and the copy kind, and that the pointer was not freed",
                    call, role, pointer);
    std::size_t available = (std::size_t)(allocation.start + allocation.size - static_cast<const char *>(pointer));
    if (count > available)
        return fail(cudaErrorInvalidValue, "%s: %zu bytes at the %s %p run past the end of its allocation (%zu "
                    "bytes from there, of %zu): check the byte count (elements * sizeof)",
                    call, count, role, pointer, available, allocation.size);
    return cudaSuccess;
}

cudaError_t check_copy(const char *call, void *dst, const void *src, std::size_t count, cudaMemcpyKind kind)
{
    if ((int)kind < 0 || (int)kind > 4)
        return fail(cudaErrorInvalidMemcpyDirection, "%s: kind %d is not a cudaMemcpyKind", call, (int)kind);
    if (count == 0) return cudaSuccess;
    if (!dst || !src) return fail(cudaErrorInvalidValue, "%s: a NULL %s pointer", call, dst ? "source" : "destination");
    cudaError_t error = cudaSuccess;
    if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice)
        error = check_device_range(call, "destination", dst, count);
    if (error == cudaSuccess && (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice))
        error = check_device_range(call, "source", src, count);
    return error;
}

cudaError_t copy(const char *call, void *dst, const void *src, std::size_t count, cudaMemcpyKind kind)
{
    char described[96];
    std::snprintf(described, sizeof described, "%s(..., %s)", call, kind_name(kind));
    cudaError_t error = check_copy(described, dst, src, count, kind);
    if (error == cudaSuccess && count) {
        DeviceWork work(dst, src);  // after the kernels running on the devices it touches
        std::memmove(dst, src, count);
        profile_copy(call, dst, src, count);
    }
    return error;
}

cudaError_t copy_2d(const char *call, void *dst, std::size_t dpitch, const void *src, std::size_t spitch,
                    std::size_t width, std::size_t height, cudaMemcpyKind kind)
{
    if (width > dpitch || width > spitch)
        return fail(cudaErrorInvalidPitchValue, "%s: the row width (%zu bytes) exceeds a pitch (dpitch %zu, spitch "
                    "%zu); pitches are in bytes",
                    call, width, dpitch, spitch);
    if (width == 0 || height == 0) return cudaSuccess;
    std::size_t dst_span = dpitch * (height - 1) + width, src_span = spitch * (height - 1) + width;
    char described[96];
    std::snprintf(described, sizeof described, "%s(..., %s)", call, kind_name(kind));
    if ((int)kind < 0 || (int)kind > 4)
        return fail(cudaErrorInvalidMemcpyDirection, "%s: kind %d is not a cudaMemcpyKind", call, (int)kind);
    cudaError_t error = cudaSuccess;
    if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice)
        error = check_device_range(described, "destination", dst, dst_span);
    if (error == cudaSuccess && (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice))
        error = check_device_range(described, "source", src, src_span);
    if (error != cudaSuccess) return error;
    DeviceWork work(dst, src);
    for (std::size_t row = 0; row < height; ++row)
        std::memmove(static_cast<char *>(dst) + row * dpitch, static_cast<const char *>(src) + row * spitch, width);
    profile_copy_2d(call, dst, dpitch, src, spitch, width, height);
    return cudaSuccess;
}

cudaError_t set(const char *call, void *pointer, int value, std::size_t count)
{
    if (count == 0) return cudaSuccess;
    cudaError_t error = check_device_range(call, "destination", pointer, count);
    if (error == cudaSuccess) {
        DeviceWork work(pointer, nullptr);
        std::memset(pointer, value, count);
        profile_fill(call, pointer, count);
    }
    return error;
}


// A prefetch or advice target: a device that exists, or the host.
cudaError_t check_location(const char *call, cudaMemLocation location)
{
    if (location.type == cudaMemLocationTypeDevice)
        return is_device(location.id) ? cudaSuccess : invalid_device(call, location.id);
    if (location.type == cudaMemLocationTypeHost || location.type == cudaMemLocationTypeHostNuma ||
        location.type == cudaMemLocationTypeHostNumaCurrent)
        return cudaSuccess;
    return fail(cudaErrorInvalidValue, "%s: location type %d is none of cudaMemLocationTypeDevice, "
                "cudaMemLocationTypeHost, cudaMemLocationTypeHostNuma, cudaMemLocationTypeHostNumaCurrent",
                call, (int)location.type);
}

// cudaMemcpyToSymbol (`to_symbol`, from `linear`) and cudaMemcpyFromSymbol (to `linear`): the
// symbol is the variable itself, so the copy is a memmove at `offset` bytes into it.
cudaError_t copy_symbol(const char *call, const void *symbol, bool to_symbol, const void *linear, size_t count,
                        size_t offset, cudaMemcpyKind kind)
{
    if (!symbol)
        return fail(cudaErrorInvalidSymbol, "%s: no symbol; pass the __constant__ or __device__ variable itself", call);
    // The one kind with host memory that fits: from the host into the symbol, or out to the host.
    cudaMemcpyKind host_kind = to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    if (kind != host_kind && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return fail(cudaErrorInvalidMemcpyDirection, "%s: the kind must be %s or cudaMemcpyDeviceToDevice, not %s", call,
                    to_symbol ? "cudaMemcpyHostToDevice" : "cudaMemcpyDeviceToHost", kind_name(kind));
    if (count && !linear)
        return fail(cudaErrorInvalidValue, "%s: NULL %s", call, to_symbol ? "source" : "destination");
    char *in_symbol = static_cast<char *>(const_cast<void *>(symbol)) + offset;
    if (count) std::memmove(to_symbol ? in_symbol : const_cast<void *>(linear), to_symbol ? linear : in_symbol, count);
    return cudaSuccess;
}
}  // namespace

cudaError_t symbol_range_error(const char *call, size_t symbol_bytes, size_t count, size_t offset)
{
    return fail(cudaErrorInvalidValue, "%s: %zu bytes at offset %zu run past the end of the symbol (%zu bytes)", call,
                count, offset, symbol_bytes);
}

}  // namespace cudaemu

using namespace cudaemu;

extern "C" {

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    if (cudaError_t sticky = sticky_error()) return record_error(sticky);
    return copy("cudaMemcpy", dst, src, count, kind);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    cudaError_t error = check_stream(stream, "cudaMemcpyAsync");
    if (error == cudaSuccess && capture_possible() && capture_copy_1d(stream, dst, src, count, kind, &error)) return error;
    return error != cudaSuccess ? error : copy("cudaMemcpyAsync", dst, src, count, kind);
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind)
{
    return copy_2d("cudaMemcpy2D", dst, dpitch, src, spitch, width, height, kind);
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind, cudaStream_t stream)
{
    cudaError_t error = check_stream(stream, "cudaMemcpy2DAsync");
    if (error == cudaSuccess && capture_possible()) {
        cudaMemcpy3DParms copy3d = {};
        copy3d.srcPtr = cudaPitchedPtr{const_cast<void *>(src), spitch, width, height};
        copy3d.dstPtr = cudaPitchedPtr{dst, dpitch, width, height};
        copy3d.extent = cudaExtent{width, height, 1};
        copy3d.kind = kind;
        if (capture_copy(stream, copy3d, &error)) return error;
    }
    return error != cudaSuccess ? error : copy_2d("cudaMemcpy2DAsync", dst, dpitch, src, spitch, width, height, kind);
}

cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)
{
    if (!is_device(dstDevice) || !is_device(srcDevice))
        return fail(cudaErrorInvalidDevice, "cudaMemcpyPeer: device %d or %d does not exist", dstDevice, srcDevice);
    cudaError_t error = copy("cudaMemcpyPeer", dst, src, count, cudaMemcpyDeviceToDevice);
    if (error != cudaSuccess || count == 0) return error;
    Allocation to, from;
    find_allocation(dst, &to);
    find_allocation(src, &from);
    if (to.device != dstDevice || from.device != srcDevice)
        warn("cudaMemcpyPeer: the destination lives on device %d (you said %d) and the source on device %d (you "
             "said %d); the copy was made, but check the device arguments",
             to.device, dstDevice, from.device, srcDevice);
    return cudaSuccess;
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                cudaStream_t stream)
{
    cudaError_t error = check_stream(stream, "cudaMemcpyPeerAsync");
    return error != cudaSuccess ? error : cudaMemcpyPeer(dst, dstDevice, src, srcDevice, count);
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count) { return set("cudaMemset", devPtr, value, count); }

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    cudaError_t error = check_stream(stream, "cudaMemsetAsync");
    if (error == cudaSuccess && capture_possible() &&
        capture_memset(stream, cudaMemsetParams{devPtr, count, (unsigned int)(value & 0xff), 1, count, 1}, &error))
        return error;
    return error != cudaSuccess ? error : set("cudaMemsetAsync", devPtr, value, count);
}

cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    if (width > pitch) return fail(cudaErrorInvalidPitchValue, "cudaMemset2D: width %zu exceeds pitch %zu", width, pitch);
    if (width == 0 || height == 0) return cudaSuccess;
    cudaError_t error = check_device_range("cudaMemset2D", "destination", devPtr, pitch * (height - 1) + width);
    if (error != cudaSuccess) return error;
    for (std::size_t row = 0; row < height; ++row) std::memset(static_cast<char *>(devPtr) + row * pitch, value, width);
    return cudaSuccess;
}

cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream)
{
    cudaError_t error = check_stream(stream, "cudaMemset2DAsync");
    if (error == cudaSuccess && capture_possible() &&
        capture_memset(stream, cudaMemsetParams{devPtr, pitch, (unsigned int)(value & 0xff), 1, width, height}, &error))
        return error;
    return error != cudaSuccess ? error : cudaMemset2D(devPtr, pitch, value, width, height);
}

cudaError_t cudaMemPrefetchAsync(const void *, size_t, int, cudaStream_t stream)
{
    return check_stream(stream, "cudaMemPrefetchAsync");
}

cudaError_t cudaMemAdvise(const void *, size_t, enum cudaMemoryAdvise, int) { return cudaSuccess; }

cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *, size_t, unsigned int flags)
{
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost && flags != cudaMemAttachSingle)
        return fail(cudaErrorInvalidValue, "cudaStreamAttachMemAsync: flags %u are none of cudaMemAttachGlobal, "
                    "cudaMemAttachHost, cudaMemAttachSingle", flags);
    return check_stream(stream, "cudaStreamAttachMemAsync");
}

cudaError_t cudaMemPrefetchAsync_v2(const void *ptr, size_t count, cudaMemLocation location, unsigned int flags,
                                    cudaStream_t stream)
{
    return cudaMemPrefetchAsync(ptr, count, location, flags, stream);
}

cudaError_t cudaMemAdvise_v2(const void *ptr, size_t count, enum cudaMemoryAdvise advice, cudaMemLocation location)
{
    return cudaMemAdvise(ptr, count, advice, location);
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind)
{
    return copy_symbol("cudaMemcpyToSymbol", symbol, true, src, count, offset, kind);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind)
{
    return copy_symbol("cudaMemcpyFromSymbol", symbol, false, dst, count, offset, kind);
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t stream)
{
    cudaError_t error = check_stream(stream, "cudaMemcpyToSymbolAsync");
    return error != cudaSuccess ? error : cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream)
{
    cudaError_t error = check_stream(stream, "cudaMemcpyFromSymbolAsync");
    return error != cudaSuccess ? error : cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    if (!devPtr || !symbol) return fail(cudaErrorInvalidSymbol, "cudaGetSymbolAddress: pass a pointer's address and the variable");
    *devPtr = const_cast<void *>(symbol);
    return cudaSuccess;
}

}  // extern "C"

// CUDA 13's forms, C++ overloads of the CUDA 12 ones above.
cudaError_t cudaMemPrefetchAsync(const void *, size_t, cudaMemLocation location, unsigned int, cudaStream_t stream)
{
    const cudaError_t error = check_location("cudaMemPrefetchAsync", location);
    return error != cudaSuccess ? error : check_stream(stream, "cudaMemPrefetchAsync");
}

cudaError_t cudaMemAdvise(const void *, size_t, enum cudaMemoryAdvise, cudaMemLocation location)
{
    return check_location("cudaMemAdvise", location);
}
