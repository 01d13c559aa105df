// Kernel launches. The build's rewriter turns
//     kernel<<<grid, block, shared_bytes, stream>>>(args...);
// into
//     ::cudaemu::launch_kernel(kernel, "kernel", ::cudaemu::LaunchConfig(grid, block, shared_bytes, stream))(args...);
// which, like nvcc's launch, converts the arguments to the kernel's parameter types once,
// checks the configuration, and runs the grid (to completion: launches are synchronous).
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../driver_types.h"
#include "../vector_types.h"

// Where a launch or copy was made from, as data: a translation unit compiled with
// -DCUDAEMU_HARNESS is the trusted harness of the program (the kit's make step passes it to its
// own sources alone); the profile records each launch and copy with its origin ("harness" or
// "program"). Read once, when the rewriter's prelude includes this header before the unit's
// first line; LaunchConfig's default argument and the macros of cuda_runtime.h carry it.
#ifdef CUDAEMU_HARNESS
#define CUDAEMU_SITE_IS_HARNESS true
#else
#define CUDAEMU_SITE_IS_HARNESS false
#endif

namespace cudaemu {

struct LaunchConfig {
    dim3 grid;
    dim3 block;
    std::size_t dynamic_shared_bytes;
    cudaStream_t stream;
    const char *file;  // the launch's source position, for diagnostics
    int line;
    bool harness;      // made from the harness's own code (CUDAEMU_HARNESS), for the profile
    LaunchConfig(dim3 grid_dim, dim3 block_dim, std::size_t shared_bytes = 0, cudaStream_t launch_stream = 0,
                 const char *site_file = __builtin_FILE(), int site_line = __builtin_LINE(),
                 bool site_harness = CUDAEMU_SITE_IS_HARNESS)
        : grid(grid_dim), block(block_dim), dynamic_shared_bytes(shared_bytes), stream(launch_stream),
          file(site_file), line(site_line), harness(site_harness)
    {
    }
};

// One launch as the runtime sees it: a way to run the kernel body for the current thread.
// A graph keeps a launch to run later (stream capture, cudaGraphAddKernelNode): it copies the
// bound arguments with clone_args and frees its copy with destroy_args.
struct KernelCall {
    const void *kernel;        // the kernel's address (the key of its attributes)
    const char *name;          // as written at the launch, for diagnostics
    void (*run_thread)(void *bound_args);
    void *bound_args;
    void *(*clone_args)(const void *bound_args) = nullptr;
    void (*destroy_args)(void *bound_args) = nullptr;
};
template <class Bound>
void *clone_bound(const void *bound)
{
    return new Bound(*static_cast<const Bound *>(bound));
}
template <class Bound>
void destroy_bound(void *bound)
{
    delete static_cast<Bound *>(bound);
}
cudaError_t launch(const LaunchConfig &config, const KernelCall &call, bool cooperative);

// Bound arguments of a kernel with parameter types P..., stored once for all threads.
template <class... P>
struct BoundKernel {
    void (*kernel)(P...);
    std::tuple<std::decay_t<P>...> args;
    static void run(void *self)
    {
        BoundKernel *bound = static_cast<BoundKernel *>(self);
        std::apply(bound->kernel, bound->args);
    }
};

template <class... P>
class TypedLaunch {
public:
    TypedLaunch(void (*kernel)(P...), const char *name, const LaunchConfig &config)
        : kernel_(kernel), name_(name), config_(config)
    {
    }
    void operator()(P... args) const
    {
        BoundKernel<P...> bound{kernel_, std::tuple<std::decay_t<P>...>(args...)};
        launch(config_,
               KernelCall{reinterpret_cast<const void *>(kernel_), name_, &BoundKernel<P...>::run, &bound,
                          &clone_bound<BoundKernel<P...>>, &destroy_bound<BoundKernel<P...>>},
               false);
    }

private:
    void (*kernel_)(P...);
    const char *name_;
    LaunchConfig config_;
};

template <class... P>
inline TypedLaunch<P...> launch_kernel(void (*kernel)(P...), const char *name, const LaunchConfig &config)
{
    return TypedLaunch<P...>(kernel, name, config);
}

// A templated kernel launched without its template arguments (`k<<<g, b>>>(x)` with T
// deduced from x) is called through a lambda `[&](auto &...a) { k(a...); }`, so C++ deduces
// T per call exactly as nvcc does at the launch.
template <class Call, class... A>
struct BoundCall {
    Call call;
    std::tuple<A...> args;
    static void run(void *self)
    {
        BoundCall *bound = static_cast<BoundCall *>(self);
        std::apply(bound->call, bound->args);
    }
};

template <class Call>
class DeducedLaunch {
public:
    DeducedLaunch(const char *name, const LaunchConfig &config, Call call) : name_(name), config_(config), call_(call) {}
    template <class... A>
    void operator()(A &&...args) const
    {
        using Bound = BoundCall<Call, std::decay_t<A>...>;
        Bound bound{call_, std::tuple<std::decay_t<A>...>(std::forward<A>(args)...)};
        // No address names the instantiation; the launch site's own function stands for it.
        launch(config_,
               KernelCall{reinterpret_cast<const void *>(&Bound::run), name_, &Bound::run, &bound, &clone_bound<Bound>,
                          &destroy_bound<Bound>},
               false);
    }

private:
    const char *name_;
    LaunchConfig config_;
    Call call_;
};

template <class Call>
inline DeducedLaunch<Call> launch_deduced(const char *name, const LaunchConfig &config, Call call)
{
    return DeducedLaunch<Call>(name, config, call);
}

// Kernels named only by address (cudaLaunchKernel((void *)k, ...)): the rewriter registers
// each non-template kernel it sees defined, with a launcher that knows its parameter types.
using ArrayLauncher = cudaError_t (*)(const void *kernel, const char *name, const LaunchConfig &config, void **args,
                                     bool cooperative);

template <class... P, std::size_t... I>
inline cudaError_t launch_with_arg_array(void (*kernel)(P...), const char *name, const LaunchConfig &config,
                                         void **args, bool cooperative, std::index_sequence<I...>)
{
    BoundKernel<P...> bound{kernel, std::tuple<std::decay_t<P>...>(*static_cast<std::decay_t<P> *>(args[I])...)};
    return launch(config,
                  KernelCall{reinterpret_cast<const void *>(kernel), name, &BoundKernel<P...>::run, &bound,
                             &clone_bound<BoundKernel<P...>>, &destroy_bound<BoundKernel<P...>>},
                  cooperative);
}

template <class... P>
inline cudaError_t launch_with_arg_array(void (*kernel)(P...), const char *name, const LaunchConfig &config,
                                         void **args, bool cooperative)
{
    return launch_with_arg_array(kernel, name, config, args, cooperative, std::index_sequence_for<P...>{});
}

template <class... P>
cudaError_t erased_array_launcher(const void *kernel, const char *name, const LaunchConfig &config, void **args,
                                  bool cooperative)
{
    return launch_with_arg_array(reinterpret_cast<void (*)(P...)>(const_cast<void *>(kernel)), name, config, args,
                                 cooperative);
}

bool register_kernel_launcher(const void *kernel, const char *name, ArrayLauncher launcher);

template <class... P>
inline bool register_kernel(void (*kernel)(P...), const char *name)
{
    return register_kernel_launcher(reinterpret_cast<const void *>(kernel), name, &erased_array_launcher<P...>);
}

}  // namespace cudaemu
