// Stream capture: while a stream is captured (cudaStreamBeginCapture), the work issued to it
// becomes nodes of the capture's graph (graph_capture.h says where the stream calls ask). A
// captured kernel node keeps its own copy of the arguments, made through the launch path
// itself: src/api/launch.cpp hands a launch to capture_kernel first.
#include "api/graph_capture.h"

#include "api/devices.h"
#include "api/graph_model.h"
#include "reports/diagnostics.h"

namespace cudaemu {
namespace graph {

// The capture of `stream`, if it is being captured (the caller holds graph_mutex).
Capture *capture_of(cudaStream_t stream)
{
    auto it = captures().find(stream);
    return it == captures().end() ? nullptr : &it->second;
}

// Adds `node` to the capture of `stream` after the capture's current dependencies.
bool capture_node(cudaStream_t stream, std::unique_ptr<CUgraphNode_st> node)
{
    std::lock_guard<std::mutex> lock(graph_mutex);
    Capture *capture = capture_of(stream);
    if (!capture) return false;
    node->owner = capture->graph;
    node->deps = capture->deps;
    capture->deps.assign(1, node.get());
    capture->joined = false;
    capture->graph->nodes.push_back(std::move(node));
    return true;
}

bool stream_is_capturing(cudaStream_t stream)
{
    std::lock_guard<std::mutex> lock(graph_mutex);
    return capture_of(stream) != nullptr;
}

// What a capture_* call that records one node does: false where `stream` is not capturing;
// else the node `make` returns goes into the capture, and *result says whether it could.
template <class MakeNode>
bool capture_made_node(cudaStream_t stream, cudaError_t *result, MakeNode make)
{
    if (!stream_is_capturing(stream)) return false;
    *result = capture_node(stream, make()) ? cudaSuccess : cudaErrorStreamCaptureInvalidated;
    return true;
}

}  // namespace graph

using namespace graph;

std::atomic<int> captures_active{0};

bool capture_kernel(const LaunchConfig &config, const KernelCall &call, bool cooperative, cudaError_t *result)
{
    bool binding = binding_target != nullptr;
    if (!binding && !stream_is_capturing(config.stream)) return false;
    if (!call.clone_args) {
        *result = fail(cudaErrorStreamCaptureUnsupported, "kernel %s: this launch cannot be kept in a graph (its "
                       "arguments cannot be copied); launch it outside the capture", call.name ? call.name : "?");
        return true;
    }
    auto kept = std::make_shared<const KernelLaunch>(config, call, cooperative);
    if (binding) {
        *binding_target = kept;
        *result = cudaSuccess;
        return true;
    }
    auto node = new_node(cudaGraphNodeTypeKernel);
    node->kernel = kept;
    *result = capture_node(config.stream, std::move(node)) ? cudaSuccess : cudaErrorStreamCaptureInvalidated;
    return true;
}

bool capture_copy(cudaStream_t stream, const cudaMemcpy3DParms &copy, cudaError_t *result)
{
    return capture_made_node(stream, result, [&] {
        return new_node(cudaGraphNodeTypeMemcpy, &CUgraphNode_st::copy, copy);
    });
}

bool capture_copy_1d(cudaStream_t stream, void *dst, const void *src, std::size_t count, cudaMemcpyKind kind,
                     cudaError_t *result)
{
    return capture_made_node(stream, result, [&] { return memcpy_1d_node(dst, src, count, kind); });
}

bool capture_memset(cudaStream_t stream, const cudaMemsetParams &fill, cudaError_t *result)
{
    return capture_made_node(stream, result, [&] {
        return new_node(cudaGraphNodeTypeMemset, &CUgraphNode_st::fill, fill);
    });
}

bool capture_host_function(cudaStream_t stream, cudaHostFn_t fn, void *user_data, cudaError_t *result)
{
    return capture_made_node(stream, result, [&] {
        return new_node(cudaGraphNodeTypeHost, &CUgraphNode_st::host, cudaHostNodeParams{fn, user_data});
    });
}

bool capture_event_record(cudaEvent_t event, cudaStream_t stream, cudaError_t *result)
{
    std::lock_guard<std::mutex> lock(graph_mutex);
    Capture *capture = capture_of(stream);
    if (!capture) return false;
    // Not a node: the event stands for the capture's current work, for a stream that waits on it.
    captured_events()[event] = CapturedEvent{capture->id, capture->deps, stream};
    *result = cudaSuccess;
    return true;
}

bool capture_event_wait(cudaStream_t stream, cudaEvent_t event, cudaError_t *result)
{
    std::lock_guard<std::mutex> lock(graph_mutex);
    auto recorded = captured_events().find(event);
    Capture *origin = nullptr;
    if (recorded != captured_events().end())
        for (auto &entry : captures())
            if (entry.second.id == recorded->second.id && entry.second.origin) origin = &entry.second;
    Capture *capture = capture_of(stream);
    if (!origin) return false;  // an event from outside any capture: nothing to wait for here
    *result = cudaSuccess;
    if (!capture) {
        // Fork: the stream joins the capture, after the event's work.
        captures()[stream] = Capture{origin->graph, recorded->second.deps, origin->id, false, false, origin->mode, false};
        captures_active.fetch_add(1);
        return true;
    }
    if (capture->id != origin->id) {
        *result = fail(cudaErrorStreamCaptureIsolation, "cudaStreamWaitEvent: the stream is capturing one graph and "
                       "the event was recorded in the capture of another; captures cannot depend on each other");
        return true;
    }
    // Join: the stream's next work depends on the event's too; the recording stream, if the
    // event covers all its work, has joined back.
    Capture *recorder = capture_of(recorded->second.stream);
    if (recorder && recorder != capture && recorder->id == capture->id && recorder->deps == recorded->second.deps)
        recorder->joined = true;
    for (cudaGraphNode_t dep : recorded->second.deps)
        if (std::find(capture->deps.begin(), capture->deps.end(), dep) == capture->deps.end())
            capture->deps.push_back(dep);
    return true;
}

bool capture_malloc(cudaStream_t stream, void **pointer, std::size_t size, cudaError_t *result)
{
    if (!stream_is_capturing(stream)) return false;
    auto node = alloc_node("cudaMallocAsync", size, result);
    if (!node) return true;
    void *memory = node->allocation->memory;
    if (!capture_node(stream, std::move(node))) {
        *result = cudaErrorStreamCaptureInvalidated;
        return true;
    }
    *pointer = memory;
    return true;
}

bool capture_free(cudaStream_t stream, void *pointer, cudaError_t *result)
{
    return capture_made_node(stream, result, [&] {
        return new_node(cudaGraphNodeTypeMemFree, &CUgraphNode_st::free_pointer, pointer);
    });
}

bool capture_refuses_sync(cudaStream_t stream, const char *call, cudaError_t *result)
{
    if (!stream_is_capturing(stream)) return false;
    *result = fail(cudaErrorStreamCaptureUnsupported, "%s on a stream being captured: its work has not run (it is "
                   "being recorded into a graph); end the capture, launch the graph, then synchronize", call);
    return true;
}

}  // namespace cudaemu

using namespace cudaemu;
using namespace cudaemu::graph;

extern "C" {

// ---- Stream capture.
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                          const struct cudaGraphEdgeData *, size_t numDependencies,
                                          enum cudaStreamCaptureMode mode)
{
    const char *call = "cudaStreamBeginCapture";
    if (stream == nullptr || stream == cudaStreamLegacy)
        return fail(cudaErrorStreamCaptureUnsupported, "%s: the legacy default stream cannot be captured; capture a "
                    "stream from cudaStreamCreate", call);
    cudaError_t error = check_stream(stream, call);
    if (error != cudaSuccess) return error;
    bool owns = graph == nullptr;
    if (owns) {
        cudaGraphCreate(&graph, 0);
    } else if ((error = check_graph(call, graph)) != cudaSuccess) {
        return error;
    }
    std::lock_guard<std::mutex> lock(graph_mutex);
    if (capture_of(stream))
        return fail(cudaErrorIllegalState, "%s: the stream is being captured already; end that capture first", call);
    Capture capture{graph, std::vector<cudaGraphNode_t>(dependencies, dependencies + numDependencies),
                    next_capture_id.fetch_add(1), true, owns, mode};
    captures()[stream] = capture;
    captures_active.fetch_add(1);
    return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    return cudaStreamBeginCaptureToGraph(stream, nullptr, nullptr, nullptr, 0, mode);
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    const char *call = "cudaStreamEndCapture";
    std::lock_guard<std::mutex> lock(graph_mutex);
    Capture *capture = capture_of(stream);
    if (!capture) return fail(cudaErrorIllegalState, "%s: the stream is not being captured", call);
    // NULL is for a capture into a graph the program made (cudaStreamBeginCaptureToGraph).
    if (!pGraph && capture->owns_graph)
        return fail(cudaErrorInvalidValue, "%s: pass the address of a cudaGraph_t to receive the captured graph", call);
    if (!capture->origin)
        return fail(cudaErrorStreamCaptureUnmatched, "%s: this stream joined a capture begun on another stream; end "
                    "the capture on the stream that began it", call);
    unsigned long long id = capture->id;
    CUgraph_st *graph = capture->graph;
    int unjoined = 0;
    for (auto it = captures().begin(); it != captures().end();) {
        if (it->second.id == id) {
            if (it->first != stream && !it->second.joined) ++unjoined;
            it = captures().erase(it);
            captures_active.fetch_sub(1);
        } else {
            ++it;
        }
    }
    for (auto it = captured_events().begin(); it != captured_events().end();)
        it = it->second.id == id ? captured_events().erase(it) : std::next(it);
    if (pGraph) *pGraph = graph;
    if (unjoined)
        return fail(cudaErrorStreamCaptureUnjoined, "%s: %d stream(s) forked from this capture (by waiting on an "
                    "event recorded in it) were not joined back: record an event in each and make this stream wait "
                    "on it before ending the capture", call, unjoined);
    return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus)
{
    if (!pCaptureStatus) return fail(cudaErrorInvalidValue, "cudaStreamIsCapturing: pass a status's address");
    cudaError_t error = check_stream(stream, "cudaStreamIsCapturing");
    if (error != cudaSuccess) return error;
    *pCaptureStatus = stream_is_capturing(stream) ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    return cudaSuccess;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out, cudaGraph_t *graph_out,
                                     const cudaGraphNode_t **dependencies_out,
                                     const struct cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
    if (!captureStatus_out) return fail(cudaErrorInvalidValue, "cudaStreamGetCaptureInfo: pass a status's address");
    cudaError_t error = check_stream(stream, "cudaStreamGetCaptureInfo");
    if (error != cudaSuccess) return error;
    std::lock_guard<std::mutex> lock(graph_mutex);
    Capture *capture = capture_of(stream);
    *captureStatus_out = capture ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    if (id_out) *id_out = capture ? capture->id : 0;
    if (graph_out) *graph_out = capture ? capture->graph : nullptr;
    // The array stays valid until the stream's capture changes, as in CUDA.
    if (dependencies_out) *dependencies_out = capture && !capture->deps.empty() ? capture->deps.data() : nullptr;
    if (edgeData_out) *edgeData_out = nullptr;
    if (numDependencies_out) *numDependencies_out = capture ? capture->deps.size() : 0;
    return cudaSuccess;
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *dependencies,
                                                const struct cudaGraphEdgeData *, size_t numDependencies,
                                                unsigned int flags)
{
    std::lock_guard<std::mutex> lock(graph_mutex);
    Capture *capture = capture_of(stream);
    if (!capture)
        return fail(cudaErrorIllegalState, "cudaStreamUpdateCaptureDependencies: the stream is not being captured");
    if (flags == cudaStreamSetCaptureDependencies) capture->deps.clear();
    for (std::size_t i = 0; i < numDependencies; ++i)
        if (std::find(capture->deps.begin(), capture->deps.end(), dependencies[i]) == capture->deps.end())
            capture->deps.push_back(dependencies[i]);
    return cudaSuccess;
}

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    if (!mode) return fail(cudaErrorInvalidValue, "cudaThreadExchangeStreamCaptureMode: pass a mode's address");
    thread_local cudaStreamCaptureMode current = cudaStreamCaptureModeGlobal;
    std::swap(current, *mode);
    return cudaSuccess;
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    if (flags & cudaEventRecordExternal) {
        auto node = new_node(cudaGraphNodeTypeEventRecord);
        node->event = event;
        cudaError_t result;
        if (capture_node(stream, std::move(node))) return cudaSuccess;
        (void)result;
    }
    return cudaEventRecord(event, stream);
}

}  // extern "C"
