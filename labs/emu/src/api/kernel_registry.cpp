#include "api/kernel_registry.h"

#include <mutex>
#include <unordered_map>

#include "engine/device_limits.h"

namespace cudaemu {
namespace {
std::mutex &registry_mutex()
{
    static std::mutex mutex;
    return mutex;
}
// Filled by static initializers (the rewriter's registrations), hence a function-local static.
std::unordered_map<const void *, KernelInfo> &registry()
{
    static std::unordered_map<const void *, KernelInfo> kernels;
    return kernels;
}
}  // namespace

KernelInfo kernel_info(const void *kernel)
{
    std::lock_guard<std::mutex> lock(registry_mutex());
    auto found = registry().find(kernel);
    return found == registry().end() ? KernelInfo{} : found->second;
}

void update_kernel_info_impl(const void *kernel, void (*apply)(KernelInfo &, const void *), const void *context)
{
    std::lock_guard<std::mutex> lock(registry_mutex());
    apply(registry()[kernel], context);
}

bool register_kernel_launcher(const void *kernel, const char *name, ArrayLauncher launcher)
{
    update_kernel_info(kernel, [&](KernelInfo &info) {
        info.name = name;
        info.launcher = launcher;
    });
    return true;
}

std::size_t dynamic_shared_limit(const KernelInfo &info)
{
    if (info.max_dynamic_shared >= 0) return (std::size_t)info.max_dynamic_shared;
    return info.static_shared < kSharedPerBlock ? kSharedPerBlock - info.static_shared : 0;
}

}  // namespace cudaemu
