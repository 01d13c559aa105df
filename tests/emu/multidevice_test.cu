// Several emulated devices (CUDA_EMU_DEVICES), the current device per CPU thread, and peer
// access and copies between devices, as the multi-GPU lab uses them.
#include <thread>

#include "emu_test_util.h"

// This test binary emulates three devices unless told otherwise; the runtime reads the
// variable at its first call, which comes after every static initializer.
static const int kDevicesSet = setenv("CUDA_EMU_DEVICES", "3", 0);

__global__ void add_device_number(int *data, int device)
{
    data[threadIdx.x] += device;
}

__global__ void add_everywhere(int *data, int value)
{
    data[blockIdx.x * blockDim.x + threadIdx.x] += value;
}

TEST(MultiDevice, CountPropertiesAndCurrentDevice)
{
    int count = 0;
    ASSERT_CUDA_OK(cudaGetDeviceCount(&count));
    ASSERT_EQ(3, count);
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp prop;
        ASSERT_CUDA_OK(cudaGetDeviceProperties(&prop, d));
        EXPECT_STREQ("CPU emulation", prop.name);
        EXPECT_EQ(d, prop.pciBusID);
    }
    EXPECT_EQ(cudaErrorInvalidDevice, cudaSetDevice(3));
    cudaGetLastError();
    ASSERT_CUDA_OK(cudaSetDevice(2));
    int current = -1;
    ASSERT_CUDA_OK(cudaGetDevice(&current));
    EXPECT_EQ(2, current);
    std::thread other([] {
        int seen = -1;
        cudaGetDevice(&seen);
        EXPECT_EQ(0, seen) << "the current device is per CPU thread";
    });
    other.join();
    ASSERT_CUDA_OK(cudaSetDevice(0));
}

TEST(MultiDevice, PeerAccessAndPeerCopies)
{
    int can = -1;
    ASSERT_CUDA_OK(cudaDeviceCanAccessPeer(&can, 0, 1));
    EXPECT_EQ(1, can);
    ASSERT_CUDA_OK(cudaDeviceCanAccessPeer(&can, 1, 1));
    EXPECT_EQ(0, can);

    const int n = 64;
    std::vector<int> host(n);
    for (int i = 0; i < n; ++i) host[i] = i;
    int *on[2] = {nullptr, nullptr};
    for (int d = 0; d < 2; ++d) {
        ASSERT_CUDA_OK(cudaSetDevice(d));
        ASSERT_CUDA_OK(cudaMalloc(&on[d], n * sizeof(int)));
        ASSERT_CUDA_OK(cudaDeviceEnablePeerAccess(1 - d, 0));
        EXPECT_EQ(cudaErrorPeerAccessAlreadyEnabled, cudaDeviceEnablePeerAccess(1 - d, 0));
        EXPECT_EQ(cudaErrorPeerAccessAlreadyEnabled, cudaGetLastError());
    }
    cudaPointerAttributes attributes;
    ASSERT_CUDA_OK(cudaPointerGetAttributes(&attributes, on[1]));
    EXPECT_EQ(cudaMemoryTypeDevice, attributes.type);
    EXPECT_EQ(1, attributes.device);

    ASSERT_CUDA_OK(cudaSetDevice(0));
    ASSERT_CUDA_OK(cudaMemcpy(on[0], host.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    add_device_number<<<1, n>>>(on[0], 0);
    ASSERT_CUDA_OK(cudaMemcpyPeer(on[1], 1, on[0], 0, n * sizeof(int)));
    ASSERT_CUDA_OK(cudaSetDevice(1));
    add_device_number<<<1, n>>>(on[1], 100);
    cudaStream_t stream;
    ASSERT_CUDA_OK(cudaStreamCreate(&stream));
    ASSERT_CUDA_OK(cudaMemcpyPeerAsync(on[0], 0, on[1], 1, n * sizeof(int), stream));
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
    ASSERT_CUDA_OK(cudaStreamDestroy(stream));
    std::vector<int> back(n);
    ASSERT_CUDA_OK(cudaMemcpy(back.data(), on[0], n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT_EQ(i + 100, back[i]);

    EXPECT_EQ(cudaErrorInvalidDevice, cudaMemcpyPeer(on[1], 7, on[0], 0, 4));
    ASSERT_CUDA_OK(cudaDeviceDisablePeerAccess(0));
    EXPECT_EQ(cudaErrorPeerAccessNotEnabled, cudaDeviceDisablePeerAccess(0));
    cudaGetLastError();
    for (int d = 0; d < 2; ++d) {
        ASSERT_CUDA_OK(cudaSetDevice(d));
        cudaDeviceDisablePeerAccess(1 - d);
        ASSERT_CUDA_OK(cudaFree(on[d]));
    }
    cudaGetLastError();
    ASSERT_CUDA_OK(cudaSetDevice(0));
}

// CUDA_EMU_PEER_ACCESS=0 emulates GPUs that cannot reach each other's memory: no peer access,
// and cudaMemcpyPeer still works (CUDA stages it). True when every step went as CUDA's would.
static bool devices_without_peer_access_behave()
{
    setenv("CUDA_EMU_PEER_ACCESS", "0", 1);
    setenv("EMU_QUIET", "1", 1);
    int can = -1;
    bool right = cudaDeviceCanAccessPeer(&can, 0, 1) == cudaSuccess && can == 0;
    right = right && cudaDeviceEnablePeerAccess(1, 0) == cudaErrorPeerAccessUnsupported;
    cudaGetLastError();
    int *on[2] = {nullptr, nullptr};
    int value = 42, back = 0;
    for (int d = 0; d < 2; ++d)
        right = right && cudaSetDevice(d) == cudaSuccess && cudaMalloc(&on[d], sizeof(int)) == cudaSuccess;
    right = right && cudaMemcpy(on[0], &value, sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess;
    right = right && cudaMemcpyPeer(on[1], 1, on[0], 0, sizeof(int)) == cudaSuccess;
    right = right && cudaMemcpy(&back, on[1], sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess;
    return right && back == value;
}

// The runtime reads the variable once, so the check runs in a fresh process (a threadsafe death
// test re-executes this binary).
TEST(MultiDevice, WithoutPeerAccessCopiesStillWork)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(std::exit(devices_without_peer_access_behave() ? 0 : 1), ::testing::ExitedWithCode(0), "");
}

TEST(MultiDevice, OneHostThreadPerDeviceLaunchingAtOnce)
{
    // The multi-GPU lab's shape: a CPU thread per device, each launching on its own device.
    const int n = 1 << 16;
    int *data[3] = {nullptr, nullptr, nullptr};
    std::vector<std::thread> threads;
    for (int d = 0; d < 3; ++d)
        threads.emplace_back([d, &data] {
            cudaSetDevice(d);
            cudaMalloc(&data[d], n * sizeof(int));
            cudaMemset(data[d], 0, n * sizeof(int));
            for (int repeat = 0; repeat < 10; ++repeat) add_everywhere<<<n / 256, 256>>>(data[d], d + 1);
            cudaDeviceSynchronize();
        });
    for (std::thread &thread : threads) thread.join();
    for (int d = 0; d < 3; ++d) {
        std::vector<int> back(n);
        ASSERT_CUDA_OK(cudaMemcpy(back.data(), data[d], n * sizeof(int), cudaMemcpyDeviceToHost));
        EXPECT_EQ(10 * (d + 1), back[n - 1]);
        ASSERT_CUDA_OK(cudaSetDevice(d));
        ASSERT_CUDA_OK(cudaFree(data[d]));
    }
    ASSERT_CUDA_OK(cudaSetDevice(0));
}

// Thread 0 of block 0 says it has started, then sleeps before any thread stores `value`: a
// copy issued meanwhile from another host thread would read the old contents.
__global__ void announce_then_fill(int *out, int value, int *started)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        __atomic_store_n(started, 1, __ATOMIC_SEQ_CST);
        __nanosleep(100 * 1000 * 1000);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

// As on a GPU, a copy into or out of a device's memory waits for the work pending on that
// device, even when another host thread (the one per GPU of the multi-GPU lab) issued it.
TEST(MultiDevice, CopiesWaitForKernelsRunningOnTheDevicesTheyTouch)
{
    const int n = 256;
    for (int peer = 0; peer < 2; ++peer) {
        int *on_device1 = nullptr, *on_device0 = nullptr;
        ASSERT_CUDA_OK(cudaSetDevice(1));
        ASSERT_CUDA_OK(cudaMalloc(&on_device1, n * sizeof(int)));
        ASSERT_CUDA_OK(cudaMemset(on_device1, 0, n * sizeof(int)));
        ASSERT_CUDA_OK(cudaSetDevice(0));
        ASSERT_CUDA_OK(cudaMalloc(&on_device0, n * sizeof(int)));
        int started = 0;
        std::thread device1_thread([&] {
            cudaSetDevice(1);
            announce_then_fill<<<2, n / 2>>>(on_device1, 7, &started);
        });
        while (!__atomic_load_n(&started, __ATOMIC_SEQ_CST)) std::this_thread::yield();
        std::vector<int> seen(n);
        if (peer) {  // device 0's thread pulls device 1's results into its own memory
            ASSERT_CUDA_OK(cudaMemcpyPeer(on_device0, 0, on_device1, 1, n * sizeof(int)));
            ASSERT_CUDA_OK(cudaMemcpy(seen.data(), on_device0, n * sizeof(int), cudaMemcpyDeviceToHost));
        } else {
            ASSERT_CUDA_OK(cudaMemcpy(seen.data(), on_device1, n * sizeof(int), cudaMemcpyDeviceToHost));
        }
        device1_thread.join();
        EXPECT_EQ(std::vector<int>(n, 7), seen) << (peer ? "cudaMemcpyPeer" : "cudaMemcpy");
        cudaFree(on_device0);
        cudaFree(on_device1);
    }
}

TEST(MultiDevice, DeviceSynchronizeWaitsForAnotherThreadsKernel)
{
    const int n = 64;
    int *on_device1 = nullptr, started = 0;
    ASSERT_CUDA_OK(cudaSetDevice(1));
    ASSERT_CUDA_OK(cudaMallocManaged(&on_device1, n * sizeof(int)));
    on_device1[n - 1] = 0;
    std::thread device1_thread([&] {
        cudaSetDevice(1);
        announce_then_fill<<<1, n>>>(on_device1, 9, &started);
    });
    while (!__atomic_load_n(&started, __ATOMIC_SEQ_CST)) std::this_thread::yield();
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    EXPECT_EQ(9, __atomic_load_n(&on_device1[n - 1], __ATOMIC_SEQ_CST));
    device1_thread.join();
    cudaFree(on_device1);
    cudaSetDevice(0);
}
