// Running a graph: cudaGraphLaunch runs the executable copy's nodes in a dependency order
// (Kahn's, ties in the order they were added) on the calling host thread, each node as the call
// it stands for would run (launch, cudaMemcpy3D, memset, host function, child graph, ...),
// before it returns, as every launch under emulation does. A conditional node reads its
// handle's value, set by cudaGraphSetConditional in a kernel. Then the entry points that make,
// launch and change executable graphs (cudaGraphInstantiate, cudaGraphLaunch, cudaGraphExec*).
#include "api/graph_model.h"

#include "api/devices.h"
#include "reports/diagnostics.h"

namespace cudaemu {
namespace graph {

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

}  // namespace graph

using namespace graph;

void set_graph_condition(cudaGraphConditionalHandle handle, unsigned int value)
{
    if (handle == 0 || handle > conditions_made.load() || handle > kMaxConditions)
        fatal("cudaGraphSetConditional: %llu is not a handle from cudaGraphConditionalHandleCreate", handle);
    conditions[handle - 1].value.store(value);
}

}  // namespace cudaemu

using namespace cudaemu;
using namespace cudaemu::graph;

extern "C" {

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

}  // extern "C"
