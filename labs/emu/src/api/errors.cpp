// Error names and strings (CUDA 13's own, in error_table.inc) and the last-error state.
#include <atomic>
#include <cstdarg>
#include <cstdio>

#include "api/api_errors.h"
#include "engine/block_runner.h"
#include "reports/diagnostics.h"
#include "reports/findings.h"

namespace cudaemu {
namespace {
struct ErrorText {
    cudaError_t code;
    const char *name;
    const char *text;
};
const ErrorText kErrors[] = {
#include "api/error_table.inc"
};

const ErrorText *find(cudaError_t error)
{
    for (const ErrorText &entry : kErrors)
        if (entry.code == error) return &entry;
    return nullptr;
}

// Per CPU thread, as in CUDA 12 and later. Device code (a launch from a kernel) has its own,
// which the host never sees: per CPU thread too, so shared by the CUDA threads it runs
// (**approximation**: on a GPU each CUDA thread has one).
thread_local cudaError_t tls_last_error = cudaSuccess;
thread_local cudaError_t tls_device_last_error = cudaSuccess;

cudaError_t &last_error() { return BlockRunner::running_kernel() ? tls_device_last_error : tls_last_error; }
std::atomic<int> sticky{cudaSuccess};
}  // namespace

void set_sticky_error(cudaError_t error)
{
    int none = cudaSuccess;
    sticky.compare_exchange_strong(none, (int)error);
}

cudaError_t sticky_error() { return (cudaError_t)sticky.load(std::memory_order_relaxed); }

cudaError_t record_error(cudaError_t error)
{
    if (error != cudaSuccess) last_error() = error;
    return error;
}

cudaError_t fail(cudaError_t error, const char *format, ...)
{
    char text[1024];
    va_list args;
    va_start(args, format);
    std::vsnprintf(text, sizeof text, format, args);
    va_end(args);
    warn("%s [%s: %s]", text, cudaGetErrorName(error), cudaGetErrorString(error));
    record_finding("cuda_error", text, cudaGetErrorName(error));
    return record_error(error);
}

}  // namespace cudaemu

extern "C" {

cudaError_t cudaGetLastError(void)
{
    if (cudaError_t sticky = cudaemu::sticky_error()) return sticky;
    cudaError_t error = cudaemu::last_error();
    cudaemu::last_error() = cudaSuccess;
    return error;
}

cudaError_t cudaPeekAtLastError(void)
{
    if (cudaError_t sticky = cudaemu::sticky_error()) return sticky;
    return cudaemu::last_error();
}

const char *cudaGetErrorString(cudaError_t error)
{
    const cudaemu::ErrorText *entry = cudaemu::find(error);
    return entry ? entry->text : "unrecognized error code";
}

const char *cudaGetErrorName(cudaError_t error)
{
    const cudaemu::ErrorText *entry = cudaemu::find(error);
    return entry ? entry->name : "unrecognized error code";
}

}  // extern "C"
