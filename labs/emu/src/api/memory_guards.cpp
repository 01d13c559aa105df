#include "api/memory_guards.h"

#include <cstdio>
#include <cstring>
#include <regex>
#include <string>
#include <vector>

#include "api/api_errors.h"
#include "api/devices.h"
#include "api/memory_registry.h"
#include "engine/asan.h"
#include "engine/grid_run.h"

namespace cudaemu {
namespace {
// A kernel's grid overshoots its array by less than a block: at most 1024 threads of up to
// 16 bytes each. Past that the write is more than a missing bounds guard (and ASan finds it).
constexpr std::size_t kGuardAfter = 16 * 1024;

// This process's command line, words quoted where a shell would need it.
std::vector<std::string> command_line()
{
    std::vector<std::string> words;
    FILE *file = std::fopen("/proc/self/cmdline", "rb");
    if (!file) return words;
    std::string word;
    for (int c; (c = std::fgetc(file)) != EOF;) {
        if (c) {
            word += static_cast<char>(c);
        } else {
            words.push_back(word);
            word.clear();
        }
    }
    std::fclose(file);
    for (std::string &w : words)
        if (w.empty() || w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%")
                             != std::string::npos) {
            std::string quoted = "'";
            for (char c : w) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
            w = quoted + "'";
        }
    return words;
}

// What to run to see the line of the write: the same command from the ASan build, when this
// program is one of the kit's builds (build/<flavor>/<lab>/<program>); else the general advice.
std::string asan_advice()
{
    std::vector<std::string> words = command_line();
    std::smatch m;
    static const std::regex kit_program("^(.*)build/(emu-|gpu-)?(starter|solution)(-asan)?/([A-Za-z0-9_]+)/([A-Za-z0-9_]+)$");
    if (!words.empty() && std::regex_match(words[0], m, kit_program)) {
        std::string lab = m[5], rerun = m[1].str() + "build/emu-" + m[3].str() + "-asan/" + lab + "/" + m[6].str();
        for (std::size_t i = 1; i < words.size(); ++i) rerun += " " + words[i];
        return "to see the line that wrote it, run the same command on the AddressSanitizer build: make " + lab +
               " EMU=1 ASAN=1" + (m[3] == "solution" ? " SOL=1" : "") + " && " + rerun + " (make check LAB=" + lab +
               " does this for every case)";
    }
    return "to see the line that wrote it, rebuild with AddressSanitizer (make <lab> EMU=1 ASAN=1) and run the "
           "program from that build (build/emu-...-asan/), or run make check LAB=<lab>";
}
}  // namespace

std::size_t guard_bytes_before(std::size_t alignment) { return CUDAEMU_ASAN ? 0 : alignment; }

std::size_t guard_bytes_after(std::size_t size)
{
    if (CUDAEMU_ASAN) return 0;
    return (size + 255) / 256 * 256 - size + kGuardAfter;  // the rest of the last 256 bytes, then the guard
}

void set_guards(char *start, std::size_t size, std::size_t before, std::size_t after)
{
    std::memset(start - before, kGuardByte, before);
    std::memset(start + size, kGuardByte, after);
}

cudaError_t check_guards_after(const GridRun &grid)
{
    if (CUDAEMU_ASAN) return cudaSuccess;
    std::vector<GuardDamage> damaged = check_guards(current_device());
    if (damaged.empty()) return cudaSuccess;
    std::string where;
    for (const GuardDamage &d : damaged) {
        bool past_end = d.last >= static_cast<long long>(d.allocation.size);
        char text[400];
        std::snprintf(text, sizeof text,
                      "%s%zu bytes %s the %zu-byte device array at %p (bytes %lld..%lld from its start; the array "
                      "is bytes 0..%zu)",
                      where.empty() ? "" : "; ", d.bytes_changed, past_end ? "past the end of" : "before the start of",
                      d.allocation.size, static_cast<const void *>(d.allocation.start), d.first, d.last,
                      d.allocation.size ? d.allocation.size - 1 : 0);
        where += text;
    }
    return fail(cudaErrorIllegalAddress,
                "kernel %s%s wrote outside its arrays: %s. A thread's index went past n (a missing `if (i < n)`?). "
                "On a GPU this corrupts other data or fails as an illegal address; %s",
                grid.kernel_name, grid.launch_site().c_str(), where.c_str(), asan_advice().c_str());
}

}  // namespace cudaemu
