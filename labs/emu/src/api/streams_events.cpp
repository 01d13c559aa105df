// Streams and events. Work runs when it is issued, so every stream is idle by the time the
// host can ask, and an event records the host's clock when cudaEventRecord is called: the
// time between two events is the emulator's wall-clock time for the work between them.
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>

#include "api/api_errors.h"
#include "api/devices.h"
#include "api/graph_capture.h"
#include "api/streams.h"

struct CUstream_st {
    unsigned int flags;
    int priority;
    int device;
    cudaAccessPolicyWindow access_policy;  // what cudaStreamSetAttribute set (no L2 to steer)
};

struct CUevent_st {
    unsigned int flags;
    bool recorded;
    std::chrono::steady_clock::time_point when;
};

namespace cudaemu {
namespace {
std::mutex handles_mutex;
cudaAccessPolicyWindow default_stream_policy;  // the access policy of the default stream
// Never destroyed, like the memory registry: streams and events the program did not destroy
// stay reachable at exit rather than showing up as leaks under AddressSanitizer.
std::set<const void *> &live_handles()
{
    static auto *handles = new std::set<const void *>;
    return *handles;
}
bool is_live(const void *handle)
{
    std::lock_guard<std::mutex> lock(handles_mutex);
    return live_handles().count(handle) != 0;
}
void add_handle(const void *handle)
{
    std::lock_guard<std::mutex> lock(handles_mutex);
    live_handles().insert(handle);
}
bool remove_handle(const void *handle)
{
    std::lock_guard<std::mutex> lock(handles_mutex);
    return live_handles().erase(handle) != 0;
}

// cudaStreamDestroy and cudaEventDestroy: `handle` must be live (`made` says how one is made).
template <class Handle>
cudaError_t destroy_handle(const char *call, Handle handle, const char *made)
{
    if (!handle || !remove_handle(handle))
        return fail(cudaErrorInvalidResourceHandle, "%s(%p): not %s, or destroyed already", call, (void *)handle, made);
    delete handle;
    return cudaSuccess;
}

cudaError_t check_event(cudaEvent_t event, const char *call)
{
    if (!event || !is_live(event))
        return fail(cudaErrorInvalidResourceHandle, "%s: the event %p was not made by cudaEventCreate, or was "
                    "destroyed", call, (void *)event);
    return cudaSuccess;
}
}  // namespace

cudaError_t check_stream(cudaStream_t stream, const char *call)
{
    if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread || is_live(stream))
        return cudaSuccess;
    return fail(cudaErrorInvalidResourceHandle, "%s: the stream %p was not made by cudaStreamCreate, or was "
                "destroyed", call, (void *)stream);
}

}  // namespace cudaemu

using namespace cudaemu;

extern "C" {

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
    if (!pStream) return fail(cudaErrorInvalidValue, "cudaStreamCreate(NULL): pass the address of a cudaStream_t");
    *pStream = new CUstream_st{flags, priority, current_device(), {}};
    add_handle(*pStream);
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream) { return cudaStreamCreateWithPriority(pStream, 0, 0); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    return cudaStreamCreateWithPriority(pStream, flags, 0);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    return destroy_handle("cudaStreamDestroy", stream, "a stream from cudaStreamCreate");
}

cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue *value)
{
    if (cudaError_t error = check_stream(stream, "cudaStreamSetAttribute")) return error;
    if (!value) return fail(cudaErrorInvalidValue, "cudaStreamSetAttribute(..., NULL): pass the value to set");
    if (attr == cudaStreamAttributeAccessPolicyWindow) {
        const cudaAccessPolicyWindow &window = value->accessPolicyWindow;
        cudaDeviceProp prop;
        cudaGetDeviceProperties(&prop, current_device());
        if (window.hitRatio < 0.f || window.hitRatio > 1.f)
            return fail(cudaErrorInvalidValue, "cudaStreamSetAttribute: accessPolicyWindow.hitRatio %g is not between "
                        "0 and 1", window.hitRatio);
        if (window.num_bytes > (size_t)prop.accessPolicyMaxWindowSize)
            return fail(cudaErrorInvalidValue, "cudaStreamSetAttribute: accessPolicyWindow.num_bytes %zu is over "
                        "cudaDeviceProp::accessPolicyMaxWindowSize (%d)", window.num_bytes,
                        prop.accessPolicyMaxWindowSize);
        (stream && is_live(stream) ? stream->access_policy : default_stream_policy) = window;
        return cudaSuccess;
    }
    if (attr == cudaStreamAttributePriority) {
        if (stream && is_live(stream)) stream->priority = value->priority;
        return cudaSuccess;
    }
    if (attr == cudaStreamAttributeSynchronizationPolicy) return cudaSuccess;  // work is done when issued
    return fail(cudaErrorInvalidValue, "cudaStreamSetAttribute: %d is not a stream attribute", (int)attr);
}

cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue *value_out)
{
    if (cudaError_t error = check_stream(stream, "cudaStreamGetAttribute")) return error;
    if (!value_out) return fail(cudaErrorInvalidValue, "cudaStreamGetAttribute(..., NULL): pass where to store it");
    std::memset(value_out, 0, sizeof *value_out);
    const bool own = stream && is_live(stream);
    if (attr == cudaStreamAttributeAccessPolicyWindow) {
        value_out->accessPolicyWindow = own ? stream->access_policy : default_stream_policy;
        return cudaSuccess;
    }
    if (attr == cudaStreamAttributePriority) {
        value_out->priority = own ? stream->priority : 0;
        return cudaSuccess;
    }
    if (attr == cudaStreamAttributeSynchronizationPolicy) {
        value_out->syncPolicy = cudaSyncPolicyAuto;
        return cudaSuccess;
    }
    return fail(cudaErrorInvalidValue, "cudaStreamGetAttribute: %d is not a stream attribute", (int)attr);
}

cudaError_t cudaCtxResetPersistingL2Cache(void) { return cudaSuccess; }

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    if (cudaError_t sticky = sticky_error()) return record_error(sticky);
    cudaError_t error = check_stream(stream, "cudaStreamSynchronize");
    if (error == cudaSuccess && capture_possible()) capture_refuses_sync(stream, "cudaStreamSynchronize", &error);
    return error;
}
cudaError_t cudaStreamQuery(cudaStream_t stream) { return check_stream(stream, "cudaStreamQuery"); }

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int)
{
    cudaError_t error = check_stream(stream, "cudaStreamWaitEvent");
    if (error == cudaSuccess) error = check_event(event, "cudaStreamWaitEvent");
    if (error == cudaSuccess && capture_possible()) capture_event_wait(stream, event, &error);
    return error;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData, unsigned int)
{
    cudaError_t error = check_stream(stream, "cudaStreamAddCallback");
    if (error == cudaSuccess && capture_possible() && capture_refuses_sync(stream, "cudaStreamAddCallback", &error))
        return error;
    if (error == cudaSuccess && callback) callback(stream, cudaSuccess, userData);
    return error;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    cudaError_t error = check_stream(stream, "cudaLaunchHostFunc");
    if (error == cudaSuccess && fn && capture_possible() && capture_host_function(stream, fn, userData, &error))
        return error;
    if (error == cudaSuccess && fn) fn(userData);
    return error;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    if (!event) return fail(cudaErrorInvalidValue, "cudaEventCreate(NULL): pass the address of a cudaEvent_t");
    *event = new CUevent_st{flags, false, {}};
    add_handle(*event);
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    cudaError_t error = check_event(event, "cudaEventRecord");
    if (error == cudaSuccess) error = check_stream(stream, "cudaEventRecord");
    if (error != cudaSuccess) return error;
    if (capture_possible() && capture_event_record(event, stream, &error)) return error;
    event->recorded = true;
    event->when = std::chrono::steady_clock::now();
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) { return check_event(event, "cudaEventSynchronize"); }
cudaError_t cudaEventQuery(cudaEvent_t event) { return check_event(event, "cudaEventQuery"); }

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!ms) return fail(cudaErrorInvalidValue, "cudaEventElapsedTime(NULL, ...): pass the address of a float");
    cudaError_t error = check_event(start, "cudaEventElapsedTime");
    if (error == cudaSuccess) error = check_event(end, "cudaEventElapsedTime");
    if (error != cudaSuccess) return error;
    if ((start->flags | end->flags) & cudaEventDisableTiming)
        return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event was created with "
                    "cudaEventDisableTiming and has no time");
    if (!start->recorded || !end->recorded)
        return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: the %s event was never recorded (call "
                    "cudaEventRecord on it first)", start->recorded ? "end" : "start");
    *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    return destroy_handle("cudaEventDestroy", event, "an event from cudaEventCreate");
}

}  // extern "C"
