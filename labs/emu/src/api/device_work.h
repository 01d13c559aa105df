// The order of work on the emulated devices. Work runs in the host thread that issues it, so
// one host thread's work is in order by itself; what needs ordering is work issued by several
// host threads (a thread per GPU, as the multi-GPU lab does). On a GPU a kernel is pending
// work of its device, and a copy into or out of a device's memory waits for the work pending
// on that device (cudaMemcpyPeer: on both devices). Here a kernel holds its device while it
// runs, and a copy or fill holds every device whose memory it touches, so a copy from device
// 1's memory issued by the thread of device 0 waits for device 1's kernel to finish instead
// of reading half-written results.
#pragma once

namespace cudaemu {
class DeviceWork {
public:
    // Holds `device` (-1: none) until destroyed.
    explicit DeviceWork(int device) : DeviceWork(device, -1) {}
    // Holds the devices of the memory at `dst` and `src` (host memory holds none); both are
    // taken in device order, so that two copies never wait for each other.
    DeviceWork(const void *dst, const void *src);
    DeviceWork(int first, int second);
    ~DeviceWork();
    DeviceWork(const DeviceWork &) = delete;
    DeviceWork &operator=(const DeviceWork &) = delete;

private:
    int held_[2] = {-1, -1};
};
}  // namespace cudaemu
