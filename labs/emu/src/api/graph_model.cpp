// The graph state and the helpers that build, check and copy graphs (graph_model.h).
// Memory-alloc nodes reserve their memory when added (so the address can be baked into the
// nodes that follow, as CUDA fixes it at creation) and make it device memory each time the
// node runs; a memory-free node, cudaFree or cudaFreeAsync returns it to the graph.
#include "api/graph_model.h"

#include "api/devices.h"
#include "reports/diagnostics.h"

namespace cudaemu {
namespace graph {

std::mutex graph_mutex;
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

Condition conditions[kMaxConditions];
std::atomic<std::size_t> conditions_made{0};

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

std::map<cudaStream_t, Capture> &captures()
{
    static auto *by_stream = new std::map<cudaStream_t, Capture>;
    return *by_stream;
}
std::map<cudaEvent_t, CapturedEvent> &captured_events()
{
    static auto *by_event = new std::map<cudaEvent_t, CapturedEvent>;
    return *by_event;
}
std::atomic<unsigned long long> next_capture_id{1};
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

}  // namespace graph

using namespace graph;

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

}  // namespace cudaemu
