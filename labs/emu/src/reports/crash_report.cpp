#include "reports/crash_report.h"

#include <signal.h>
#include <ucontext.h>
#include <string.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>

#include "engine/asan.h"
#include "engine/block_runner.h"
#include "settings.h"

namespace cudaemu {
namespace {
constexpr std::size_t kSignalStackBytes = 64 * 1024;
struct sigaction previous_actions[3];
const int handled_signals[3] = {SIGSEGV, SIGBUS, SIGFPE};

// Async-signal-safe output: write(2) of pieces, numbers formatted by hand.
void put(const char *text) { (void)!write(STDERR_FILENO, text, strlen(text)); }
void put_number(unsigned long long value, int base = 10)
{
    char digits[32];
    int n = 0;
    do {
        digits[n++] = "0123456789abcdef"[value % base];
        value /= base;
    } while (value);
    char text[34];
    int k = 0;
    if (base == 16) {
        text[k++] = '0';
        text[k++] = 'x';
    }
    while (n) text[k++] = digits[--n];
    text[k] = '\0';
    put(text);
}
void put_triple(const uint3 &v)
{
    put("(");
    put_number(v.x);
    put(",");
    put_number(v.y);
    put(",");
    put_number(v.z);
    put(")");
}

// The stack pointer when the signal came (null where this port does not know how to read it).
const void *stack_pointer_of(void *context)
{
    const ucontext_t *uc = static_cast<const ucontext_t *>(context);
#if defined(__x86_64__)
    return reinterpret_cast<const void *>(uc->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
    return reinterpret_cast<const void *>(uc->uc_mcontext.sp);
#else
    (void)uc;
    return nullptr;
#endif
}

void on_crash(int signal_number, siginfo_t *info, void *context)
{
    BlockRunner *runner = BlockRunner::running_kernel();
    uint3 thread_index;
    if (runner && runner->current_thread_index(&thread_index)) {
        const GridRun *grid = runner->grid();
        put("cuda-emu: kernel ");
        put(grid->kernel_name);
        if (grid->line > 0) {
            put(" (launched at ");
            put(grid->file);
            put(":");
            put_number((unsigned long long)grid->line);
            put(")");
        }
        put(" crashed in thread ");
        put_triple(thread_index);
        put(" of block ");
        put_triple(blockIdx);
        if (signal_number == SIGFPE) {
            put(": arithmetic trap (integer division by zero?). A GPU does not trap there, but the result is "
                "meaningless; fix the division.\n");
        } else if (runner->stack_overflowed(info->si_addr, stack_pointer_of(context))) {
            put(": it overflowed its stack (large local arrays or deep recursion). Raise EMU_STACK_KB (now ");
            put_number(fiber_stack_bytes() / 1024);
            put(") or make the arrays smaller or __shared__.\n");
        } else {
            put(": invalid memory access at address ");
            put_number((unsigned long long)(uintptr_t)info->si_addr, 16);
            put(". On a GPU this is an illegal address error. Rebuild with ASAN=1 to see the source line and "
                "the array it overran, or run under gdb (see handouts/emulation.md).\n");
        }
    }
    // Let the signal take its previous course: restore that handler and return, so that the
    // faulting instruction runs again under it.
    for (int i = 0; i < 3; ++i)
        if (handled_signals[i] == signal_number) sigaction(signal_number, &previous_actions[i], nullptr);
}
}  // namespace

#if CUDAEMU_ASAN
// AddressSanitizer reports the access itself; this adds which kernel thread made it, and
// what an address in shared memory means.
void asan_death_note()
{
    BlockRunner *runner = BlockRunner::running_kernel();
    uint3 thread_index;
    if (!runner || !runner->current_thread_index(&thread_index)) return;
    const GridRun *grid = runner->grid();
    bool in_shared = runner->arena().contains(__asan_get_report_address());
    std::fprintf(stderr,
                 "cuda-emu: the error above is in kernel %s%s, thread (%u,%u,%u) of block (%u,%u,%u)%s\n",
                 grid->kernel_name, grid->launch_site().c_str(), thread_index.x, thread_index.y, thread_index.z,
                 blockIdx.x, blockIdx.y, blockIdx.z,
                 in_shared ? ". The address is in the block's shared memory: past the end of a __shared__ array, "
                             "or of the dynamic shared memory the launch asked for"
                           : "");
}
#endif

void prepare_crash_report_for_this_thread(std::unique_ptr<char[]> &stack)
{
#if CUDAEMU_ASAN
    static std::once_flag noted;
    std::call_once(noted, [] { __sanitizer_set_death_callback(&asan_death_note); });
    (void)stack;
    return;
#endif
    stack.reset(new char[kSignalStackBytes]);
    stack_t alternate{};
    alternate.ss_sp = stack.get();
    alternate.ss_size = kSignalStackBytes;
    sigaltstack(&alternate, nullptr);

    static std::once_flag installed;
    std::call_once(installed, [] {
        struct sigaction action{};
        action.sa_sigaction = &on_crash;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        for (int i = 0; i < 3; ++i) sigaction(handled_signals[i], &action, &previous_actions[i]);
    });
}

}  // namespace cudaemu
