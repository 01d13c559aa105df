#include "reports/diagnostics.h"
#include "reports/findings.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace cudaemu {
namespace {
void print(const char *format, va_list args)
{
    // One fprintf per message, so messages from several CPU threads do not interleave.
    char text[2048];
    std::vsnprintf(text, sizeof text, format, args);
    std::fprintf(stderr, "cuda-emu: %s\n", text);
}
}  // namespace

void warn(const char *format, ...)
{
    static const bool quiet = [] {
        const char *setting = std::getenv("EMU_QUIET");
        return setting && *setting && std::string(setting) != "0";
    }();
    if (quiet) return;
    va_list args;
    va_start(args, format);
    print(format, args);
    va_end(args);
}

void fatal(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char text[2048];
    std::vsnprintf(text, sizeof text, format, args);
    va_end(args);
    record_finding("fatal", text);
    std::fprintf(stderr, "cuda-emu: %s\n", text);
    std::fflush(stderr);
    std::abort();
}
}  // namespace cudaemu
