// The cudaGraph* entry points that make, change and inspect graphs and their nodes, and graph
// memory's attributes. The model is graph_model.h; running a graph, graph_execution.cpp; stream
// capture, graph_capture.cpp.
#include "api/graph_model.h"

#include "api/devices.h"
#include "reports/diagnostics.h"

using namespace cudaemu;
using namespace cudaemu::graph;

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
