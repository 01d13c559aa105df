// The model of CUDA graphs that src/api/graph_*.cpp and graphs.cpp share: a graph is a list of
// nodes, each with the nodes it depends on (always earlier ones, or ones
// cudaGraphAddDependencies names); an executable graph is a copy. graph_model.cpp holds the
// graph state and the helpers that build, check and copy graphs, graph_execution.cpp runs them,
// graph_capture.cpp turns a captured stream's work into nodes, graphs.cpp holds the entry
// points that make, change and inspect graphs.
#pragma once

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
#include "api/graph_capture.h"
#include "api/kernel_registry.h"
#include "api/memory_registry.h"
#include "api/streams.h"

struct CUgraph_st;

namespace cudaemu {
namespace graph {

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
extern std::mutex graph_mutex;  // graphs, captures, handles and graph memory
std::map<int, GraphMemoryStats> &graph_memory();
// Every graph allocation by its address, while its record lives.
std::map<const void *, GraphAllocation *> &graph_allocations();

struct Condition {
    std::atomic<unsigned int> value{0};
    unsigned int default_value = 0;
    bool assign_default = false;
    const CUgraph_st *graph = nullptr;
};
constexpr std::size_t kMaxConditions = 1u << 16;
extern Condition conditions[kMaxConditions];
extern std::atomic<std::size_t> conditions_made;

}  // namespace graph
}  // namespace cudaemu

struct CUgraphNode_st {
    cudaGraphNodeType type;
    CUgraph_st *owner;
    std::vector<CUgraphNode_st *> deps;
    std::shared_ptr<const cudaemu::graph::KernelLaunch> kernel;
    cudaMemcpy3DParms copy{};
    bool copy_1d = false;
    void *dst = nullptr;
    const void *src = nullptr;
    std::size_t count = 0;
    cudaMemcpyKind kind = cudaMemcpyDefault;
    cudaMemsetParams fill{};
    cudaHostNodeParams host{};
    cudaEvent_t event = nullptr;
    std::shared_ptr<cudaemu::graph::GraphAllocation> allocation;
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
namespace graph {

std::set<const void *> &live_graphs();
std::set<const void *> &live_execs();

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
std::map<cudaStream_t, Capture> &captures();
struct CapturedEvent {
    unsigned long long id;
    std::vector<cudaGraphNode_t> deps;
    cudaStream_t stream;  // where it was recorded
};
std::map<cudaEvent_t, CapturedEvent> &captured_events();
extern std::atomic<unsigned long long> next_capture_id;
// cudaGraphAddKernelNode / SetParams: where the launch made through the kernel's launcher goes.
extern thread_local std::shared_ptr<const KernelLaunch> *binding_target;

bool graph_is_live(const void *graph);
cudaError_t check_graph(const char *call, cudaGraph_t graph);
// A new node of `graph` after `deps` (which must be its nodes).
cudaError_t add_node(const char *call, cudaGraphNode_t *out, cudaGraph_t graph, const cudaGraphNode_t *deps,
                     std::size_t count, std::unique_ptr<CUgraphNode_st> node);
// Forgets `graph` and the bodies of its conditional nodes as handles (the caller holds graph_mutex).
void forget_graph(const CUgraph_st *graph);
void forget_graph_bodies(const CUgraphNode_st &node);
// What cudaGraphAddDependencies and cudaGraphRemoveDependencies check before the edges.
cudaError_t check_edges(const char *call, cudaGraph_t graph, const cudaGraphEdgeData *edge_data, std::size_t count);
// The node `node` is, of the kind a call works on, or null after saying why not.
CUgraphNode_st *node_of_type(const char *call, cudaGraphNode_t node, cudaGraphNodeType type, const char *kind);
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
const char *type_name(cudaGraphNodeType type);
void dot_graph(std::FILE *out, const CUgraph_st &graph, const std::string &prefix);
std::unique_ptr<CUgraphNode_st> new_node(cudaGraphNodeType type);
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
void set_copy_1d(CUgraphNode_st &node, void *dst, const void *src, std::size_t count, cudaMemcpyKind kind);
std::unique_ptr<CUgraphNode_st> memcpy_1d_node(void *dst, const void *src, std::size_t count, cudaMemcpyKind kind);
// Copies `from` into a new graph, with `map` from each old node to its copy.
std::unique_ptr<CUgraph_st> clone_graph(const CUgraph_st &from, std::map<const CUgraphNode_st *, CUgraphNode_st *> *map);
// The nodes in an order that respects every dependency (Kahn's algorithm, ties by position).
bool dependency_order(const CUgraph_st &graph, std::vector<CUgraphNode_st *> *order);
cudaError_t bind_kernel(const char *call, const cudaKernelNodeParams *p, std::shared_ptr<const KernelLaunch> *target);
CUgraphNode_st *exec_node(const char *call, cudaGraphExec_t exec, cudaGraphNode_t node);
std::unique_ptr<CUgraphNode_st> alloc_node(const char *call, std::size_t size, cudaError_t *error);

// graph_execution.cpp
cudaError_t run_graph(const CUgraph_st &graph, cudaStream_t stream);

// graph_capture.cpp: the capture of `stream`, if it is being captured (the caller holds graph_mutex).
Capture *capture_of(cudaStream_t stream);
// Adds `node` to the capture of `stream` after the capture's current dependencies.
bool capture_node(cudaStream_t stream, std::unique_ptr<CUgraphNode_st> node);
bool stream_is_capturing(cudaStream_t stream);

}  // namespace graph
}  // namespace cudaemu
