// CUDA graphs, stream capture and memory pools, checked against the programming guide's
// "CUDA Graphs" and "Stream Ordered Memory Allocator" chapters: nodes made by hand and by
// capture run in dependency order at each launch (not at capture), kernel arguments are copied
// when a node is made, executable graphs take new parameters, memory nodes, conditional nodes,
// the errors of a misused capture; and the race detector still sees a graph's kernels.
#include <vector>

#include "emu_test_util.h"
#include "exit_codes.h"

__global__ void scale_add(float *data, float factor, float offset, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * factor + offset;
}

namespace {
void count_call(void *counter) { ++*static_cast<int *>(counter); }
}  // namespace

TEST(Graphs, ManualNodesRunInDependencyOrderAtEachLaunch)
{
    const int n = 100;
    std::vector<float> host(n, 1.0f), back(n, 0.0f);
    float *device;
    ASSERT_CUDA_OK(cudaMalloc(&device, n * sizeof(float)));
    cudaGraph_t graph;
    ASSERT_CUDA_OK(cudaGraphCreate(&graph, 0));
    cudaGraphNode_t to_device, kernel, to_host, host_node;
    ASSERT_CUDA_OK(cudaGraphAddMemcpyNode1D(&to_device, graph, nullptr, 0, device, host.data(), n * sizeof(float),
                                            cudaMemcpyHostToDevice));
    float factor = 3.0f, offset = 1.0f;
    int count = n;
    void *args[] = {&device, &factor, &offset, &count};
    cudaKernelNodeParams params = {};
    params.func = (void *)scale_add;
    params.gridDim = dim3((n + 31) / 32);
    params.blockDim = dim3(32);
    params.kernelParams = args;
    ASSERT_CUDA_OK(cudaGraphAddKernelNode(&kernel, graph, &to_device, 1, &params));
    factor = 100.0f;  // the node copied the arguments when it was made
    ASSERT_CUDA_OK(cudaGraphAddMemcpyNode1D(&to_host, graph, &kernel, 1, back.data(), device, n * sizeof(float),
                                            cudaMemcpyDeviceToHost));
    int calls = 0;
    cudaHostNodeParams host_params = {count_call, &calls};
    ASSERT_CUDA_OK(cudaGraphAddHostNode(&host_node, graph, &to_host, 1, &host_params));
    size_t nodes = 0;
    ASSERT_CUDA_OK(cudaGraphGetNodes(graph, nullptr, &nodes));
    EXPECT_EQ(4u, nodes);

    cudaGraphExec_t exec;
    ASSERT_CUDA_OK(cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
    EXPECT_EQ(0, calls);  // nothing runs before a launch
    cudaStream_t stream;
    ASSERT_CUDA_OK(cudaStreamCreate(&stream));
    ASSERT_CUDA_OK(cudaGraphLaunch(exec, stream));
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
    EXPECT_EQ(1, calls);
    for (float v : back) EXPECT_EQ(4.0f, v);
    host.assign(n, 2.0f);  // the copy node reads the host array at each launch
    ASSERT_CUDA_OK(cudaGraphLaunch(exec, stream));
    EXPECT_EQ(2, calls);
    for (float v : back) EXPECT_EQ(7.0f, v);

    // An executable graph's kernel node takes new arguments; the graph keeps its own.
    factor = 0.0f;
    offset = 5.0f;
    ASSERT_CUDA_OK(cudaGraphExecKernelNodeSetParams(exec, kernel, &params));
    ASSERT_CUDA_OK(cudaGraphLaunch(exec, stream));
    for (float v : back) EXPECT_EQ(5.0f, v);
    ASSERT_CUDA_OK(cudaGraphExecDestroy(exec));
    ASSERT_CUDA_OK(cudaGraphDestroy(graph));
    EXPECT_EQ(cudaErrorInvalidValue, cudaGraphLaunch(exec, stream));
    cudaGetLastError();
    cudaStreamDestroy(stream);
    cudaFree(device);
}

TEST(Graphs, ChildEmptyAndMemsetNodesAndAddedDependencies)
{
    int *device;
    ASSERT_CUDA_OK(cudaMalloc(&device, 8 * sizeof(int)));
    ASSERT_CUDA_OK(cudaMemset(device, 0, 8 * sizeof(int)));
    cudaGraph_t child, graph;
    ASSERT_CUDA_OK(cudaGraphCreate(&child, 0));
    cudaGraphNode_t fill, empty, child_node, last;
    cudaMemsetParams memset_params = {};
    memset_params.dst = device;
    memset_params.value = 0x01020304;
    memset_params.elementSize = 4;
    memset_params.width = 8;
    memset_params.height = 1;
    ASSERT_CUDA_OK(cudaGraphAddMemsetNode(&fill, child, nullptr, 0, &memset_params));
    ASSERT_CUDA_OK(cudaGraphCreate(&graph, 0));
    ASSERT_CUDA_OK(cudaGraphAddEmptyNode(&empty, graph, nullptr, 0));
    ASSERT_CUDA_OK(cudaGraphAddChildGraphNode(&child_node, graph, &empty, 1, child));
    ASSERT_CUDA_OK(cudaGraphDestroy(child));  // the node holds its own copy
    std::vector<int> back(8, -1);
    ASSERT_CUDA_OK(cudaGraphAddMemcpyNode1D(&last, graph, nullptr, 0, back.data(), device, 8 * sizeof(int),
                                            cudaMemcpyDeviceToHost));
    // Added afterwards: the copy back must wait for the child graph's fill.
    ASSERT_CUDA_OK(cudaGraphAddDependencies(graph, &child_node, &last, 1));
    cudaGraphExec_t exec;
    ASSERT_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    ASSERT_CUDA_OK(cudaGraphLaunch(exec, 0));
    for (int v : back) EXPECT_EQ(0x01020304, v);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaFree(device);
}

TEST(StreamCapture, CapturedWorkRunsOnlyWhenTheGraphIsLaunched)
{
    const int n = 64;
    float *device;
    ASSERT_CUDA_OK(cudaMalloc(&device, n * sizeof(float)));
    std::vector<float> back(n, -1.0f);
    cudaStream_t stream;
    ASSERT_CUDA_OK(cudaStreamCreate(&stream));
    int calls = 0;
    ASSERT_CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus status;
    ASSERT_CUDA_OK(cudaStreamIsCapturing(stream, &status));
    EXPECT_EQ(cudaStreamCaptureStatusActive, status);
    ASSERT_CUDA_OK(cudaMemsetAsync(device, 0, n * sizeof(float), stream));
    scale_add<<<2, 32, 0, stream>>>(device, 1.0f, 2.5f, n);
    ASSERT_CUDA_OK(cudaGetLastError());
    ASSERT_CUDA_OK(cudaMemcpyAsync(back.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    ASSERT_CUDA_OK(cudaLaunchHostFunc(stream, count_call, &calls));
    EXPECT_EQ(cudaErrorStreamCaptureUnsupported, cudaStreamSynchronize(stream));  // nothing has run to wait for
    cudaGetLastError();
    cudaGraph_t graph;
    ASSERT_CUDA_OK(cudaStreamEndCapture(stream, &graph));
    EXPECT_EQ(-1.0f, back[0]);
    EXPECT_EQ(0, calls);
    size_t nodes = 0;
    ASSERT_CUDA_OK(cudaGraphGetNodes(graph, nullptr, &nodes));
    EXPECT_EQ(4u, nodes);
    cudaGraphExec_t exec;
    ASSERT_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    ASSERT_CUDA_OK(cudaGraphLaunch(exec, stream));
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
    for (float v : back) EXPECT_EQ(2.5f, v);
    EXPECT_EQ(1, calls);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
    cudaFree(device);
}

__global__ void add_arrays(const float *a, const float *b, float *sum, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) sum[i] = a[i] + b[i];
}

TEST(StreamCapture, ForkAndJoinThroughEventsAcrossStreams)
{
    const int n = 32;
    float *a, *b, *sum;
    ASSERT_CUDA_OK(cudaMalloc(&a, n * sizeof(float)));
    ASSERT_CUDA_OK(cudaMalloc(&b, n * sizeof(float)));
    ASSERT_CUDA_OK(cudaMalloc(&sum, n * sizeof(float)));
    std::vector<float> ones(n, 1.0f), back(n, 0.0f);
    cudaStream_t main_stream, side;
    cudaEvent_t forked, joined;
    ASSERT_CUDA_OK(cudaStreamCreate(&main_stream));
    ASSERT_CUDA_OK(cudaStreamCreate(&side));
    ASSERT_CUDA_OK(cudaEventCreate(&forked));
    ASSERT_CUDA_OK(cudaEventCreate(&joined));
    ASSERT_CUDA_OK(cudaStreamBeginCapture(main_stream, cudaStreamCaptureModeGlobal));
    ASSERT_CUDA_OK(cudaEventRecord(forked, main_stream));
    ASSERT_CUDA_OK(cudaStreamWaitEvent(side, forked, 0));  // side joins the capture
    ASSERT_CUDA_OK(cudaMemcpyAsync(a, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice, main_stream));
    ASSERT_CUDA_OK(cudaMemcpyAsync(b, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice, side));
    scale_add<<<1, n, 0, side>>>(b, 10.0f, 0.0f, n);
    ASSERT_CUDA_OK(cudaEventRecord(joined, side));
    ASSERT_CUDA_OK(cudaStreamWaitEvent(main_stream, joined, 0));
    add_arrays<<<1, n, 0, main_stream>>>(a, b, sum, n);
    ASSERT_CUDA_OK(cudaMemcpyAsync(back.data(), sum, n * sizeof(float), cudaMemcpyDeviceToHost, main_stream));
    cudaGraph_t graph;
    ASSERT_CUDA_OK(cudaStreamEndCapture(main_stream, &graph));
    cudaGraphNode_t roots[4];
    size_t root_count = 4;
    ASSERT_CUDA_OK(cudaGraphGetRootNodes(graph, roots, &root_count));
    EXPECT_EQ(2u, root_count);  // the two copies in
    cudaGraphExec_t exec;
    ASSERT_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    ASSERT_CUDA_OK(cudaGraphLaunch(exec, main_stream));
    for (float v : back) EXPECT_EQ(11.0f, v);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);

    // Ending a capture while a forked stream has not joined back is an error.
    ASSERT_CUDA_OK(cudaStreamBeginCapture(main_stream, cudaStreamCaptureModeGlobal));
    ASSERT_CUDA_OK(cudaEventRecord(forked, main_stream));
    ASSERT_CUDA_OK(cudaStreamWaitEvent(side, forked, 0));
    scale_add<<<1, n, 0, side>>>(b, 1.0f, 0.0f, n);
    EXPECT_EQ(cudaErrorStreamCaptureUnmatched, cudaStreamEndCapture(side, &graph));
    EXPECT_EQ(cudaErrorStreamCaptureUnjoined, cudaStreamEndCapture(main_stream, &graph));
    cudaGraphDestroy(graph);
    EXPECT_EQ(cudaErrorIllegalState, cudaStreamEndCapture(main_stream, &graph));
    EXPECT_EQ(cudaErrorStreamCaptureUnsupported, cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal));
    cudaGetLastError();
    cudaStreamDestroy(main_stream);
    cudaStreamDestroy(side);
    cudaFree(a);
    cudaFree(b);
    cudaFree(sum);
}

TEST(StreamCapture, ExecUpdateTakesARecapturedGraphOfTheSameShape)
{
    float *device;
    ASSERT_CUDA_OK(cudaMalloc(&device, 32 * sizeof(float)));
    float back = 0;
    cudaStream_t stream;
    ASSERT_CUDA_OK(cudaStreamCreate(&stream));
    cudaGraphExec_t exec = nullptr;
    for (int k = 0; k < 3; ++k) {  // the jacobiCudaGraphs sample's loop
        cudaGraph_t graph;
        ASSERT_CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        ASSERT_CUDA_OK(cudaMemsetAsync(device, 0, 32 * sizeof(float), stream));
        scale_add<<<1, 32, 0, stream>>>(device, 1.0f, (float)k, 32);
        ASSERT_CUDA_OK(cudaMemcpyAsync(&back, device, sizeof(float), cudaMemcpyDeviceToHost, stream));
        ASSERT_CUDA_OK(cudaStreamEndCapture(stream, &graph));
        if (!exec) {
            ASSERT_CUDA_OK(cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
        } else {
            cudaGraphExecUpdateResult result;
            cudaGraphNode_t error_node;
            ASSERT_CUDA_OK(cudaGraphExecUpdate(exec, graph, &error_node, &result));
            EXPECT_EQ(cudaGraphExecUpdateSuccess, result);
        }
        ASSERT_CUDA_OK(cudaGraphLaunch(exec, stream));
        EXPECT_EQ((float)k, back);
        cudaGraphDestroy(graph);
    }
    cudaGraph_t different;
    ASSERT_CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    ASSERT_CUDA_OK(cudaMemsetAsync(device, 0, 32 * sizeof(float), stream));
    ASSERT_CUDA_OK(cudaStreamEndCapture(stream, &different));
    cudaGraphExecUpdateResultInfo info;
    EXPECT_EQ(cudaErrorGraphExecUpdateFailure, cudaGraphExecUpdate(exec, different, &info));
    EXPECT_EQ(cudaGraphExecUpdateErrorTopologyChanged, info.result);
    cudaGetLastError();
    cudaGraphDestroy(different);
    cudaGraphExecDestroy(exec);
    cudaStreamDestroy(stream);
    cudaFree(device);
}

// ---- Memory nodes and stream-ordered allocation.
__global__ void fill_with(int *data, int value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = value;
}
__global__ void copy_ints(const int *from, int *to, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) to[i] = from[i];
}

TEST(GraphMemory, CapturedAllocAndFreeNodesKeepOneAddressAcrossLaunches)
{
    const int n = 64;
    int *result;
    ASSERT_CUDA_OK(cudaMalloc(&result, n * sizeof(int)));
    cudaStream_t stream;
    ASSERT_CUDA_OK(cudaStreamCreate(&stream));
    int *scratch = nullptr;
    ASSERT_CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    ASSERT_CUDA_OK(cudaMallocAsync(&scratch, n * sizeof(int), stream));
    ASSERT_NE(nullptr, scratch);  // the address is known at capture
    fill_with<<<2, 32, 0, stream>>>(scratch, 9, n);
    copy_ints<<<2, 32, 0, stream>>>(scratch, result, n);
    ASSERT_CUDA_OK(cudaFreeAsync(scratch, stream));
    cudaGraph_t graph;
    ASSERT_CUDA_OK(cudaStreamEndCapture(stream, &graph));
    cudaPointerAttributes attributes;
    ASSERT_CUDA_OK(cudaPointerGetAttributes(&attributes, scratch));
    EXPECT_EQ(cudaMemoryTypeUnregistered, attributes.type);  // reserved, not allocated, between launches
    cudaGraphExec_t exec;
    ASSERT_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 2; ++launch) ASSERT_CUDA_OK(cudaGraphLaunch(exec, stream));
    std::vector<int> back(n);
    ASSERT_CUDA_OK(cudaMemcpy(back.data(), result, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int v : back) EXPECT_EQ(9, v);
    unsigned long long reserved = 0, used = 0;
    ASSERT_CUDA_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
    ASSERT_CUDA_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    EXPECT_EQ(n * sizeof(int), reserved);
    EXPECT_EQ(0u, used);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    ASSERT_CUDA_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
    EXPECT_EQ(0u, reserved);
    cudaStreamDestroy(stream);
    cudaFree(result);
}

TEST(GraphMemory, AnAllocationLeftLiveIsTheProgramsToFree)
{
    cudaGraph_t graph;
    ASSERT_CUDA_OK(cudaGraphCreate(&graph, 0));
    cudaMemAllocNodeParams params = {};
    params.poolProps.allocType = cudaMemAllocationTypePinned;
    params.poolProps.location = {cudaMemLocationTypeDevice, 0};
    params.bytesize = 256;
    cudaGraphNode_t alloc;
    ASSERT_CUDA_OK(cudaGraphAddMemAllocNode(&alloc, graph, nullptr, 0, &params));
    ASSERT_NE(nullptr, params.dptr);
    cudaGraphExec_t exec;
    ASSERT_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    ASSERT_CUDA_OK(cudaGraphLaunch(exec, 0));
    cudaPointerAttributes attributes;
    ASSERT_CUDA_OK(cudaPointerGetAttributes(&attributes, params.dptr));
    EXPECT_EQ(cudaMemoryTypeDevice, attributes.type);
    ASSERT_CUDA_OK(cudaMemset(params.dptr, 1, 256));
    EXPECT_EQ(cudaErrorInvalidValue, cudaGraphLaunch(exec, 0));  // still allocated from the last launch
    cudaGetLastError();
    ASSERT_CUDA_OK(cudaFree(params.dptr));
    ASSERT_CUDA_OK(cudaGraphLaunch(exec, 0));
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    // The graph is gone and its allocation was live: it stays usable until freed.
    ASSERT_CUDA_OK(cudaMemset(params.dptr, 2, 256));
    ASSERT_CUDA_OK(cudaFree(params.dptr));
}

TEST(MemoryPools, DefaultPoolAttributesAndAllocationFromAPool)
{
    int supported = 0;
    ASSERT_CUDA_OK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
    EXPECT_EQ(1, supported);
    cudaMemPool_t pool, current;
    ASSERT_CUDA_OK(cudaDeviceGetDefaultMemPool(&pool, 0));
    ASSERT_CUDA_OK(cudaDeviceGetMemPool(&current, 0));
    EXPECT_EQ(pool, current);
    unsigned long long threshold = ~0ull, got = 0;
    ASSERT_CUDA_OK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    ASSERT_CUDA_OK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got));
    EXPECT_EQ(threshold, got);
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location = {cudaMemLocationTypeDevice, 0};
    cudaMemPool_t mine;
    ASSERT_CUDA_OK(cudaMemPoolCreate(&mine, &props));
    cudaStream_t stream;
    ASSERT_CUDA_OK(cudaStreamCreate(&stream));
    int *data = nullptr;
    ASSERT_CUDA_OK(cudaMallocFromPoolAsync(&data, 1000 * sizeof(int), mine, stream));
    fill_with<<<4, 256, 0, stream>>>(data, 3, 1000);
    unsigned long long used = 0;
    ASSERT_CUDA_OK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &used));
    EXPECT_GE(used, 1000 * sizeof(int));
    std::vector<int> back(1000);
    ASSERT_CUDA_OK(cudaMemcpyAsync(back.data(), data, 1000 * sizeof(int), cudaMemcpyDeviceToHost, stream));
    ASSERT_CUDA_OK(cudaFreeAsync(data, stream));
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
    for (int v : back) EXPECT_EQ(3, v);
    EXPECT_EQ(cudaErrorInvalidValue, cudaMemPoolDestroy(pool));  // a device's default pool stays
    ASSERT_CUDA_OK(cudaMemPoolDestroy(mine));
    props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    EXPECT_EQ(cudaErrorNotSupported, cudaMemPoolCreate(&mine, &props));
    cudaGetLastError();
    cudaStreamDestroy(stream);
}

// ---- Conditional nodes (the graphConditionalNodes sample's while, if/else and switch).
__global__ void count_down(int *counter, cudaGraphConditionalHandle handle)
{
    *counter -= 1;
    cudaGraphSetConditional(handle, *counter > 0 ? 1 : 0);
}
__global__ void add_to(int *total, int amount) { *total += amount; }
__global__ void choose(cudaGraphConditionalHandle handle, unsigned int value) { cudaGraphSetConditional(handle, value); }

TEST(Graphs, ConditionalWhileIfElseAndSwitchNodes)
{
    int *counter, *total;
    ASSERT_CUDA_OK(cudaMalloc(&counter, sizeof(int)));
    ASSERT_CUDA_OK(cudaMalloc(&total, sizeof(int)));
    cudaGraph_t graph;
    ASSERT_CUDA_OK(cudaGraphCreate(&graph, 0));
    cudaGraphConditionalHandle loop;
    ASSERT_CUDA_OK(cudaGraphConditionalHandleCreate(&loop, graph, 1, cudaGraphCondAssignDefault));
    cudaGraphNodeParams params = {};
    params.type = cudaGraphNodeTypeConditional;
    params.conditional.handle = loop;
    params.conditional.type = cudaGraphCondTypeWhile;
    params.conditional.size = 1;
    cudaGraphNode_t while_node;
    ASSERT_CUDA_OK(cudaGraphAddNode(&while_node, graph, nullptr, nullptr, 0, &params));
    cudaGraph_t body = params.conditional.phGraph_out[0];
    // The body is filled by capture into it, as the sample does.
    cudaStream_t stream;
    ASSERT_CUDA_OK(cudaStreamCreate(&stream));
    ASSERT_CUDA_OK(cudaStreamBeginCaptureToGraph(stream, body, nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
    add_to<<<1, 1, 0, stream>>>(total, 10);
    count_down<<<1, 1, 0, stream>>>(counter, loop);
    cudaGraph_t captured;
    ASSERT_CUDA_OK(cudaStreamEndCapture(stream, &captured));
    EXPECT_EQ(body, captured);

    // if/else on a handle a kernel sets, then a switch.
    cudaGraphConditionalHandle branch, which;
    ASSERT_CUDA_OK(cudaGraphConditionalHandleCreate(&branch, graph));
    ASSERT_CUDA_OK(cudaGraphConditionalHandleCreate(&which, graph));
    cudaGraphNode_t set_branch, if_node, switch_node;
    int *total_arg = total;
    unsigned int zero = 0, two = 2;
    void *branch_args[] = {&branch, &zero};
    cudaKernelNodeParams kernel = {};
    kernel.func = (void *)choose;
    kernel.gridDim = kernel.blockDim = dim3(1);
    kernel.kernelParams = branch_args;
    ASSERT_CUDA_OK(cudaGraphAddKernelNode(&set_branch, graph, &while_node, 1, &kernel));
    void *which_args[] = {&which, &two};
    kernel.kernelParams = which_args;
    cudaGraphNode_t set_which;
    ASSERT_CUDA_OK(cudaGraphAddKernelNode(&set_which, graph, &set_branch, 1, &kernel));
    params = {};
    params.type = cudaGraphNodeTypeConditional;
    params.conditional.handle = branch;
    params.conditional.type = cudaGraphCondTypeIf;
    params.conditional.size = 2;
    ASSERT_CUDA_OK(cudaGraphAddNode(&if_node, graph, &set_which, nullptr, 1, &params));
    cudaGraph_t then_body = params.conditional.phGraph_out[0], else_body = params.conditional.phGraph_out[1];
    cudaGraphNode_t inner;
    int hundred = 100, thousand = 1000;
    void *then_args[] = {&total_arg, &hundred}, *else_args[] = {&total_arg, &thousand};
    kernel.func = (void *)add_to;
    kernel.kernelParams = then_args;
    ASSERT_CUDA_OK(cudaGraphAddKernelNode(&inner, then_body, nullptr, 0, &kernel));
    kernel.kernelParams = else_args;
    ASSERT_CUDA_OK(cudaGraphAddKernelNode(&inner, else_body, nullptr, 0, &kernel));
    params = {};
    params.type = cudaGraphNodeTypeConditional;
    params.conditional.handle = which;
    params.conditional.type = cudaGraphCondTypeSwitch;
    params.conditional.size = 3;
    ASSERT_CUDA_OK(cudaGraphAddNode(&switch_node, graph, &if_node, nullptr, 1, &params));
    int amounts[3] = {1, 2, 3};
    for (int c = 0; c < 3; ++c) {
        void *case_args[] = {&total_arg, &amounts[c]};
        kernel.kernelParams = case_args;
        ASSERT_CUDA_OK(cudaGraphAddKernelNode(&inner, params.conditional.phGraph_out[c], nullptr, 0, &kernel));
    }

    cudaGraphExec_t exec;
    ASSERT_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 2; ++launch) {
        int start = 4, zero_total = 0, got = 0;
        ASSERT_CUDA_OK(cudaMemcpy(counter, &start, sizeof(int), cudaMemcpyHostToDevice));
        ASSERT_CUDA_OK(cudaMemcpy(total, &zero_total, sizeof(int), cudaMemcpyHostToDevice));
        ASSERT_CUDA_OK(cudaGraphLaunch(exec, stream));
        ASSERT_CUDA_OK(cudaMemcpy(&got, total, sizeof(int), cudaMemcpyDeviceToHost));
        EXPECT_EQ(4 * 10 + 1000 + 3, got) << launch;  // the loop ran 4 times, the else branch, case 2
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
    cudaFree(counter);
    cudaFree(total);
}

// ---- The race detector sees the kernels a graph launches.
__global__ void racy_store(int *out) { out[0] = (int)threadIdx.x; }

TEST(GraphsRacecheck, AKernelNodesRaceIsReported)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    int *out;
    ASSERT_CUDA_OK(cudaMalloc(&out, sizeof(int)));
    cudaStream_t stream;
    ASSERT_CUDA_OK(cudaStreamCreate(&stream));
    cudaGraph_t graph;
    ASSERT_CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    racy_store<<<1, 32, 0, stream>>>(out);
    ASSERT_CUDA_OK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec;
    ASSERT_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    EXPECT_EXIT(
        {
            setenv("EMU_RACECHECK", "1", 1);
            cudaGraphLaunch(exec, stream);
            std::exit(0);
        },
        ::testing::ExitedWithCode(LAB_EXIT_RACE), "data race on global memory out\\[...\\].*kernel racy_store");
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
    cudaFree(out);
}

// ---- AddressSanitizer sees a graph's kernels too (built with ASan: tests/emu/asan/graph_overflow.cu).
TEST(GraphsAddressSanitizer, AnOverflowInACapturedKernelIsReportedAtItsLine)
{
    const std::string program = "graph_overflow";
    const std::string source = std::string(EMU_REPO_ROOT) + "/tests/emu/asan/" + program + ".cu";
    FILE *file = fopen(source.c_str(), "r");
    ASSERT_NE(nullptr, file) << source;
    char text[512];
    int line = 0, planted = -1;
    while (fgets(text, sizeof text, file)) {
        ++line;
        if (strstr(text, "PLANTED")) planted = line;
    }
    fclose(file);
    CommandResult run = run_command(std::string(EMU_TEST_PROGRAMS) + "/asan/" + program);
    EXPECT_NE(0, run.status) << run.output;
    EXPECT_NE(std::string::npos, run.output.find("captured; launching")) << run.output;  // not at capture
    EXPECT_NE(std::string::npos, run.output.find("ERROR: AddressSanitizer: heap-buffer-overflow")) << run.output;
    const std::string location = "tests/emu/asan/" + program + ".cu:" + std::to_string(planted);
    EXPECT_NE(std::string::npos, run.output.find(location)) << "expected " << location << " in:\n" << run.output;
    EXPECT_EQ(std::string::npos, run.output.find("finished without a report"));
}

TEST(Graphs, QueriesEditsDisabledNodesAndADotFile)
{
    int *device;
    ASSERT_CUDA_OK(cudaMalloc(&device, sizeof(int)));
    ASSERT_CUDA_OK(cudaMemset(device, 0, sizeof(int)));
    cudaGraph_t graph;
    ASSERT_CUDA_OK(cudaGraphCreate(&graph, 0));
    cudaGraphNode_t first, second, extra;
    int one = 1, *device_arg = device;
    void *args[] = {&device_arg, &one};
    cudaKernelNodeParams kernel = {};
    kernel.func = (void *)add_to;
    kernel.gridDim = kernel.blockDim = dim3(1);
    kernel.kernelParams = args;
    ASSERT_CUDA_OK(cudaGraphAddKernelNode(&first, graph, nullptr, 0, &kernel));
    ASSERT_CUDA_OK(cudaGraphAddKernelNode(&second, graph, &first, 1, &kernel));
    ASSERT_CUDA_OK(cudaGraphAddEmptyNode(&extra, graph, &second, 1));
    size_t edges = 0;
    ASSERT_CUDA_OK(cudaGraphGetEdges(graph, nullptr, nullptr, &edges));
    EXPECT_EQ(2u, edges);
    cudaGraphNode_t dependents[2];
    size_t count = 2;
    ASSERT_CUDA_OK(cudaGraphNodeGetDependentNodes(first, dependents, &count));
    ASSERT_EQ(1u, count);
    EXPECT_EQ(second, dependents[0]);
    ASSERT_CUDA_OK(cudaGraphDestroyNode(extra));
    ASSERT_CUDA_OK(cudaGraphGetEdges(graph, nullptr, nullptr, &edges));
    EXPECT_EQ(1u, edges);
    cudaKernelNodeParams back;
    EXPECT_EQ(cudaErrorNotSupported, cudaGraphKernelNodeGetParams(first, &back));  // says what it cannot give
    EXPECT_EQ((void *)add_to, back.func);
    cudaGetLastError();
    const std::string dot = ::testing::TempDir() + "graph.dot";
    ASSERT_CUDA_OK(cudaGraphDebugDotPrint(graph, dot.c_str(), 0));
    CommandResult cat = run_command("cat " + dot);
    EXPECT_NE(std::string::npos, cat.output.find("\"n0\" -> \"n1\"")) << cat.output;
    EXPECT_NE(std::string::npos, cat.output.find("add_to")) << cat.output;

    cudaGraphExec_t exec;
    ASSERT_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    ASSERT_CUDA_OK(cudaGraphNodeSetEnabled(exec, second, 0));
    ASSERT_CUDA_OK(cudaGraphLaunch(exec, 0));
    int got = 0;
    ASSERT_CUDA_OK(cudaMemcpy(&got, device, sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT_EQ(1, got);  // the disabled node did not run
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaFree(device);
}
