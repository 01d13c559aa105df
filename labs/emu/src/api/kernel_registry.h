// What the runtime knows about each kernel, by address: its name and a launcher that knows
// its parameter types (both from the rewriter's registration), the attributes set with
// cudaFuncSetAttribute, and the static shared memory its blocks were seen to use.
#pragma once

#include <cstddef>
#include <string>

#include "cuda_runtime.h"

namespace cudaemu {

struct KernelInfo {
    std::string name;                 // empty when never registered
    ArrayLauncher launcher = nullptr;
    int max_dynamic_shared = -1;      // cudaFuncAttributeMaxDynamicSharedMemorySize, -1 when unset
    int preferred_carveout = -1;
    std::size_t static_shared = 0;    // static __shared__ bytes, once a launch has run
    bool static_shared_known = false;
};

// A copy of the kernel's entry (a default one when the kernel is unknown).
KernelInfo kernel_info(const void *kernel);
// Applies `update` to the kernel's entry, creating it if needed, under the registry's lock.
template <class Update>
void update_kernel_info(const void *kernel, Update update);

void update_kernel_info_impl(const void *kernel, void (*apply)(KernelInfo &, const void *), const void *context);
template <class Update>
void update_kernel_info(const void *kernel, Update update)
{
    update_kernel_info_impl(
        kernel, [](KernelInfo &info, const void *context) { (*static_cast<const Update *>(context))(info); },
        &update);
}

// The largest dynamic shared memory a launch of this kernel may ask for.
std::size_t dynamic_shared_limit(const KernelInfo &info);

}  // namespace cudaemu
