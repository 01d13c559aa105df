// CUDA graphs, stream capture and memory pools: the runtime's types (CUDA 13's names and
// numbers) and API calls. Under emulation a graph launch runs its nodes, in an order that
// respects their dependencies, before cudaGraphLaunch returns; what each call does and where
// it differs from a GPU is in labs/emu/README.md ("Graphs").
#pragma once

#include <cstddef>

#include "../driver_types.h"
#include "../vector_types.h"
#include "texture_types.h"

typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphNode_st *cudaGraphNode_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef struct CUmemPoolHandle_st *cudaMemPool_t;
typedef unsigned long long cudaGraphConditionalHandle;

enum cudaGraphNodeType {
    cudaGraphNodeTypeKernel      = 0x00,
    cudaGraphNodeTypeMemcpy      = 0x01,
    cudaGraphNodeTypeMemset      = 0x02,
    cudaGraphNodeTypeHost        = 0x03,
    cudaGraphNodeTypeGraph       = 0x04,
    cudaGraphNodeTypeEmpty       = 0x05,
    cudaGraphNodeTypeWaitEvent   = 0x06,
    cudaGraphNodeTypeEventRecord = 0x07,
    cudaGraphNodeTypeExtSemaphoreSignal = 0x08,
    cudaGraphNodeTypeExtSemaphoreWait   = 0x09,
    cudaGraphNodeTypeMemAlloc    = 0x0a,
    cudaGraphNodeTypeMemFree     = 0x0b,
    cudaGraphNodeTypeConditional = 0x0d,
    cudaGraphNodeTypeCount
};

struct cudaKernelNodeParams {
    void *func;
    dim3 gridDim;
    dim3 blockDim;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra;
};
typedef struct cudaKernelNodeParams cudaKernelNodeParamsV2;
struct cudaMemsetParams {
    void *dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize;  // 1, 2 or 4 bytes
    size_t width;              // in elements
    size_t height;
};
typedef struct cudaMemsetParams cudaMemsetParamsV2;
struct cudaHostNodeParams {
    cudaHostFn_t fn;
    void *userData;
};
typedef struct cudaHostNodeParams cudaHostNodeParamsV2;
struct cudaMemcpyNodeParams {
    int flags;
    int reserved[3];
    struct cudaMemcpy3DParms copyParams;
};
struct cudaChildGraphNodeParams {
    cudaGraph_t graph;
};
struct cudaEventRecordNodeParams {
    cudaEvent_t event;
};
struct cudaEventWaitNodeParams {
    cudaEvent_t event;
};

enum cudaMemAllocationType {
    cudaMemAllocationTypeInvalid = 0x0,
    cudaMemAllocationTypePinned  = 0x1,
    cudaMemAllocationTypeMax     = 0x7FFFFFFF
};
enum cudaMemAllocationHandleType {
    cudaMemHandleTypeNone                = 0x0,
    cudaMemHandleTypePosixFileDescriptor = 0x1,
    cudaMemHandleTypeWin32               = 0x2,
    cudaMemHandleTypeWin32Kmt            = 0x4,
    cudaMemHandleTypeFabric              = 0x8
};
enum cudaMemLocationType {
    cudaMemLocationTypeInvalid          = 0,
    cudaMemLocationTypeDevice           = 1,
    cudaMemLocationTypeHost             = 2,
    cudaMemLocationTypeHostNuma         = 3,
    cudaMemLocationTypeHostNumaCurrent  = 4
};
struct cudaMemLocation {
    enum cudaMemLocationType type;
    int id;
};
enum cudaMemAccessFlags {
    cudaMemAccessFlagsProtNone      = 0,
    cudaMemAccessFlagsProtRead      = 1,
    cudaMemAccessFlagsProtReadWrite = 3
};
struct cudaMemAccessDesc {
    struct cudaMemLocation location;
    enum cudaMemAccessFlags flags;
};
struct cudaMemPoolProps {
    enum cudaMemAllocationType allocType;
    enum cudaMemAllocationHandleType handleTypes;
    struct cudaMemLocation location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
};
struct cudaMemPoolPtrExportData {
    unsigned char reserved[64];
};
enum cudaMemPoolAttr {
    cudaMemPoolReuseFollowEventDependencies   = 0x1,
    cudaMemPoolReuseAllowOpportunistic        = 0x2,
    cudaMemPoolReuseAllowInternalDependencies = 0x3,
    cudaMemPoolAttrReleaseThreshold           = 0x4,
    cudaMemPoolAttrReservedMemCurrent         = 0x5,
    cudaMemPoolAttrReservedMemHigh            = 0x6,
    cudaMemPoolAttrUsedMemCurrent             = 0x7,
    cudaMemPoolAttrUsedMemHigh                = 0x8
};
struct cudaMemAllocNodeParams {
    struct cudaMemPoolProps poolProps;
    const struct cudaMemAccessDesc *accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    void *dptr;  // out: the allocation's address, fixed for the graph's lifetime
};
typedef struct cudaMemAllocNodeParams cudaMemAllocNodeParamsV2;
struct cudaMemFreeNodeParams {
    void *dptr;
};
enum cudaGraphMemAttributeType {
    cudaGraphMemAttrUsedMemCurrent     = 0x0,
    cudaGraphMemAttrUsedMemHigh        = 0x1,
    cudaGraphMemAttrReservedMemCurrent = 0x2,
    cudaGraphMemAttrReservedMemHigh    = 0x3
};

enum cudaGraphConditionalNodeType {
    cudaGraphCondTypeIf     = 0,
    cudaGraphCondTypeWhile  = 1,
    cudaGraphCondTypeSwitch = 2
};
#define cudaGraphCondAssignDefault 1
struct cudaConditionalNodeParams {
    cudaGraphConditionalHandle handle;
    enum cudaGraphConditionalNodeType type;
    unsigned int size;         // bodies: 1 for if and while (2 for if/else), n for switch
    cudaGraph_t *phGraph_out;  // out: the body graphs, owned by the node
};

struct cudaGraphNodeParams {
    enum cudaGraphNodeType type;
    int reserved0[3];
    union {
        long long reserved1[29];
        struct cudaKernelNodeParams kernel;
        struct cudaMemcpyNodeParams memcpy;
        struct cudaMemsetParams memset;
        struct cudaHostNodeParams host;
        struct cudaChildGraphNodeParams graph;
        struct cudaEventWaitNodeParams eventWait;
        struct cudaEventRecordNodeParams eventRecord;
        struct cudaMemAllocNodeParams alloc;
        struct cudaMemFreeNodeParams free;
        struct cudaConditionalNodeParams conditional;
    };
    long long reserved2;
};

struct cudaGraphEdgeData {
    unsigned char from_port;
    unsigned char to_port;
    unsigned char type;
    unsigned char reserved[5];
};

enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal      = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed     = 2
};
enum cudaStreamCaptureStatus {
    cudaStreamCaptureStatusNone        = 0,
    cudaStreamCaptureStatusActive      = 1,
    cudaStreamCaptureStatusInvalidated = 2
};
enum cudaStreamUpdateCaptureDependenciesFlags {
    cudaStreamAddCaptureDependencies = 0x0,
    cudaStreamSetCaptureDependencies = 0x1
};

enum cudaGraphExecUpdateResult {
    cudaGraphExecUpdateSuccess                      = 0x0,
    cudaGraphExecUpdateError                        = 0x1,
    cudaGraphExecUpdateErrorTopologyChanged         = 0x2,
    cudaGraphExecUpdateErrorNodeTypeChanged         = 0x3,
    cudaGraphExecUpdateErrorFunctionChanged         = 0x4,
    cudaGraphExecUpdateErrorParametersChanged       = 0x5,
    cudaGraphExecUpdateErrorNotSupported            = 0x6,
    cudaGraphExecUpdateErrorUnsupportedFunctionChange = 0x7,
    cudaGraphExecUpdateErrorAttributesChanged       = 0x8
};
struct cudaGraphExecUpdateResultInfo {
    enum cudaGraphExecUpdateResult result;
    cudaGraphNode_t errorNode;
    cudaGraphNode_t errorFromNode;
};

#define cudaGraphInstantiateFlagAutoFreeOnLaunch 1
#define cudaGraphInstantiateFlagUpload           2
#define cudaGraphInstantiateFlagDeviceLaunch     4
#define cudaGraphInstantiateFlagUseNodePriority  8
#define cudaGraphDebugDotFlagsVerbose 1
#define cudaEventRecordDefault  0x00
#define cudaEventRecordExternal 0x01
#define cudaEventWaitDefault    0x00
#define cudaEventWaitExternal   0x01

extern "C" {
// Graphs and their nodes. `dependencies` are nodes of the same graph.
cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes);
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes, size_t *pNumRootNodes);
// CUDA 13's forms, with edge data (NULL: the default edges); CUDA 12's are overloads below.
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                     const struct cudaGraphEdgeData *edgeData, size_t numDependencies);
cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                        const struct cudaGraphEdgeData *edgeData, size_t numDependencies);
cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                              struct cudaGraphEdgeData *edgeData, size_t *numEdges);
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
                                         struct cudaGraphEdgeData *edgeData, size_t *pNumDependencies);
cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
                                           struct cudaGraphEdgeData *edgeData, size_t *pNumDependentNodes);
cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node);
cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams *pNodeParams);
cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const struct cudaHostNodeParams *pNodeParams);
cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams *pNodeParams);
cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const struct cudaMemsetParams *pNodeParams);
cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, struct cudaMemcpy3DParms *pNodeParams);
cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const struct cudaMemcpy3DParms *pNodeParams);
cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph);
cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out);
cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event);
cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams *params_out);
cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out);
cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int flags);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                                   size_t numDependencies, const struct cudaMemcpy3DParms *pCopyParams);
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dst,
                                     const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                                   size_t numDependencies, const struct cudaMemsetParams *pMemsetParams);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                                 size_t numDependencies, const struct cudaHostNodeParams *pNodeParams);
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                       cudaGraph_t childGraph);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                                  size_t numDependencies);
cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                        cudaEvent_t event);
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                      const cudaGraphNode_t *pDependencies, size_t numDependencies, cudaEvent_t event);
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                     struct cudaMemAllocNodeParams *nodeParams);
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                    const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dptr);
cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                             const struct cudaGraphEdgeData *dependencyData, size_t numDependencies,
                             struct cudaGraphNodeParams *nodeParams);
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out, cudaGraph_t graph,
                                             unsigned int defaultLaunchValue = 0, unsigned int flags = 0);

// Executable graphs.
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags = 0);
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags);
cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec);
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void *dst,
                                               const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                           const struct cudaHostNodeParams *pNodeParams);
cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemsetParams *pNodeParams);
cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemcpy3DParms *pNodeParams);
cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, unsigned int isEnabled);
cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, unsigned int *isEnabled);
cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags);
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                struct cudaGraphExecUpdateResultInfo *resultInfo);

// Stream capture: work issued to a capturing stream becomes nodes of a graph instead of running.
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                          const struct cudaGraphEdgeData *dependencyData, size_t numDependencies,
                                          enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus);
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out = 0, cudaGraph_t *graph_out = 0,
                                     const cudaGraphNode_t **dependencies_out = 0,
                                     const struct cudaGraphEdgeData **edgeData_out = 0,
                                     size_t *numDependencies_out = 0);
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *dependencies,
                                                const struct cudaGraphEdgeData *dependencyData, size_t numDependencies,
                                                unsigned int flags = 0);
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode);
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream = 0, unsigned int flags = 0);

// Graph memory (memory alloc and free nodes).
cudaError_t cudaDeviceGraphMemTrim(int device);
cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value);
cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value);

// Memory pools (stream-ordered allocation).
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device);
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device);
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool);
cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps);
cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value);
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc *descList, size_t count);
cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t memPool, struct cudaMemLocation *location);
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep);
cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);
cudaError_t cudaMemPoolExportToShareableHandle(void *shareableHandle, cudaMemPool_t memPool,
                                               enum cudaMemAllocationHandleType handleType, unsigned int flags);
cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t *memPool, void *shareableHandle,
                                                 enum cudaMemAllocationHandleType handleType, unsigned int flags);
cudaError_t cudaMemPoolExportPointer(struct cudaMemPoolPtrExportData *exportData, void *ptr);
cudaError_t cudaMemPoolImportPointer(void **ptr, cudaMemPool_t memPool, struct cudaMemPoolPtrExportData *exportData);
}  // extern "C"

// The forms CUDA 11 had, which CUDA 12's and 13's cuda_runtime.h still accept from C++.
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, cudaGraphNode_t *pErrorNode,
                                        char *pLogBuffer, size_t bufferSize)
{
    if (pErrorNode) *pErrorNode = nullptr;
    if (pLogBuffer && bufferSize) pLogBuffer[0] = '\0';
    return cudaGraphInstantiate(pGraphExec, graph, 0ull);
}
inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph, cudaGraphNode_t *hErrorNode_out,
                                       enum cudaGraphExecUpdateResult *updateResult_out)
{
    cudaGraphExecUpdateResultInfo info = {cudaGraphExecUpdateSuccess, nullptr, nullptr};
    cudaError_t error = cudaGraphExecUpdate(hGraphExec, hGraph, &info);
    if (hErrorNode_out) *hErrorNode_out = info.errorNode;
    if (updateResult_out) *updateResult_out = info.result;
    return error;
}
inline cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                            size_t numDependencies)
{
    return cudaGraphAddDependencies(graph, from, to, nullptr, numDependencies);
}
inline cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                               const cudaGraphNode_t *to, size_t numDependencies)
{
    return cudaGraphRemoveDependencies(graph, from, to, nullptr, numDependencies);
}
inline cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to, size_t *numEdges)
{
    return cudaGraphGetEdges(graph, from, to, nullptr, numEdges);
}
inline cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
                                                size_t *pNumDependencies)
{
    return cudaGraphNodeGetDependencies(node, pDependencies, nullptr, pNumDependencies);
}
inline cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
                                                  size_t *pNumDependentNodes)
{
    return cudaGraphNodeGetDependentNodes(node, pDependentNodes, nullptr, pNumDependentNodes);
}
inline cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *dependencies,
                                                       size_t numDependencies, unsigned int flags = 0)
{
    return cudaStreamUpdateCaptureDependencies(stream, dependencies, nullptr, numDependencies, flags);
}
template <class T>
inline cudaError_t cudaMallocFromPoolAsync(T **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream)
{
    return cudaMallocFromPoolAsync(cudaemu::untyped_out(ptr), size, memPool, stream);
}
template <class T>
inline cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t *pDependencies, size_t numDependencies, T *dst,
                                            const T *src, size_t count, enum cudaMemcpyKind kind)
{
    return cudaGraphAddMemcpyNode1D(pGraphNode, graph, pDependencies, numDependencies, (void *)dst,
                                    (const void *)src, count, kind);
}

// Device code: sets the value a conditional node reads when it runs.
namespace cudaemu {
void set_graph_condition(cudaGraphConditionalHandle handle, unsigned int value);
}
inline void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value)
{
    cudaemu::set_graph_condition(handle, value);
}
