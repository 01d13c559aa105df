#include "settings.h"

#include <cstdlib>
#include <string>
#include <thread>

#include "engine/asan.h"
#include "reports/diagnostics.h"

namespace cudaemu {
namespace {
// A whole number in [low, high] from the environment, or `fallback` when unset.
long number_from_environment(const char *name, long fallback, long low, long high, const char *meaning)
{
    const char *text = std::getenv(name);
    if (!text || !*text) return fallback;
    char *end = nullptr;
    long value = std::strtol(text, &end, 10);
    if (*end != '\0' || value < low || value > high)
        fatal("%s=%s: expected %s, a whole number from %ld to %ld", name, text, meaning, low, high);
    return value;
}
}  // namespace

unsigned int cpu_threads()
{
    static const unsigned int threads = [] {
        unsigned int hardware = std::thread::hardware_concurrency();
        return (unsigned int)number_from_environment("EMU_THREADS", hardware ? hardware : 1, 1, 1024,
                                                     "the number of CPU threads that run blocks");
    }();
    return threads;
}

std::size_t fiber_stack_bytes()
{
    static const std::size_t bytes = (std::size_t)number_from_environment(
        "EMU_STACK_KB", CUDAEMU_ASAN ? 1024 : 256, 16, 1 << 20, "the stack size of a CUDA thread in KiB") * 1024;
    return bytes;
}

// Read at each launch, as EMU_SCHEDULE is, so that a program (or a test) may turn it on midway.
bool racecheck_on()
{
    const char *setting = std::getenv("EMU_RACECHECK");
    return setting && *setting && std::string(setting) != "0";
}

int emulated_device_count()
{
    static const int count =
        (int)number_from_environment("CUDA_EMU_DEVICES", 1, 1, 64, "the number of emulated devices");
    return count;
}

// 0 emulates GPUs that cannot reach each other's memory (as on nodes whose GPUs sit on different
// PCIe root complexes): cudaDeviceCanAccessPeer answers 0, so a multi-GPU program must take its
// other path, through the host.
bool peer_access_between_devices()
{
    static const bool on =
        number_from_environment("CUDA_EMU_PEER_ACCESS", 1, 0, 1, "1 (peer access between devices) or 0 (none)") != 0;
    return on;
}

}  // namespace cudaemu
