#include "reports/findings.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace cudaemu {
namespace {
std::string json_string(const char *text)
{
    std::string out = "\"";
    for (const char *c = text; *c; ++c) {
        if (*c == '"' || *c == '\\') {
            out += '\\';
            out += *c;
        } else if (static_cast<unsigned char>(*c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", *c);
            out += escaped;
        } else {
            out += *c;
        }
    }
    return out + "\"";
}
}  // namespace

void record_finding(const char *kind, const char *text, const char *error)
{
    const char *path = std::getenv("EMU_FINDINGS");
    if (!path || !*path) return;
    std::string line = "{\"source\": \"emulator\", \"kind\": " + json_string(kind);
    if (error) line += ", \"error\": " + json_string(error);
    line += ", \"text\": " + json_string(text) + "}\n";
    // O_APPEND and one write: records from several threads never interleave.
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return;  // nowhere to write: the stderr message still says it
    ssize_t written = write(fd, line.data(), line.size());
    (void)written;
    close(fd);
}
}  // namespace cudaemu
