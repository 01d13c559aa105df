#include "api/devices.h"

#include <unistd.h>

#include <climits>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <set>
#include <vector>

#include "api/api_errors.h"
#include "api/device_work.h"
#include "engine/block_runner.h"
#include "engine/device_limits.h"
#include "api/memory_registry.h"
#include "settings.h"

namespace cudaemu {
namespace {
thread_local int tls_device = 0;

struct DeviceState {
    std::set<int> peers;  // devices whose memory this one may access (cudaDeviceEnablePeerAccess)
    unsigned int flags = 0;
    size_t limits[7] = {1024, 1 << 20, 8 << 20, 2, 2048, 32, 0};
    cudaFuncCache cache_config = cudaFuncCachePreferNone;
    cudaSharedMemConfig shared_config = cudaSharedMemBankSizeFourByte;
};
std::mutex state_mutex;
std::vector<DeviceState> &states()
{
    static std::vector<DeviceState> devices((std::size_t)emulated_device_count());
    return devices;
}

std::size_t physical_memory_bytes()
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (std::size_t)pages * (std::size_t)page : (std::size_t)8 << 30;
}

// An H100's texture and surface limits, which deviceQuery prints.
void set_texture_limits(cudaDeviceProp &prop)
{
    auto set = [](int *field, std::initializer_list<int> values) {
        for (int value : values) *field++ = value;
    };
    prop.maxTexture1D = 131072;
    prop.maxTexture1DMipmap = 32768;
    prop.maxTexture1DLinear = 268435456;
    set(prop.maxTexture2D, {131072, 65536});
    set(prop.maxTexture2DMipmap, {32768, 32768});
    set(prop.maxTexture2DLinear, {131072, 65000, 2097120});
    set(prop.maxTexture2DGather, {32768, 32768});
    set(prop.maxTexture3D, {16384, 16384, 16384});
    set(prop.maxTexture3DAlt, {8192, 8192, 32768});
    prop.maxTextureCubemap = 32768;
    set(prop.maxTexture1DLayered, {32768, 2048});
    set(prop.maxTexture2DLayered, {32768, 32768, 2048});
    set(prop.maxTextureCubemapLayered, {32768, 2046});
    prop.maxSurface1D = 32768;
    set(prop.maxSurface2D, {131072, 65536});
    set(prop.maxSurface3D, {16384, 16384, 16384});
    set(prop.maxSurface1DLayered, {32768, 2048});
    set(prop.maxSurface2DLayered, {32768, 32768, 2048});
    prop.maxSurfaceCubemap = 32768;
    set(prop.maxSurfaceCubemapLayered, {32768, 2046});
}

}  // namespace

cudaError_t invalid_device(const char *call, int device)
{
    return fail(cudaErrorInvalidDevice, "%s(%d): there are %d emulated devices, numbered 0 to %d (set "
                "CUDA_EMU_DEVICES to emulate more)",
                call, device, emulated_device_count(), emulated_device_count() - 1);
}

int current_device() { return tls_device; }
bool is_device(int device) { return device >= 0 && device < emulated_device_count(); }

cudaDeviceProp device_properties(int device)
{
    cudaDeviceProp prop;
    std::memset(&prop, 0, sizeof prop);
    std::strcpy(prop.name, "CPU emulation");
    prop.uuid.bytes[0] = (char)device;
    prop.totalGlobalMem = physical_memory_bytes();
    prop.sharedMemPerBlock = kSharedPerBlock;
    prop.regsPerBlock = kRegistersPerBlock;
    prop.warpSize = kWarpSize;
    prop.memPitch = INT_MAX;
    prop.maxThreadsPerBlock = kMaxThreadsPerBlock;
    for (int i = 0; i < 3; ++i) {
        prop.maxThreadsDim[i] = (int)kMaxBlockDim[i];
        prop.maxGridSize[i] = (int)kMaxGridDim[i];
    }
    prop.clockRate = 1000000;  // kHz; nominal: a CPU thread is not an SM
    prop.totalConstMem = kTotalConstantMemory;
    prop.major = kComputeMajor;
    prop.minor = kComputeMinor;
    prop.textureAlignment = 512;
    prop.texturePitchAlignment = 32;
    set_texture_limits(prop);
    prop.deviceOverlap = 1;
    prop.multiProcessorCount = kMultiprocessorCount;
    prop.integrated = 1;  // device memory is host memory
    prop.canMapHostMemory = 1;
    prop.computeMode = cudaComputeModeDefault;
    prop.surfaceAlignment = 512;
    prop.concurrentKernels = 1;
    prop.pciBusID = device;
    prop.asyncEngineCount = 1;
    prop.unifiedAddressing = 1;
    prop.memoryClockRate = 1000000;  // kHz; nominal
    prop.memoryBusWidth = 64;
    prop.l2CacheSize = 4 << 20;
    // No L2 keeps lines for a stream here: 0, so programs that check (simpleAttributes) skip
    // their persistence demo, as on a GPU without it; a window set anyway is accepted.
    prop.persistingL2CacheMaxSize = 0;
    prop.accessPolicyMaxWindowSize = 128 << 20;
    prop.maxThreadsPerMultiProcessor = kMaxThreadsPerMultiprocessor;
    prop.streamPrioritiesSupported = 1;
    prop.globalL1CacheSupported = 1;
    prop.localL1CacheSupported = 1;
    prop.sharedMemPerMultiprocessor = kSharedPerMultiprocessor;
    prop.regsPerMultiprocessor = kRegistersPerBlock;
    prop.managedMemory = 1;
    prop.hostNativeAtomicSupported = 1;
    prop.singleToDoublePrecisionPerfRatio = 2;
    prop.pageableMemoryAccess = 1;
    prop.concurrentManagedAccess = 1;
    prop.canUseHostPointerForRegisteredMem = 1;
    prop.cooperativeLaunch = 1;
    prop.sharedMemPerBlockOptin = kSharedPerBlockOptin;
    prop.directManagedMemAccessFromHost = 1;
    prop.maxBlocksPerMultiProcessor = kMaxBlocksPerMultiprocessor;
    prop.reservedSharedMemPerBlock = kReservedSharedPerBlock;
    prop.hostRegisterSupported = 1;
    prop.memoryPoolsSupported = 1;
    prop.unifiedFunctionPointers = 1;
    prop.deviceNumaId = -1;
    prop.hostNumaId = -1;
    return prop;
}

}  // namespace cudaemu

using namespace cudaemu;

extern "C" {

cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count) return fail(cudaErrorInvalidValue, "cudaGetDeviceCount(NULL): pass the address of an int");
    *count = emulated_device_count();
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    if (!is_device(device)) return invalid_device("cudaSetDevice", device);
    tls_device = device;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    if (!device) return fail(cudaErrorInvalidValue, "cudaGetDevice(NULL): pass the address of an int");
    *device = tls_device;
    return cudaSuccess;
}

cudaError_t cudaInitDevice(int device, unsigned int, unsigned int)
{
    return is_device(device) ? cudaSuccess : invalid_device("cudaInitDevice", device);
}

cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *)
{
    if (!device) return fail(cudaErrorInvalidValue, "cudaChooseDevice(NULL, ...): pass the address of an int");
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    if (!prop) return fail(cudaErrorInvalidValue, "cudaGetDeviceProperties(NULL, %d): pass a cudaDeviceProp", device);
    if (!is_device(device)) return invalid_device("cudaGetDeviceProperties", device);
    *prop = device_properties(device);
    return cudaSuccess;
}

// This thread's kernels and copies are already done; another thread's may still run on the
// device: wait for them.
cudaError_t cudaDeviceSynchronize(void)
{
    if (BlockRunner::running_kernel())  // waiting here would wait for the calling grid itself
        return fail(cudaErrorNotSupported,
                    "cudaDeviceSynchronize() called from device code: CUDA 12 removed it there, as a grid cannot "
                    "wait for the grids it launched; they finish before it does, as the host sees it");
    DeviceWork wait_for_others(current_device());
    return record_error(sticky_error());
}

cudaError_t cudaDeviceReset(void)
{
    free_device_allocations(tls_device);
    std::lock_guard<std::mutex> lock(state_mutex);
    states()[(std::size_t)tls_device] = DeviceState{};
    return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    std::lock_guard<std::mutex> lock(state_mutex);
    states()[(std::size_t)tls_device].flags = flags;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    if (!flags) return fail(cudaErrorInvalidValue, "cudaGetDeviceFlags(NULL): pass the address of an unsigned int");
    std::lock_guard<std::mutex> lock(state_mutex);
    *flags = states()[(std::size_t)tls_device].flags;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    if ((int)limit < 0 || (int)limit > 6) return fail(cudaErrorInvalidValue, "cudaDeviceSetLimit: unknown limit %d", (int)limit);
    std::lock_guard<std::mutex> lock(state_mutex);
    states()[(std::size_t)tls_device].limits[(int)limit] = value;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)
{
    if (!value) return fail(cudaErrorInvalidValue, "cudaDeviceGetLimit(NULL, ...): pass the address of a size_t");
    if ((int)limit < 0 || (int)limit > 6) return fail(cudaErrorInvalidValue, "cudaDeviceGetLimit: unknown limit %d", (int)limit);
    std::lock_guard<std::mutex> lock(state_mutex);
    *value = states()[(std::size_t)tls_device].limits[(int)limit];
    return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config)
{
    std::lock_guard<std::mutex> lock(state_mutex);
    states()[(std::size_t)tls_device].cache_config = config;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *config)
{
    if (!config) return fail(cudaErrorInvalidValue, "cudaDeviceGetCacheConfig(NULL)");
    std::lock_guard<std::mutex> lock(state_mutex);
    *config = states()[(std::size_t)tls_device].cache_config;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
    std::lock_guard<std::mutex> lock(state_mutex);
    states()[(std::size_t)tls_device].shared_config = config;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *config)
{
    if (!config) return fail(cudaErrorInvalidValue, "cudaDeviceGetSharedMemConfig(NULL)");
    std::lock_guard<std::mutex> lock(state_mutex);
    *config = states()[(std::size_t)tls_device].shared_config;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
    if (least) *least = 0;
    if (greatest) *greatest = -5;
    return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int *can_access, int device, int peer)
{
    if (!can_access) return fail(cudaErrorInvalidValue, "cudaDeviceCanAccessPeer(NULL, ...): pass the address of an int");
    if (!is_device(device)) return invalid_device("cudaDeviceCanAccessPeer", device);
    if (!is_device(peer)) return invalid_device("cudaDeviceCanAccessPeer", peer);
    *can_access = device != peer && peer_access_between_devices();  // 0 for a device and itself
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags)
{
    if (!is_device(peer)) return invalid_device("cudaDeviceEnablePeerAccess", peer);
    if (peer == tls_device)
        return fail(cudaErrorInvalidDevice, "cudaDeviceEnablePeerAccess(%d): that is the current device; a device "
                    "always reaches its own memory",
                    peer);
    if (flags != 0) return fail(cudaErrorInvalidValue, "cudaDeviceEnablePeerAccess: flags must be 0");
    if (!peer_access_between_devices())
        return fail(cudaErrorPeerAccessUnsupported, "cudaDeviceEnablePeerAccess(%d): these devices have no peer access "
                    "(CUDA_EMU_PEER_ACCESS=0, as GPUs on different PCIe root complexes); ask "
                    "cudaDeviceCanAccessPeer first, and copy through the host where it answers 0",
                    peer);
    std::lock_guard<std::mutex> lock(state_mutex);
    if (!states()[(std::size_t)tls_device].peers.insert(peer).second) return record_error(cudaErrorPeerAccessAlreadyEnabled);
    return cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peer)
{
    if (!is_device(peer)) return invalid_device("cudaDeviceDisablePeerAccess", peer);
    std::lock_guard<std::mutex> lock(state_mutex);
    if (states()[(std::size_t)tls_device].peers.erase(peer) == 0) return record_error(cudaErrorPeerAccessNotEnabled);
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *version)
{
    if (!version) return fail(cudaErrorInvalidValue, "cudaDriverGetVersion(NULL)");
    *version = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *version)
{
    if (!version) return fail(cudaErrorInvalidValue, "cudaRuntimeGetVersion(NULL)");
    *version = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    std::size_t total = physical_memory_bytes(), used = device_bytes_in_use(tls_device);
    if (free_bytes) *free_bytes = used < total ? total - used : 0;
    if (total_bytes) *total_bytes = total;
    return cudaSuccess;
}

cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

}  // extern "C"
