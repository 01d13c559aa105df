#include "engine/fiber.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/asan.h"
#include "reports/diagnostics.h"

namespace cudaemu {
#if !CUDAEMU_FIBER_UCONTEXT
namespace fctx = boost::context::detail;
#endif

namespace {
std::size_t page_bytes()
{
    static const std::size_t bytes = (std::size_t)sysconf(_SC_PAGESIZE);
    return bytes;
}

}  // namespace

thread_local void (*Fiber::starting_entry_)() = nullptr;

#if CUDAEMU_FIBER_UCONTEXT
void fiber_trampoline()
{
    void (*entry)() = Fiber::starting_entry_;
    Fiber::arrive(nullptr);
#else
void fiber_trampoline(fctx::transfer_t transfer)
{
    void (*entry)() = Fiber::starting_entry_;
    Fiber::arrive(transfer, nullptr);
#endif
    entry();
    fatal("internal error: a fiber's entry function returned; please report this with the program that did it");
}

#if CUDAEMU_ASAN
// The CPU thread's own stack, which AddressSanitizer must be told about when we return to it.
void Fiber::native_stack(const void **low, std::size_t *bytes)
{
    thread_local const void *cached_low = nullptr;
    thread_local std::size_t cached_bytes = 0;
    if (!cached_low) {
        pthread_attr_t attr;
        void *address = nullptr;
        std::size_t size = 0;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            pthread_attr_getstack(&attr, &address, &size);
            pthread_attr_destroy(&attr);
        }
        cached_low = address;
        cached_bytes = size;
    }
    *low = cached_low;
    *bytes = cached_bytes;
}
#endif

Fiber::Fiber(std::size_t stack_bytes, std::size_t color_offset)
{
    const std::size_t page = page_bytes();
    std::size_t stack = (stack_bytes + color_offset + page - 1) / page * page;
    mapping_bytes_ = stack + page;  // the lowest page is the guard
    void *mapping = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (mapping == MAP_FAILED)
        fatal("could not map a %zu-byte fiber stack (%s): too many threads waiting at barriers at once, or "
              "EMU_STACK_KB too large for this machine's memory",
              mapping_bytes_, std::strerror(errno));
    mapping_ = static_cast<char *>(mapping);
    mprotect(mapping_, page, PROT_NONE);
    usable_low_ = mapping_ + page;
    // Stacks are page-aligned; starting each at a different offset into its top keeps the hot
    // top-of-stack lines of many fibers from landing in the same cache sets.
    usable_bytes_ = stack - color_offset;
}

Fiber::~Fiber()
{
    if (mapping_) {
        asan_unpoison(mapping_ + page_bytes(), mapping_bytes_ - page_bytes());
        munmap(mapping_, mapping_bytes_);
    }
}

void Fiber::reset(void (*entry)())
{
    entry_ = entry;
#if CUDAEMU_FIBER_UCONTEXT
    getcontext(&ucontext_);
    ucontext_.uc_stack.ss_sp = usable_low_;
    ucontext_.uc_stack.ss_size = usable_bytes_;
    ucontext_.uc_link = nullptr;
    makecontext(&ucontext_, &fiber_trampoline, 0);
#else
    context_ = fctx::make_fcontext(usable_low_ + usable_bytes_, usable_bytes_, &fiber_trampoline);
#endif
}

bool Fiber::overflowed(const void *address, const void *stack_pointer) const
{
    const char *a = static_cast<const char *>(address), *sp = static_cast<const char *>(stack_pointer);
    return mapping_ && ((a >= mapping_ && a < usable_low_) || (sp && sp < usable_low_ && sp > mapping_ - (64 << 20)));
}

}  // namespace cudaemu
