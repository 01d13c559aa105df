// Dynamic parallelism: kernels launched from device code, as the CUDA programming guide
// (CUDA 12 and later) specifies them: a child grid sees what its parent stored before the
// launch; launches into one stream run in launch order, and a grid is complete only once its
// children are, so the host sees every descendant's work after its own launch completes (stream
// order, events, cudaDeviceSynchronize); nesting is at most 24 deep; a configuration error is
// the launch's result in device code. And the race detector and ASan see a child as any grid.
#include <string>

#include "emu_test_util.h"
#include "exit_codes.h"

__global__ void double_each(int *data)
{
    data[blockIdx.x * blockDim.x + threadIdx.x] *= 2;
}

__global__ void fill_then_launch(int *data, int n, int *launch_errors)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    data[i] = i;  // stored before the launch: the child sees it
    __syncthreads();
    if (threadIdx.x == 0) {
        cudaStream_t stream;
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
        double_each<<<1, blockDim.x, 0, stream>>>(data + blockIdx.x * blockDim.x);
        launch_errors[blockIdx.x] = (int)cudaGetLastError();
        cudaStreamDestroy(stream);
    }
}

TEST(DynamicParallelism, TheHostSeesTheChildrensWorkOnceTheParentsLaunchIsComplete)
{
    const int blocks = 4, threads = 32;
    DeviceArray<int> data(blocks * threads), errors(blocks, 0xff);
    cudaStream_t stream;
    cudaEvent_t done;
    ASSERT_CUDA_OK(cudaStreamCreate(&stream));
    ASSERT_CUDA_OK(cudaEventCreate(&done));
    fill_then_launch<<<blocks, threads, 0, stream>>>(data.get(), blocks * threads, errors.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    ASSERT_CUDA_OK(cudaEventRecord(done, stream));
    ASSERT_CUDA_OK(cudaEventSynchronize(done));
    std::vector<int> host = data.host();
    for (int i = 0; i < blocks * threads; ++i) EXPECT_EQ(2 * i, host[i]) << i;
    for (int e : errors.host()) EXPECT_EQ((int)cudaSuccess, e);
    cudaEventDestroy(done);
    cudaStreamDestroy(stream);
}

// Each grid appends its label when it runs; a grid launches two children per level.
__global__ void tree(int label, int levels, int *order, int *count)
{
    order[atomicAdd(count, 1)] = label;
    if (levels > 1) {
        tree<<<1, 1>>>(label * 10 + 1, levels - 1, order, count);
        tree<<<1, 1>>>(label * 10 + 2, levels - 1, order, count);
    }
}

TEST(DynamicParallelism, LaunchesIntoOneStreamRunInOrderEachAfterItsOwnChildren)
{
    DeviceArray<int> order(7), count(1);
    tree<<<1, 1>>>(1, 3, order.get(), count.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    // The second child starts after the first is complete, grandchildren included.
    EXPECT_EQ((std::vector<int>{1, 11, 111, 112, 12, 121, 122}), order.host());
}

// Launches itself until a launch fails; records the depth of the grid whose launch failed.
__global__ void recurse(int depth, int *failed_at, int *error)
{
    recurse<<<1, 1>>>(depth + 1, failed_at, error);
    cudaError_t launched = cudaGetLastError();
    if (launched != cudaSuccess) {
        *failed_at = depth;
        *error = (int)launched;
    }
}

TEST(DynamicParallelism, NestingStopsAt24LevelsWithLaunchMaxDepthExceeded)
{
    ScopedEnv quiet("EMU_QUIET", "1");
    DeviceArray<int> failed_at(1, 0xff), error(1);
    recurse<<<1, 1>>>(0, failed_at.get(), error.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    EXPECT_EQ(24, failed_at.host()[0]);  // the host's grid is depth 0; depth 24 may not launch
    EXPECT_EQ((int)cudaErrorLaunchMaxDepthExceeded, error.host()[0]);
}

__global__ void launch_badly(int *errors)
{
    double_each<<<1, 2048>>>(errors);  // more than 1024 threads a block
    errors[0] = (int)cudaGetLastError();
    double_each<<<1, 1, 1 << 20>>>(errors);  // more dynamic shared memory than a block may have
    errors[1] = (int)cudaGetLastError();
    errors[2] = (int)cudaDeviceSynchronize();  // removed from device code in CUDA 12
}

TEST(DynamicParallelism, ABadLaunchFromDeviceCodeFailsThereAndRunsNothing)
{
    ScopedEnv quiet("EMU_QUIET", "1");
    DeviceArray<int> errors(3);
    launch_badly<<<1, 1>>>(errors.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    std::vector<int> host = errors.host();
    EXPECT_EQ((int)cudaErrorInvalidConfiguration, host[0]);
    EXPECT_EQ((int)cudaErrorInvalidValue, host[1]);
    EXPECT_EQ((int)cudaErrorNotSupported, host[2]);
    EXPECT_CUDA_OK(cudaGetLastError());  // device code's errors are not the host's
}

__global__ void store_thread_index(int *out)
{
    out[0] = threadIdx.x;  // every thread, a different value: a race
}

__global__ void launch_racy_child(int *out)
{
    store_thread_index<<<1, 2>>>(out);
}

TEST(DynamicParallelism, TheRaceDetectorSeesAChildGrid)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            setenv("EMU_RACECHECK", "1", 1);
            int *out;
            cudaMalloc(&out, sizeof(int));
            launch_racy_child<<<1, 1>>>(out);
            cudaDeviceSynchronize();
            std::exit(0);
        },
        ::testing::ExitedWithCode(LAB_EXIT_RACE), "data race on global memory out.*kernel store_thread_index");
}

TEST(DynamicParallelism, AddressSanitizerSeesAChildGrid)
{
    const std::string program = "child_overflow";
    CommandResult run = run_command(std::string(EMU_TEST_PROGRAMS) + "/asan/" + program);
    EXPECT_NE(0, run.status) << run.output;
    EXPECT_NE(std::string::npos, run.output.find("ERROR: AddressSanitizer: heap-buffer-overflow")) << run.output;
    EXPECT_NE(std::string::npos, run.output.find("tests/emu/asan/child_overflow.cu:8")) << run.output;
}
