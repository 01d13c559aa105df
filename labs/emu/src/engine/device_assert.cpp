// assert() in a kernel, as on a GPU: the failing thread prints
//   file:line: function: block: [x,y,z], thread: [x,y,z] Assertion `cond` failed.
// and stops; the other threads go on, and the kernel's launch then fails with
// cudaErrorAssert ("device-side assert triggered"), which every later synchronizing call
// returns (the context is unusable afterwards on a GPU too). Outside a kernel, assert() is the
// C library's: print and abort.
//
// assert() expands to a call of glibc's __assert_fail; this definition, in the runtime library
// linked before the C library, takes its place.
#include <cstdio>
#include <cstdlib>

#include "api/api_errors.h"
#include "engine/block_runner.h"

extern "C" char *program_invocation_short_name;

extern "C" [[noreturn]] void __assert_fail(const char *assertion, const char *file, unsigned int line,
                                           const char *function) noexcept
{
    cudaemu::BlockRunner *runner = cudaemu::BlockRunner::running_kernel();
    uint3 thread;
    if (runner && runner->current_thread_index(&thread)) {
        std::fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file, line,
                     function, blockIdx.x, blockIdx.y, blockIdx.z, thread.x, thread.y, thread.z, assertion);
        cudaemu::set_sticky_error(cudaErrorAssert);
        runner->exit_running_thread();
    }
    std::fprintf(stderr, "%s: %s:%u: %s: Assertion `%s' failed.\n", program_invocation_short_name, file, line,
                 function, assertion);
    std::abort();
}
