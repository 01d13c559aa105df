// CUDA graphs and stream capture. A graph is a list of nodes, each with the nodes it depends
// on (always earlier ones, or ones cudaGraphAddDependencies names). Instantiating copies the
// graph; launching runs the copy's nodes in a dependency order (Kahn's, ties in the order
// they were added) on the calling host thread, each node as the call it stands for would run
// (launch, cudaMemcpy3D, memset, host function, child graph, ...), before cudaGraphLaunch
// returns, as every launch under emulation does. A kernel node keeps its own copy of the
// arguments, made when it is added or captured (as CUDA copies them), through the launch
// path itself: src/api/launch.cpp hands a launch to capture_kernel first.
//
// Memory-alloc nodes reserve their memory when added (so the address can be baked into the
// nodes that follow, as CUDA fixes it at creation) and make it device memory each time the
// node runs; a memory-free node, cudaFree or cudaFreeAsync returns it to the graph. A
// conditional node reads its handle's value, set by cudaGraphSetConditional in a kernel.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "api/api_errors.h"
#include "api/devices.h"
#include "api/graph_capture.h"
#include "api/kernel_registry.h"
#include "api/memory_registry.h"
#include "api/streams.h"
#include "reports/diagnostics.h"

namespace cudaemu {
namespace {

// A kernel launch kept for later: the configuration and a private copy of the arguments.
struct KernelLaunch {
    LaunchConfig config;
    KernelCall call;
    bool cooperative;
    KernelLaunch(const LaunchConfig &c, const KernelCall &k, bool coop) : config(c), call(k), cooperative(coop)
    {
        call.bound_args = k.clone_args(k.bound_args);
    }
    ~KernelLaunch() { call.destroy_args(call.bound_args); }
    KernelLaunch(const KernelLaunch &) = delete;
    KernelLaunch &operator=(const KernelLaunch &) = delete;
};

// The memory of one memory-alloc node, for the lifetime of its graphs.
struct GraphAllocation {
    void *memory = nullptr;
    std::size_t size = 0;
    int device = 0;
    bool in_use = false;  // registered as device memory (allocated and not yet freed)
    ~GraphAllocation();
};

struct GraphMemoryStats {
    std::size_t used = 0, used_high = 0, reserved = 0, reserved_high = 0;
};
std::mutex graph_mutex;  // graphs, captures, handles and graph memory
std::map<int, GraphMemoryStats> &graph_memory()
{
    static auto *stats = new std::map<int, GraphMemoryStats>;
    return *stats;
}
// Every graph allocation by its address, while its record lives.
std::map<const void *, GraphAllocation *> &graph_allocations()
{
    static auto *by_address = new std::map<const void *, GraphAllocation *>;
    return *by_address;
}

GraphAllocation::~GraphAllocation()
{
    std::lock_guard<std::mutex> lock(graph_mutex);
    GraphMemoryStats &stats = graph_memory()[device];
    Allocation forgotten;
    if (in_use && forget_allocation(memory, MemoryKind::Graph, &forgotten)) {
        // Still allocated when its last graph goes: the program owns it now (cudaFree frees it).
        remember_allocation(Allocation{static_cast<const char *>(memory), size, device, MemoryKind::Device});
        stats.used -= size;
    } else {
        std::free(memory);
    }
    stats.reserved -= size;
    graph_allocations().erase(memory);
}

struct Condition {
    std::atomic<unsigned int> value{0};
    unsigned int default_value = 0;
    bool assign_default = false;
    const CUgraph_st *graph = nullptr;
};
constexpr std::size_t kMaxConditions = 1u << 16;
Condition conditions[kMaxConditions];
std::atomic<std::size_t> conditions_made{0};

}  // namespace
}  // namespace cudaemu

using namespace cudaemu;

struct CUgraphNode_st {
    cudaGraphNodeType type;
    CUgraph_st *owner;
    std::vector<CUgraphNode_st *> deps;
    std::shared_ptr<const KernelLaunch> kernel;
    cudaMemcpy3DParms copy{};
    bool copy_1d = false;
    void *dst = nullptr;
    const void *src = nullptr;
    std::size_t count = 0;
    cudaMemcpyKind kind = cudaMemcpyDefault;
    cudaMemsetParams fill{};
    cudaHostNodeParams host{};
    cudaEvent_t event = nullptr;
    std::shared_ptr<GraphAllocation> allocation;
    void *free_pointer = nullptr;
    cudaGraphConditionalHandle condition = 0;
    cudaGraphConditionalNodeType condition_type = cudaGraphCondTypeIf;
    std::vector<std::unique_ptr<CUgraph_st>> bodies;  // a child graph's copy, or the conditional's bodies
    std::vector<cudaGraph_t> body_handles;            // what phGraph_out points to
    bool enabled = true;                              // cudaGraphNodeSetEnabled, in an executable graph
};

struct CUgraph_st {
    std::vector<std::unique_ptr<CUgraphNode_st>> nodes;
    std::vector<cudaGraphConditionalHandle> conditions;  // made for this graph
    const CUgraph_st *outer = nullptr;                    // the graph a body or child belongs to
};

struct CUgraphExec_st {
    std::unique_ptr<CUgraph_st> graph;
    std::map<const CUgraphNode_st *, CUgraphNode_st *> from_original;
};

namespace cudaemu {
namespace {
std::set<const void *> &live_graphs()
{
    static auto *graphs = new std::set<const void *>;
    return *graphs;
}
std::set<const void *> &live_execs()
{
    static auto *execs = new std::set<const void *>;
    return *execs;
}

// ---- Capture state.
struct Capture {
    CUgraph_st *graph;
    std::vector<cudaGraphNode_t> deps;
    unsigned long long id;
    bool origin;  // the stream that began the capture (and must end it)
    bool owns_graph;
    cudaStreamCaptureMode mode;
    bool joined = false;  // a forked stream whose work so far another capturing stream waits for
};
std::map<cudaStream_t, Capture> &captures()
{
    static auto *by_stream = new std::map<cudaStream_t, Capture>;
    return *by_stream;
}
struct CapturedEvent {
    unsigned long long id;
    std::vector<cudaGraphNode_t> deps;
    cudaStream_t stream;  // where it was recorded
};
std::map<cudaEvent_t, CapturedEvent> &captured_events()
{
    static auto *by_event = new std::map<cudaEvent_t, CapturedEvent>;
    return *by_event;
}
std::atomic<unsigned long long> next_capture_id{1};
// cudaGraphAddKernelNode / SetParams: where the launch made through the kernel's launcher goes.
thread_local std::shared_ptr<const KernelLaunch> *binding_target = nullptr;

bool graph_is_live(const void *graph)
{
    return graph && live_graphs().count(graph) != 0;
}

cudaError_t check_graph(const char *call, cudaGraph_t graph)
{
    std::lock_guard<std::mutex> lock(graph_mutex);
    if (!graph_is_live(graph))
        return fail(cudaErrorInvalidValue, "%s: %p is not a graph from cudaGraphCreate or stream capture, or was "
                    "destroyed", call, (void *)graph);
    return cudaSuccess;
}

// A new node of `graph` after `deps` (which must be its nodes).
cudaError_t add_node(const char *call, cudaGraphNode_t *out, cudaGraph_t graph, const cudaGraphNode_t *deps,
                     std::size_t count, std::unique_ptr<CUgraphNode_st> node)
{
    if (!out) return fail(cudaErrorInvalidValue, "%s: pass the address of a cudaGraphNode_t", call);
    cudaError_t error = check_graph(call, graph);
    if (error != cudaSuccess) return error;
    if (count && !deps) return fail(cudaErrorInvalidValue, "%s: %zu dependencies but no array of them", call, count);
    for (std::size_t i = 0; i < count; ++i)
        if (!deps[i] || deps[i]->owner != graph)
            return fail(cudaErrorInvalidValue, "%s: dependency %zu is not a node of this graph", call, i);
    node->owner = graph;
    node->deps.assign(deps, deps + count);
    *out = node.get();
    std::lock_guard<std::mutex> lock(graph_mutex);
    graph->nodes.push_back(std::move(node));
    return cudaSuccess;
}

// Forgets `graph` and the bodies of its conditional nodes as handles (the caller holds graph_mutex).
void forget_graph(const CUgraph_st *graph);
void forget_graph_bodies(const CUgraphNode_st &node)
{
    for (const auto &body : node.bodies) forget_graph(body.get());
}
void forget_graph(const CUgraph_st *graph)
{
    live_graphs().erase(graph);
    for (const auto &node : graph->nodes) forget_graph_bodies(*node);
}

// What cudaGraphAddDependencies and cudaGraphRemoveDependencies check before the edges: the
// graph, and that the edge data asks for nothing the emulator lacks.
cudaError_t check_edges(const char *call, cudaGraph_t graph, const cudaGraphEdgeData *edge_data, std::size_t count)
{
    cudaError_t error = check_graph(call, graph);
    if (error != cudaSuccess) return error;
    if (edge_data)
        for (std::size_t i = 0; i < count; ++i)
            if (edge_data[i].from_port || edge_data[i].to_port || edge_data[i].type)
                return fail(cudaErrorNotSupported, "%s: edge data other than the default (ports and programmatic "
                            "edges) is not emulated; pass NULL", call);
    return cudaSuccess;
}

// The node `node` is, of the kind a call works on, or null after saying why not.
CUgraphNode_st *node_of_type(const char *call, cudaGraphNode_t node, cudaGraphNodeType type, const char *kind)
{
    if (!node || node->type != type) {
        fail(cudaErrorInvalidValue, "%s: %p is not a %s node", call, (void *)node, kind);
        return nullptr;
    }
    return node;
}

// The Get calls that copy one member of a node of `type` to the caller's *out.
template <class Field, class Out>
cudaError_t get_node_field(const char *call, cudaGraphNode_t node, cudaGraphNodeType type, const char *kind,
                           Field CUgraphNode_st::*field, Out *out)
{
    CUgraphNode_st *n = node_of_type(call, node, type, kind);
    if (!n || !out) return n ? fail(cudaErrorInvalidValue, "%s: no address", call) : cudaErrorInvalidValue;
    *out = (*n).*field;
    return cudaSuccess;
}

const char *type_name(cudaGraphNodeType type)
{
    switch (type) {
    case cudaGraphNodeTypeKernel: return "kernel";
    case cudaGraphNodeTypeMemcpy: return "memcpy";
    case cudaGraphNodeTypeMemset: return "memset";
    case cudaGraphNodeTypeHost: return "host";
    case cudaGraphNodeTypeGraph: return "child graph";
    case cudaGraphNodeTypeEmpty: return "empty";
    case cudaGraphNodeTypeWaitEvent: return "event wait";
    case cudaGraphNodeTypeEventRecord: return "event record";
    case cudaGraphNodeTypeMemAlloc: return "memory alloc";
    case cudaGraphNodeTypeMemFree: return "memory free";
    case cudaGraphNodeTypeConditional: return "conditional";
    default: return "other";
    }
}

void dot_graph(std::FILE *out, const CUgraph_st &graph, const std::string &prefix)
{
    std::map<const CUgraphNode_st *, std::size_t> index;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) index[graph.nodes[i].get()] = i;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const CUgraphNode_st &node = *graph.nodes[i];
        std::string label = type_name(node.type);
        if (node.type == cudaGraphNodeTypeKernel) {
            const char *name = node.kernel->call.name;
            label += "\\n" + (name ? std::string(name) : kernel_info(node.kernel->call.kernel).name);
        }
        std::fprintf(out, "  \"%s%zu\" [label=\"%s\"];\n", prefix.c_str(), i, label.c_str());
        for (const CUgraphNode_st *dep : node.deps)
            std::fprintf(out, "  \"%s%zu\" -> \"%s%zu\";\n", prefix.c_str(), index[dep], prefix.c_str(), i);
        for (std::size_t b = 0; b < node.bodies.size(); ++b) {
            std::string inner = prefix + std::to_string(i) + "_" + std::to_string(b) + "_";
            dot_graph(out, *node.bodies[b], inner);
            if (!node.bodies[b]->nodes.empty())
                std::fprintf(out, "  \"%s%zu\" -> \"%s0\" [style=dashed];\n", prefix.c_str(), i, inner.c_str());
        }
    }
}

std::unique_ptr<CUgraphNode_st> new_node(cudaGraphNodeType type)
{
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = type;
    return node;
}

// A node of `type` whose body is one member, `field`, set to `value` (a copy, a memset, a host
// function, a pointer to free).
template <class Field>
std::unique_ptr<CUgraphNode_st> new_node(cudaGraphNodeType type, Field CUgraphNode_st::*field, const Field &value)
{
    auto node = new_node(type);
    (*node).*field = value;
    return node;
}

// A memcpy node's body as a 1D copy, cudaMemcpy's four arguments.
void set_copy_1d(CUgraphNode_st &node, void *dst, const void *src, std::size_t count, cudaMemcpyKind kind)
{
    node.copy_1d = true;
    node.dst = dst;
    node.src = src;
    node.count = count;
    node.kind = kind;
}

std::unique_ptr<CUgraphNode_st> memcpy_1d_node(void *dst, const void *src, std::size_t count, cudaMemcpyKind kind)
{
    auto node = new_node(cudaGraphNodeTypeMemcpy);
    set_copy_1d(*node, dst, src, count, kind);
    return node;
}

// Copies `from` into a new graph: nodes, their dependencies, and bodies, with `map` from each
// old node to its copy.
std::unique_ptr<CUgraph_st> clone_graph(const CUgraph_st &from, std::map<const CUgraphNode_st *, CUgraphNode_st *> *map)
{
    auto to = std::make_unique<CUgraph_st>();
    to->conditions = from.conditions;
    to->outer = from.outer;
    for (const auto &node : from.nodes) {
        auto copy = std::make_unique<CUgraphNode_st>();
        copy->type = node->type;
        copy->owner = to.get();
        for (CUgraphNode_st *dep : node->deps) copy->deps.push_back((*map)[dep]);
        copy->kernel = node->kernel;
        copy->copy = node->copy;
        copy->copy_1d = node->copy_1d;
        copy->dst = node->dst;
        copy->src = node->src;
        copy->count = node->count;
        copy->kind = node->kind;
        copy->fill = node->fill;
        copy->host = node->host;
        copy->event = node->event;
        copy->allocation = node->allocation;
        copy->free_pointer = node->free_pointer;
        copy->condition = node->condition;
        copy->condition_type = node->condition_type;
        copy->enabled = node->enabled;
        for (const auto &body : node->bodies) {
            copy->bodies.push_back(clone_graph(*body, map));
            copy->body_handles.push_back(copy->bodies.back().get());
        }
        (*map)[node.get()] = copy.get();
        to->nodes.push_back(std::move(copy));
    }
    return to;
}

// The nodes in an order that respects every dependency (Kahn's algorithm, ties by position).
bool dependency_order(const CUgraph_st &graph, std::vector<CUgraphNode_st *> *order)
{
    std::map<const CUgraphNode_st *, std::size_t> position;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) position[graph.nodes[i].get()] = i;
    std::vector<std::size_t> waiting(graph.nodes.size());
    std::vector<std::vector<std::size_t>> dependents(graph.nodes.size());
    for (std::size_t i = 0; i < graph.nodes.size(); ++i)
        for (CUgraphNode_st *dep : graph.nodes[i]->deps) {
            ++waiting[i];
            dependents[position[dep]].push_back(i);
        }
    std::set<std::size_t> ready;
    for (std::size_t i = 0; i < waiting.size(); ++i)
        if (waiting[i] == 0) ready.insert(i);
    order->clear();
    while (!ready.empty()) {
        std::size_t next = *ready.begin();
        ready.erase(ready.begin());
        order->push_back(graph.nodes[next].get());
        for (std::size_t d : dependents[next])
            if (--waiting[d] == 0) ready.insert(d);
    }
    return order->size() == graph.nodes.size();
}

cudaError_t fill_memory(const cudaMemsetParams &p)
{
    std::size_t element = p.elementSize;
    if (element != 1 && element != 2 && element != 4)
        return fail(cudaErrorInvalidValue, "memset node: elementSize %u; it is 1, 2 or 4 bytes", p.elementSize);
    std::size_t row = p.width * element, pitch = p.height > 1 ? p.pitch : row;
    if (p.width == 0 || p.height == 0) return cudaSuccess;
    if (row > pitch)
        return fail(cudaErrorInvalidValue, "memset node: rows of %zu bytes exceed the pitch of %zu bytes", row, pitch);
    if (element == 1) return cudaMemset2D(p.dst, pitch, (int)p.value, row, p.height);
    Allocation allocation;
    char *start = static_cast<char *>(p.dst);
    std::size_t span = (p.height - 1) * pitch + row;
    if (!find_allocation(start, &allocation) || span > (std::size_t)(allocation.start + allocation.size - start))
        return fail(cudaErrorInvalidValue, "memset node: %zu bytes from %p are not inside one cudaMalloc allocation",
                    span, p.dst);
    for (std::size_t y = 0; y < p.height; ++y)
        for (std::size_t x = 0; x < p.width; ++x) {
            char *at = start + y * pitch + x * element;
            if (element == 2) {
                unsigned short v = (unsigned short)p.value;
                std::memcpy(at, &v, 2);
            } else {
                std::memcpy(at, &p.value, 4);
            }
        }
    return cudaSuccess;
}

cudaError_t run_graph(const CUgraph_st &graph, cudaStream_t stream);

cudaError_t run_node(const CUgraphNode_st &node, cudaStream_t stream)
{
    switch (node.type) {
    case cudaGraphNodeTypeKernel: {
        LaunchConfig config = node.kernel->config;
        config.stream = stream;
        cudaError_t error = launch(config, node.kernel->call, node.kernel->cooperative);
        return error != cudaSuccess ? error : cudaGetLastError();
    }
    case cudaGraphNodeTypeMemcpy:
        return node.copy_1d ? cudaMemcpy(node.dst, node.src, node.count, node.kind) : cudaMemcpy3D(&node.copy);
    case cudaGraphNodeTypeMemset: return fill_memory(node.fill);
    case cudaGraphNodeTypeHost:
        node.host.fn(node.host.userData);
        return cudaSuccess;
    case cudaGraphNodeTypeGraph: return run_graph(*node.bodies[0], stream);
    case cudaGraphNodeTypeEventRecord: return cudaEventRecord(node.event, stream);
    case cudaGraphNodeTypeMemAlloc: {
        GraphAllocation &a = *node.allocation;
        std::lock_guard<std::mutex> lock(graph_mutex);
        if (a.in_use)
            return fail(cudaErrorInvalidValue, "graph launch: the memory of a memory-alloc node (%p, %zu bytes) is still "
                        "allocated from the graph's previous launch; free it (cudaFree, cudaFreeAsync or a free node) "
                        "before launching the graph again", a.memory, a.size);
        remember_allocation(Allocation{static_cast<const char *>(a.memory), a.size, a.device, MemoryKind::Graph});
        a.in_use = true;
        GraphMemoryStats &stats = graph_memory()[a.device];
        stats.used += a.size;
        stats.used_high = std::max(stats.used_high, stats.used);
        return cudaSuccess;
    }
    case cudaGraphNodeTypeMemFree: return free_graph_allocation("memory-free node", node.free_pointer);
    case cudaGraphNodeTypeConditional: {
        std::atomic<unsigned int> &value = conditions[node.condition - 1].value;
        switch (node.condition_type) {
        case cudaGraphCondTypeIf:
            if (value.load() != 0) return run_graph(*node.bodies[0], stream);
            if (node.bodies.size() > 1) return run_graph(*node.bodies[1], stream);
            return cudaSuccess;
        case cudaGraphCondTypeWhile:
            while (value.load() != 0) {
                cudaError_t error = run_graph(*node.bodies[0], stream);
                if (error != cudaSuccess) return error;
            }
            return cudaSuccess;
        case cudaGraphCondTypeSwitch: {
            unsigned int v = value.load();
            return v < node.bodies.size() ? run_graph(*node.bodies[v], stream) : cudaSuccess;
        }
        }
        return cudaSuccess;
    }
    default: return cudaSuccess;  // empty and event-wait nodes: the order itself is the wait
    }
}

void reset_conditions(const CUgraph_st &graph)
{
    for (cudaGraphConditionalHandle handle : graph.conditions) {
        Condition &c = conditions[handle - 1];
        if (c.assign_default) c.value.store(c.default_value);
    }
    for (const auto &node : graph.nodes)
        for (const auto &body : node->bodies) reset_conditions(*body);
}

cudaError_t run_graph(const CUgraph_st &graph, cudaStream_t stream)
{
    std::vector<CUgraphNode_st *> order;
    if (!dependency_order(graph, &order))
        return fail(cudaErrorInvalidValue, "graph launch: the graph's dependencies form a cycle "
                    "(cudaGraphAddDependencies); a graph must be acyclic");
    for (const CUgraphNode_st *node : order) {
        if (!node->enabled) continue;
        cudaError_t error = run_node(*node, stream);
        if (error != cudaSuccess) return error;
    }
    return cudaSuccess;
}

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

cudaError_t bind_kernel(const char *call, const cudaKernelNodeParams *p, std::shared_ptr<const KernelLaunch> *target)
{
    if (!p || !p->func)
        return fail(cudaErrorInvalidValue, "%s: pass kernel node parameters with func set to the kernel", call);
    if (p->extra)
        return fail(cudaErrorNotSupported, "%s: the `extra` form of kernel arguments is not emulated; pass "
                    "kernelParams (an array of pointers to each argument)", call);
    KernelInfo info = kernel_info(p->func);
    if (!info.launcher)
        return fail(cudaErrorInvalidDeviceFunction, "%s: the emulator does not know the parameters of kernel %p; it "
                    "learns them from a non-template __global__ function defined in a .cu file of the build",
                    call, p->func);
    binding_target = target;
    captures_active.fetch_add(1);
    cudaError_t error = info.launcher(p->func, nullptr, LaunchConfig(p->gridDim, p->blockDim, p->sharedMemBytes, 0, "", 0),
                                      p->kernelParams, false);
    captures_active.fetch_sub(1);
    binding_target = nullptr;
    return error;
}

CUgraphNode_st *exec_node(const char *call, cudaGraphExec_t exec, cudaGraphNode_t node)
{
    {
        std::lock_guard<std::mutex> lock(graph_mutex);
        if (!exec || !live_execs().count(exec)) {
            fail(cudaErrorInvalidValue, "%s: %p is not an executable graph from cudaGraphInstantiate", call,
                 (void *)exec);
            return nullptr;
        }
    }
    auto it = exec->from_original.find(node);
    if (it == exec->from_original.end()) {
        fail(cudaErrorInvalidValue, "%s: the node %p is not a node of the graph this executable graph was "
             "instantiated from", call, (void *)node);
        return nullptr;
    }
    return it->second;
}

std::unique_ptr<CUgraphNode_st> alloc_node(const char *call, std::size_t size, cudaError_t *error)
{
    auto node = new_node(cudaGraphNodeTypeMemAlloc);
    auto allocation = std::make_shared<GraphAllocation>();
    allocation->size = size;
    allocation->device = current_device();
    if (size == 0 || posix_memalign(&allocation->memory, 256, size) != 0) {
        allocation->memory = nullptr;
        *error = fail(size ? cudaErrorMemoryAllocation : cudaErrorInvalidValue,
                      "%s: a memory-alloc node of %zu bytes: %s", call, size,
                      size ? "the host is out of memory" : "the size must be at least 1");
        return nullptr;
    }
    {
        std::lock_guard<std::mutex> lock(graph_mutex);
        GraphMemoryStats &stats = graph_memory()[allocation->device];
        stats.reserved += size;
        stats.reserved_high = std::max(stats.reserved_high, stats.reserved);
        graph_allocations()[allocation->memory] = allocation.get();
    }
    node->allocation = allocation;
    *error = cudaSuccess;
    return node;
}

}  // namespace

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

cudaError_t free_graph_allocation(const char *call, void *pointer)
{
    std::lock_guard<std::mutex> lock(graph_mutex);
    Allocation forgotten;
    if (!forget_allocation(pointer, MemoryKind::Graph, &forgotten))
        return fail(cudaErrorInvalidValue, "%s(%p): not memory a graph's memory-alloc node holds allocated (freed "
                    "already, or never allocated by a launch of the graph)", call, pointer);
    GraphMemoryStats &stats = graph_memory()[forgotten.device];
    stats.used -= forgotten.size;
    // The memory stays reserved for its node, free for the graph's next launch.
    auto record = graph_allocations().find(pointer);
    if (record != graph_allocations().end()) record->second->in_use = false;
    return cudaSuccess;
}

void set_graph_condition(cudaGraphConditionalHandle handle, unsigned int value)
{
    if (handle == 0 || handle > conditions_made.load() || handle > kMaxConditions)
        fatal("cudaGraphSetConditional: %llu is not a handle from cudaGraphConditionalHandleCreate", handle);
    conditions[handle - 1].value.store(value);
}

}  // namespace cudaemu

extern "C" {

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int)
{
    if (!pGraph) return fail(cudaErrorInvalidValue, "cudaGraphCreate(NULL, ...): pass the address of a cudaGraph_t");
    *pGraph = new CUgraph_st;
    std::lock_guard<std::mutex> lock(graph_mutex);
    live_graphs().insert(*pGraph);
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    {
        std::lock_guard<std::mutex> lock(graph_mutex);
        if (!graph_is_live(graph) || graph->outer)
            return fail(cudaErrorInvalidValue, "cudaGraphDestroy(%p): not a graph of yours, or destroyed already (a "
                        "conditional node's body is destroyed with its graph)", (void *)graph);
        forget_graph(graph);
    }
    delete graph;
    return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph)
{
    if (!pGraphClone) return fail(cudaErrorInvalidValue, "cudaGraphClone: pass the address of a cudaGraph_t");
    cudaError_t error = check_graph("cudaGraphClone", originalGraph);
    if (error != cudaSuccess) return error;
    std::map<const CUgraphNode_st *, CUgraphNode_st *> map;
    CUgraph_st *copy = clone_graph(*originalGraph, &map).release();
    copy->outer = nullptr;
    std::lock_guard<std::mutex> lock(graph_mutex);
    live_graphs().insert(copy);
    *pGraphClone = copy;
    return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
    if (!numNodes) return fail(cudaErrorInvalidValue, "cudaGraphGetNodes: pass the address of a size_t count");
    cudaError_t error = check_graph("cudaGraphGetNodes", graph);
    if (error != cudaSuccess) return error;
    if (nodes)
        for (std::size_t i = 0; i < *numNodes && i < graph->nodes.size(); ++i) nodes[i] = graph->nodes[i].get();
    *numNodes = graph->nodes.size();
    return cudaSuccess;
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes, size_t *pNumRootNodes)
{
    if (!pNumRootNodes) return fail(cudaErrorInvalidValue, "cudaGraphGetRootNodes: pass the address of a count");
    cudaError_t error = check_graph("cudaGraphGetRootNodes", graph);
    if (error != cudaSuccess) return error;
    std::size_t roots = 0;
    for (const auto &node : graph->nodes)
        if (node->deps.empty()) {
            if (pRootNodes && roots < *pNumRootNodes) pRootNodes[roots] = node.get();
            ++roots;
        }
    *pNumRootNodes = roots;
    return cudaSuccess;
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                     const struct cudaGraphEdgeData *edgeData, size_t numDependencies)
{
    cudaError_t error = check_edges("cudaGraphAddDependencies", graph, edgeData, numDependencies);
    if (error != cudaSuccess) return error;
    for (std::size_t i = 0; i < numDependencies; ++i) {
        if (!from[i] || !to[i] || from[i]->owner != graph || to[i]->owner != graph)
            return fail(cudaErrorInvalidValue, "cudaGraphAddDependencies: edge %zu joins a node that is not in this "
                        "graph", i);
        to[i]->deps.push_back(from[i]);
    }
    return cudaSuccess;
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                        const struct cudaGraphEdgeData *edgeData, size_t numDependencies)
{
    cudaError_t error = check_edges("cudaGraphRemoveDependencies", graph, edgeData, numDependencies);
    if (error != cudaSuccess) return error;
    for (std::size_t i = 0; i < numDependencies; ++i) {
        auto found = to[i] && to[i]->owner == graph ? std::find(to[i]->deps.begin(), to[i]->deps.end(), from[i])
                                                    : std::vector<CUgraphNode_st *>::iterator();
        if (!to[i] || to[i]->owner != graph || found == to[i]->deps.end())
            return fail(cudaErrorInvalidValue, "cudaGraphRemoveDependencies: edge %zu is not an edge of this graph", i);
        to[i]->deps.erase(found);
    }
    return cudaSuccess;
}

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                              struct cudaGraphEdgeData *edgeData, size_t *numEdges)
{
    if (!numEdges) return fail(cudaErrorInvalidValue, "cudaGraphGetEdges: pass the address of a count");
    cudaError_t error = check_graph("cudaGraphGetEdges", graph);
    if (error != cudaSuccess) return error;
    std::size_t edges = 0;
    for (const auto &node : graph->nodes)
        for (CUgraphNode_st *dep : node->deps) {
            if (from && to && edges < *numEdges) {
                from[edges] = dep;
                to[edges] = node.get();
                if (edgeData) edgeData[edges] = cudaGraphEdgeData{};
            }
            ++edges;
        }
    if (from && to)
        for (std::size_t i = edges; i < *numEdges; ++i) from[i] = to[i] = nullptr;
    *numEdges = from && to ? std::min(edges, *numEdges) : edges;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
                                         struct cudaGraphEdgeData *edgeData, size_t *pNumDependencies)
{
    if (!node || !pNumDependencies)
        return fail(cudaErrorInvalidValue, "cudaGraphNodeGetDependencies: pass a node and a count's address");
    if (pDependencies)
        for (std::size_t i = 0; i < *pNumDependencies; ++i) {
            pDependencies[i] = i < node->deps.size() ? node->deps[i] : nullptr;
            if (edgeData) edgeData[i] = cudaGraphEdgeData{};
        }
    *pNumDependencies = pDependencies ? std::min(*pNumDependencies, node->deps.size()) : node->deps.size();
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
                                           struct cudaGraphEdgeData *edgeData, size_t *pNumDependentNodes)
{
    if (!node || !pNumDependentNodes)
        return fail(cudaErrorInvalidValue, "cudaGraphNodeGetDependentNodes: pass a node and a count's address");
    std::vector<cudaGraphNode_t> dependents;
    for (const auto &other : node->owner->nodes)
        if (std::find(other->deps.begin(), other->deps.end(), node) != other->deps.end()) dependents.push_back(other.get());
    if (pDependentNodes)
        for (std::size_t i = 0; i < *pNumDependentNodes; ++i) {
            pDependentNodes[i] = i < dependents.size() ? dependents[i] : nullptr;
            if (edgeData) edgeData[i] = cudaGraphEdgeData{};
        }
    *pNumDependentNodes = pDependentNodes ? std::min(*pNumDependentNodes, dependents.size()) : dependents.size();
    return cudaSuccess;
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node)
{
    if (!node) return fail(cudaErrorInvalidValue, "cudaGraphDestroyNode(NULL)");
    CUgraph_st *graph = node->owner;
    for (const auto &other : graph->nodes)
        other->deps.erase(std::remove(other->deps.begin(), other->deps.end(), node), other->deps.end());
    std::unique_ptr<CUgraphNode_st> doomed;
    {
        std::lock_guard<std::mutex> lock(graph_mutex);
        for (auto it = graph->nodes.begin(); it != graph->nodes.end(); ++it)
            if (it->get() == node) {
                doomed = std::move(*it);
                graph->nodes.erase(it);
                break;
            }
        if (doomed) forget_graph_bodies(*doomed);
    }
    return doomed ? cudaSuccess : fail(cudaErrorInvalidValue, "cudaGraphDestroyNode: the node is not in its graph");
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams *pNodeParams)
{
    CUgraphNode_st *n = node_of_type("cudaGraphKernelNodeGetParams", node, cudaGraphNodeTypeKernel, "kernel");
    if (!n) return cudaErrorInvalidValue;
    if (!pNodeParams) return fail(cudaErrorInvalidValue, "cudaGraphKernelNodeGetParams: pass the parameters' address");
    // The node keeps its arguments as the kernel's typed values, not as CUDA's array of
    // pointers: the configuration comes back, the arguments cannot.
    *pNodeParams = cudaKernelNodeParams{const_cast<void *>(n->kernel->call.kernel), n->kernel->config.grid,
                                        n->kernel->config.block, (unsigned int)n->kernel->config.dynamic_shared_bytes,
                                        nullptr, nullptr};
    return fail(cudaErrorNotSupported, "cudaGraphKernelNodeGetParams: the emulator returns the kernel and its "
                "configuration but not kernelParams (it keeps the arguments as typed values); set the whole "
                "parameters again with cudaGraphKernelNodeSetParams from your own arguments");
}

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams *pNodeParams)
{
    return get_node_field("cudaGraphHostNodeGetParams", node, cudaGraphNodeTypeHost, "host", &CUgraphNode_st::host,
                          pNodeParams);
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const struct cudaHostNodeParams *pNodeParams)
{
    CUgraphNode_st *n = node_of_type("cudaGraphHostNodeSetParams", node, cudaGraphNodeTypeHost, "host");
    if (!n || !pNodeParams || !pNodeParams->fn)
        return n ? fail(cudaErrorInvalidValue, "cudaGraphHostNodeSetParams: pass parameters with fn set") : cudaErrorInvalidValue;
    n->host = *pNodeParams;
    return cudaSuccess;
}

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams *pNodeParams)
{
    return get_node_field("cudaGraphMemsetNodeGetParams", node, cudaGraphNodeTypeMemset, "memset",
                          &CUgraphNode_st::fill, pNodeParams);
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const struct cudaMemsetParams *pNodeParams)
{
    CUgraphNode_st *n = node_of_type("cudaGraphMemsetNodeSetParams", node, cudaGraphNodeTypeMemset, "memset");
    if (!n || !pNodeParams) return n ? fail(cudaErrorInvalidValue, "cudaGraphMemsetNodeSetParams: no parameters") : cudaErrorInvalidValue;
    n->fill = *pNodeParams;
    return cudaSuccess;
}

cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, struct cudaMemcpy3DParms *pNodeParams)
{
    CUgraphNode_st *n = node_of_type("cudaGraphMemcpyNodeGetParams", node, cudaGraphNodeTypeMemcpy, "memcpy");
    if (!n || !pNodeParams) return n ? fail(cudaErrorInvalidValue, "cudaGraphMemcpyNodeGetParams: no address") : cudaErrorInvalidValue;
    if (n->copy_1d) {
        *pNodeParams = cudaMemcpy3DParms{};
        pNodeParams->srcPtr = cudaPitchedPtr{const_cast<void *>(n->src), n->count, n->count, 1};
        pNodeParams->dstPtr = cudaPitchedPtr{n->dst, n->count, n->count, 1};
        pNodeParams->extent = cudaExtent{n->count, 1, 1};
        pNodeParams->kind = n->kind;
    } else {
        *pNodeParams = n->copy;
    }
    return cudaSuccess;
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const struct cudaMemcpy3DParms *pNodeParams)
{
    CUgraphNode_st *n = node_of_type("cudaGraphMemcpyNodeSetParams", node, cudaGraphNodeTypeMemcpy, "memcpy");
    if (!n || !pNodeParams) return n ? fail(cudaErrorInvalidValue, "cudaGraphMemcpyNodeSetParams: no parameters") : cudaErrorInvalidValue;
    n->copy_1d = false;
    n->copy = *pNodeParams;
    return cudaSuccess;
}

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph)
{
    CUgraphNode_st *n = node_of_type("cudaGraphChildGraphNodeGetGraph", node, cudaGraphNodeTypeGraph, "child graph");
    if (!n || !pGraph) return n ? fail(cudaErrorInvalidValue, "cudaGraphChildGraphNodeGetGraph: no address") : cudaErrorInvalidValue;
    *pGraph = n->body_handles[0];
    return cudaSuccess;
}

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out)
{
    return get_node_field("cudaGraphEventRecordNodeGetEvent", node, cudaGraphNodeTypeEventRecord, "event record",
                          &CUgraphNode_st::event, event_out);
}

cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event)
{
    CUgraphNode_st *n = node_of_type("cudaGraphEventRecordNodeSetEvent", node, cudaGraphNodeTypeEventRecord, "event record");
    if (!n) return cudaErrorInvalidValue;
    n->event = event;
    return cudaSuccess;
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams *params_out)
{
    CUgraphNode_st *n = node_of_type("cudaGraphMemAllocNodeGetParams", node, cudaGraphNodeTypeMemAlloc, "memory alloc");
    if (!n || !params_out) return n ? fail(cudaErrorInvalidValue, "cudaGraphMemAllocNodeGetParams: no address") : cudaErrorInvalidValue;
    *params_out = cudaMemAllocNodeParams{};
    params_out->poolProps.allocType = cudaMemAllocationTypePinned;
    params_out->poolProps.location = cudaMemLocation{cudaMemLocationTypeDevice, n->allocation->device};
    params_out->bytesize = n->allocation->size;
    params_out->dptr = n->allocation->memory;
    return cudaSuccess;
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out)
{
    return get_node_field("cudaGraphMemFreeNodeGetParams", node, cudaGraphNodeTypeMemFree, "memory free",
                          &CUgraphNode_st::free_pointer, static_cast<void **>(dptr_out));
}

cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int)
{
    cudaError_t error = check_graph("cudaGraphDebugDotPrint", graph);
    if (error != cudaSuccess) return error;
    std::FILE *out = path ? std::fopen(path, "w") : nullptr;
    if (!out) return fail(cudaErrorOperatingSystem, "cudaGraphDebugDotPrint: cannot write %s", path ? path : "(NULL)");
    std::fprintf(out, "digraph cuda_graph {\n");
    dot_graph(out, *graph, "n");
    std::fprintf(out, "}\n");
    std::fclose(out);
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
    if (!node || !pType) return fail(cudaErrorInvalidValue, "cudaGraphNodeGetType: pass a node and a type's address");
    *pType = node->type;
    return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaKernelNodeParams *pNodeParams)
{
    auto node = new_node(cudaGraphNodeTypeKernel);
    cudaError_t error = bind_kernel("cudaGraphAddKernelNode", pNodeParams, &node->kernel);
    if (error != cudaSuccess) return error;
    return add_node("cudaGraphAddKernelNode", pGraphNode, graph, pDependencies, numDependencies, std::move(node));
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams)
{
    if (!node || node->type != cudaGraphNodeTypeKernel)
        return fail(cudaErrorInvalidValue, "cudaGraphKernelNodeSetParams: %p is not a kernel node", (void *)node);
    return bind_kernel("cudaGraphKernelNodeSetParams", pNodeParams, &node->kernel);
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                                   size_t numDependencies, const struct cudaMemcpy3DParms *pCopyParams)
{
    if (!pCopyParams) return fail(cudaErrorInvalidValue, "cudaGraphAddMemcpyNode: pass the copy's parameters");
    return add_node("cudaGraphAddMemcpyNode", pGraphNode, graph, pDependencies, numDependencies,
                    new_node(cudaGraphNodeTypeMemcpy, &CUgraphNode_st::copy, *pCopyParams));
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dst,
                                     const void *src, size_t count, enum cudaMemcpyKind kind)
{
    return add_node("cudaGraphAddMemcpyNode1D", pGraphNode, graph, pDependencies, numDependencies,
                    memcpy_1d_node(dst, src, count, kind));
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                                   size_t numDependencies, const struct cudaMemsetParams *pMemsetParams)
{
    if (!pMemsetParams) return fail(cudaErrorInvalidValue, "cudaGraphAddMemsetNode: pass the memset's parameters");
    if (pMemsetParams->elementSize != 1 && pMemsetParams->elementSize != 2 && pMemsetParams->elementSize != 4)
        return fail(cudaErrorInvalidValue, "cudaGraphAddMemsetNode: elementSize %u; it is 1, 2 or 4 bytes",
                    pMemsetParams->elementSize);
    return add_node("cudaGraphAddMemsetNode", pGraphNode, graph, pDependencies, numDependencies,
                    new_node(cudaGraphNodeTypeMemset, &CUgraphNode_st::fill, *pMemsetParams));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                                 size_t numDependencies, const struct cudaHostNodeParams *pNodeParams)
{
    if (!pNodeParams || !pNodeParams->fn)
        return fail(cudaErrorInvalidValue, "cudaGraphAddHostNode: pass parameters with the host function in fn");
    return add_node("cudaGraphAddHostNode", pGraphNode, graph, pDependencies, numDependencies,
                    new_node(cudaGraphNodeTypeHost, &CUgraphNode_st::host, *pNodeParams));
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                       cudaGraph_t childGraph)
{
    cudaError_t error = check_graph("cudaGraphAddChildGraphNode", childGraph);
    if (error != cudaSuccess) return error;
    auto node = new_node(cudaGraphNodeTypeGraph);
    std::map<const CUgraphNode_st *, CUgraphNode_st *> map;
    node->bodies.push_back(clone_graph(*childGraph, &map));  // CUDA copies the child graph
    node->bodies.back()->outer = graph;
    node->body_handles.push_back(node->bodies.back().get());
    return add_node("cudaGraphAddChildGraphNode", pGraphNode, graph, pDependencies, numDependencies, std::move(node));
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                                  size_t numDependencies)
{
    return add_node("cudaGraphAddEmptyNode", pGraphNode, graph, pDependencies, numDependencies,
                    new_node(cudaGraphNodeTypeEmpty));
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                        cudaEvent_t event)
{
    auto node = new_node(cudaGraphNodeTypeEventRecord);
    node->event = event;
    return add_node("cudaGraphAddEventRecordNode", pGraphNode, graph, pDependencies, numDependencies, std::move(node));
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                      const cudaGraphNode_t *pDependencies, size_t numDependencies, cudaEvent_t event)
{
    auto node = new_node(cudaGraphNodeTypeWaitEvent);
    node->event = event;
    return add_node("cudaGraphAddEventWaitNode", pGraphNode, graph, pDependencies, numDependencies, std::move(node));
}

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                     struct cudaMemAllocNodeParams *nodeParams)
{
    if (!nodeParams) return fail(cudaErrorInvalidValue, "cudaGraphAddMemAllocNode: pass the node's parameters");
    cudaError_t error = check_graph("cudaGraphAddMemAllocNode", graph);
    if (error != cudaSuccess) return error;
    auto node = alloc_node("cudaGraphAddMemAllocNode", nodeParams->bytesize, &error);
    if (!node) return error;
    nodeParams->dptr = node->allocation->memory;
    return add_node("cudaGraphAddMemAllocNode", pGraphNode, graph, pDependencies, numDependencies, std::move(node));
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                    const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dptr)
{
    return add_node("cudaGraphAddMemFreeNode", pGraphNode, graph, pDependencies, numDependencies,
                    new_node(cudaGraphNodeTypeMemFree, &CUgraphNode_st::free_pointer, dptr));
}

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out, cudaGraph_t graph,
                                             unsigned int defaultLaunchValue, unsigned int flags)
{
    if (!pHandle_out) return fail(cudaErrorInvalidValue, "cudaGraphConditionalHandleCreate: pass a handle's address");
    cudaError_t error = check_graph("cudaGraphConditionalHandleCreate", graph);
    if (error != cudaSuccess) return error;
    std::size_t slot = conditions_made.fetch_add(1);
    if (slot >= kMaxConditions)
        return fail(cudaErrorMemoryAllocation, "cudaGraphConditionalHandleCreate: this program has made %zu handles, "
                    "all the emulator keeps", kMaxConditions);
    Condition &c = conditions[slot];
    c.default_value = defaultLaunchValue;
    c.assign_default = flags & cudaGraphCondAssignDefault;
    c.value.store(defaultLaunchValue);
    c.graph = graph;
    std::lock_guard<std::mutex> lock(graph_mutex);
    graph->conditions.push_back(slot + 1);
    *pHandle_out = slot + 1;
    return cudaSuccess;
}

cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                             const struct cudaGraphEdgeData *dependencyData, size_t numDependencies,
                             struct cudaGraphNodeParams *nodeParams)
{
    const char *call = "cudaGraphAddNode";
    if (!nodeParams) return fail(cudaErrorInvalidValue, "%s: pass the node's parameters", call);
    if (dependencyData)
        for (std::size_t i = 0; i < numDependencies; ++i)
            if (dependencyData[i].from_port || dependencyData[i].to_port || dependencyData[i].type)
                return fail(cudaErrorNotSupported, "%s: edge data other than the default (ports and programmatic "
                            "edges) is not emulated", call);
    switch (nodeParams->type) {
    case cudaGraphNodeTypeKernel:
        return cudaGraphAddKernelNode(pGraphNode, graph, pDependencies, numDependencies, &nodeParams->kernel);
    case cudaGraphNodeTypeMemcpy:
        return cudaGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies,
                                      &nodeParams->memcpy.copyParams);
    case cudaGraphNodeTypeMemset:
        return cudaGraphAddMemsetNode(pGraphNode, graph, pDependencies, numDependencies, &nodeParams->memset);
    case cudaGraphNodeTypeHost:
        return cudaGraphAddHostNode(pGraphNode, graph, pDependencies, numDependencies, &nodeParams->host);
    case cudaGraphNodeTypeGraph:
        return cudaGraphAddChildGraphNode(pGraphNode, graph, pDependencies, numDependencies, nodeParams->graph.graph);
    case cudaGraphNodeTypeEmpty: return cudaGraphAddEmptyNode(pGraphNode, graph, pDependencies, numDependencies);
    case cudaGraphNodeTypeEventRecord:
        return cudaGraphAddEventRecordNode(pGraphNode, graph, pDependencies, numDependencies,
                                           nodeParams->eventRecord.event);
    case cudaGraphNodeTypeWaitEvent:
        return cudaGraphAddEventWaitNode(pGraphNode, graph, pDependencies, numDependencies, nodeParams->eventWait.event);
    case cudaGraphNodeTypeMemAlloc:
        return cudaGraphAddMemAllocNode(pGraphNode, graph, pDependencies, numDependencies, &nodeParams->alloc);
    case cudaGraphNodeTypeMemFree:
        return cudaGraphAddMemFreeNode(pGraphNode, graph, pDependencies, numDependencies, nodeParams->free.dptr);
    case cudaGraphNodeTypeConditional: {
        cudaConditionalNodeParams &p = nodeParams->conditional;
        if (p.handle == 0 || p.handle > conditions_made.load() || p.handle > kMaxConditions)
            return fail(cudaErrorInvalidValue, "%s: %llu is not a handle from cudaGraphConditionalHandleCreate", call,
                        p.handle);
        unsigned int most = p.type == cudaGraphCondTypeSwitch ? 1u << 16 : p.type == cudaGraphCondTypeIf ? 2 : 1;
        if ((int)p.type < 0 || (int)p.type > 2 || p.size == 0 || p.size > most)
            return fail(cudaErrorInvalidValue, "%s: a conditional node of type %d with %u bodies (if: 1 or 2, while: "
                        "1, switch: 1 or more)", call, (int)p.type, p.size);
        auto node = new_node(cudaGraphNodeTypeConditional);
        node->condition = p.handle;
        node->condition_type = p.type;
        for (unsigned int i = 0; i < p.size; ++i) {
            node->bodies.push_back(std::make_unique<CUgraph_st>());
            node->bodies.back()->outer = graph;
            node->body_handles.push_back(node->bodies.back().get());
        }
        {
            std::lock_guard<std::mutex> lock(graph_mutex);
            for (cudaGraph_t body : node->body_handles) live_graphs().insert(body);
        }
        p.phGraph_out = node->body_handles.data();
        return add_node(call, pGraphNode, graph, pDependencies, numDependencies, std::move(node));
    }
    default:
        return fail(cudaErrorNotSupported, "%s: nodes of type %d (external semaphores and others) are not emulated",
                    call, (int)nodeParams->type);
    }
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long)
{
    if (!pGraphExec) return fail(cudaErrorInvalidValue, "cudaGraphInstantiate: pass the address of a cudaGraphExec_t");
    cudaError_t error = check_graph("cudaGraphInstantiate", graph);
    if (error != cudaSuccess) return error;
    auto exec = std::make_unique<CUgraphExec_st>();
    exec->graph = clone_graph(*graph, &exec->from_original);
    std::vector<CUgraphNode_st *> order;
    if (!dependency_order(*exec->graph, &order))
        return fail(cudaErrorInvalidValue, "cudaGraphInstantiate: the graph's dependencies form a cycle; a graph must "
                    "be acyclic");
    *pGraphExec = exec.release();
    std::lock_guard<std::mutex> lock(graph_mutex);
    live_execs().insert(*pGraphExec);
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags)
{
    return cudaGraphInstantiate(pGraphExec, graph, flags);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    {
        std::lock_guard<std::mutex> lock(graph_mutex);
        if (!graphExec || !live_execs().count(graphExec))
            return fail(cudaErrorInvalidValue, "cudaGraphLaunch: %p is not an executable graph from "
                        "cudaGraphInstantiate, or was destroyed", (void *)graphExec);
    }
    cudaError_t error = check_stream(stream, "cudaGraphLaunch");
    if (error != cudaSuccess) return error;
    reset_conditions(*graphExec->graph);
    return run_graph(*graphExec->graph, stream);
}

cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    std::lock_guard<std::mutex> lock(graph_mutex);
    if (!graphExec || !live_execs().count(graphExec))
        return fail(cudaErrorInvalidValue, "cudaGraphUpload: %p is not an executable graph", (void *)graphExec);
    (void)stream;
    return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    {
        std::lock_guard<std::mutex> lock(graph_mutex);
        if (!graphExec || !live_execs().erase(graphExec))
            return fail(cudaErrorInvalidValue, "cudaGraphExecDestroy(%p): not an executable graph, or destroyed "
                        "already", (void *)graphExec);
    }
    delete graphExec;
    return cudaSuccess;
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams *pNodeParams)
{
    CUgraphNode_st *target = exec_node("cudaGraphExecKernelNodeSetParams", hGraphExec, node);
    if (!target) return cudaErrorInvalidValue;
    if (target->type != cudaGraphNodeTypeKernel)
        return fail(cudaErrorInvalidValue, "cudaGraphExecKernelNodeSetParams: the node is not a kernel node");
    return bind_kernel("cudaGraphExecKernelNodeSetParams", pNodeParams, &target->kernel);
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                           const struct cudaHostNodeParams *pNodeParams)
{
    CUgraphNode_st *target = exec_node("cudaGraphExecHostNodeSetParams", hGraphExec, node);
    return target ? cudaGraphHostNodeSetParams(target, pNodeParams) : cudaErrorInvalidValue;
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemsetParams *pNodeParams)
{
    CUgraphNode_st *target = exec_node("cudaGraphExecMemsetNodeSetParams", hGraphExec, node);
    return target ? cudaGraphMemsetNodeSetParams(target, pNodeParams) : cudaErrorInvalidValue;
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemcpy3DParms *pNodeParams)
{
    CUgraphNode_st *target = exec_node("cudaGraphExecMemcpyNodeSetParams", hGraphExec, node);
    return target ? cudaGraphMemcpyNodeSetParams(target, pNodeParams) : cudaErrorInvalidValue;
}

cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, unsigned int isEnabled)
{
    CUgraphNode_st *target = exec_node("cudaGraphNodeSetEnabled", hGraphExec, hNode);
    if (!target) return cudaErrorInvalidValue;
    target->enabled = isEnabled != 0;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, unsigned int *isEnabled)
{
    CUgraphNode_st *target = exec_node("cudaGraphNodeGetEnabled", hGraphExec, hNode);
    if (!target || !isEnabled) return target ? fail(cudaErrorInvalidValue, "cudaGraphNodeGetEnabled: no address") : cudaErrorInvalidValue;
    *isEnabled = target->enabled;
    return cudaSuccess;
}

cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags)
{
    std::lock_guard<std::mutex> lock(graph_mutex);
    if (!graphExec || !live_execs().count(graphExec) || !flags)
        return fail(cudaErrorInvalidValue, "cudaGraphExecGetFlags: pass an executable graph and a flags' address");
    *flags = 0;
    return cudaSuccess;
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void *dst,
                                               const void *src, size_t count, enum cudaMemcpyKind kind)
{
    CUgraphNode_st *target = exec_node("cudaGraphExecMemcpyNodeSetParams1D", hGraphExec, node);
    if (!target) return cudaErrorInvalidValue;
    if (target->type != cudaGraphNodeTypeMemcpy)
        return fail(cudaErrorInvalidValue, "cudaGraphExecMemcpyNodeSetParams1D: the node is not a memcpy node");
    set_copy_1d(*target, dst, src, count, kind);
    return cudaSuccess;
}

// The executable graph takes the parameters of `hGraph`'s nodes, which must match its own one
// for one (same count, types and dependencies, in the same order).
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                struct cudaGraphExecUpdateResultInfo *resultInfo)
{
    cudaGraphExecUpdateResultInfo info = {cudaGraphExecUpdateSuccess, nullptr, nullptr};
    {
        std::lock_guard<std::mutex> lock(graph_mutex);
        if (!hGraphExec || !live_execs().count(hGraphExec) || !graph_is_live(hGraph))
            return fail(cudaErrorInvalidValue, "cudaGraphExecUpdate: pass an executable graph and a graph");
    }
    CUgraph_st &mine = *hGraphExec->graph;
    std::map<const CUgraphNode_st *, std::size_t> index_new, index_mine;
    for (std::size_t i = 0; i < hGraph->nodes.size(); ++i) index_new[hGraph->nodes[i].get()] = i;
    for (std::size_t i = 0; i < mine.nodes.size(); ++i) index_mine[mine.nodes[i].get()] = i;
    if (hGraph->nodes.size() != mine.nodes.size()) info.result = cudaGraphExecUpdateErrorTopologyChanged;
    for (std::size_t i = 0; info.result == cudaGraphExecUpdateSuccess && i < mine.nodes.size(); ++i) {
        const CUgraphNode_st &now = *hGraph->nodes[i];
        CUgraphNode_st &was = *mine.nodes[i];
        if (now.type != was.type) {
            info.result = cudaGraphExecUpdateErrorNodeTypeChanged;
        } else if (now.deps.size() != was.deps.size()) {
            info.result = cudaGraphExecUpdateErrorTopologyChanged;
        } else {
            for (std::size_t d = 0; d < now.deps.size(); ++d)
                if (index_new[now.deps[d]] != index_mine[was.deps[d]]) info.result = cudaGraphExecUpdateErrorTopologyChanged;
            if (now.type == cudaGraphNodeTypeGraph || now.type == cudaGraphNodeTypeConditional ||
                now.type == cudaGraphNodeTypeMemAlloc || now.type == cudaGraphNodeTypeMemFree)
                if (now.bodies.size() != was.bodies.size() || now.allocation != was.allocation ||
                    now.free_pointer != was.free_pointer || now.condition != was.condition)
                    info.result = cudaGraphExecUpdateErrorNotSupported;
        }
        if (info.result != cudaGraphExecUpdateSuccess) info.errorNode = hGraph->nodes[i].get();
    }
    if (info.result == cudaGraphExecUpdateSuccess)
        for (std::size_t i = 0; i < mine.nodes.size(); ++i) {
            const CUgraphNode_st &now = *hGraph->nodes[i];
            CUgraphNode_st &was = *mine.nodes[i];
            was.kernel = now.kernel;
            was.copy = now.copy;
            was.copy_1d = now.copy_1d;
            was.dst = now.dst;
            was.src = now.src;
            was.count = now.count;
            was.kind = now.kind;
            was.fill = now.fill;
            was.host = now.host;
            was.event = now.event;
            hGraphExec->from_original[&now] = &was;
        }
    if (resultInfo) *resultInfo = info;
    if (info.result != cudaGraphExecUpdateSuccess) return record_error(cudaErrorGraphExecUpdateFailure);
    return cudaSuccess;
}

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

// ---- Graph memory.
cudaError_t cudaDeviceGraphMemTrim(int device)
{
    if (!is_device(device)) return fail(cudaErrorInvalidDevice, "cudaDeviceGraphMemTrim: no device %d", device);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value)
{
    if (!is_device(device) || !value)
        return fail(cudaErrorInvalidValue, "cudaDeviceGetGraphMemAttribute: device %d, or no value's address", device);
    std::lock_guard<std::mutex> lock(graph_mutex);
    const GraphMemoryStats &stats = graph_memory()[device];
    std::size_t figure;
    switch (attr) {
    case cudaGraphMemAttrUsedMemCurrent: figure = stats.used; break;
    case cudaGraphMemAttrUsedMemHigh: figure = stats.used_high; break;
    case cudaGraphMemAttrReservedMemCurrent: figure = stats.reserved; break;
    case cudaGraphMemAttrReservedMemHigh: figure = stats.reserved_high; break;
    default:
        return fail(cudaErrorInvalidValue, "cudaDeviceGetGraphMemAttribute: %d is not a cudaGraphMemAttributeType",
                    (int)attr);
    }
    *static_cast<unsigned long long *>(value) = figure;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value)
{
    if (!is_device(device) || !value || *static_cast<unsigned long long *>(value) != 0 ||
        (attr != cudaGraphMemAttrUsedMemHigh && attr != cudaGraphMemAttrReservedMemHigh))
        return fail(cudaErrorInvalidValue, "cudaDeviceSetGraphMemAttribute: only the high watermarks can be set, and "
                    "only to 0 (which resets them)");
    std::lock_guard<std::mutex> lock(graph_mutex);
    GraphMemoryStats &stats = graph_memory()[device];
    if (attr == cudaGraphMemAttrUsedMemHigh) stats.used_high = stats.used;
    else stats.reserved_high = stats.reserved;
    return cudaSuccess;
}

}  // extern "C"
