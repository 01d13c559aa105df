// When a kernel crashes (SIGSEGV, SIGBUS, SIGFPE), say which kernel, block and thread, and
// whether it overflowed its fiber stack, before the signal takes its usual course. Not under
// AddressSanitizer, which reports crashes itself, with the source line.
#pragma once

#include <memory>

namespace cudaemu {
// Gives the calling CPU thread an alternate signal stack (kept in `stack`), and installs the
// handlers once per process.
void prepare_crash_report_for_this_thread(std::unique_ptr<char[]> &stack);
}  // namespace cudaemu
