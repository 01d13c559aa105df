#include "binfile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab_error.h"

static std::string system_error(const std::string &what, const std::string &path)
{
    return what + " '" + path + "': " + std::strerror(errno);
}

BinaryFile::BinaryFile(const std::string &path) : path_(path)
{
    FILE *file = std::fopen(path.c_str(), "rb");
    if (!file)
        throw LabError(system_error("cannot open input file", path));
    struct stat info;
    if (fstat(fileno(file), &info) != 0 || !S_ISREG(info.st_mode)) {
        std::fclose(file);
        throw LabError("cannot read input file '" + path + "': not a regular file");
    }
    bytes_.resize(static_cast<size_t>(info.st_size));
    size_t got = bytes_.empty() ? 0 : std::fread(bytes_.data(), 1, bytes_.size(), file);
    std::fclose(file);
    if (got != bytes_.size())
        throw LabError("cannot read input file '" + path + "': read " + std::to_string(got) +
                       " of " + std::to_string(bytes_.size()) + " bytes");
}

int32_t BinaryFile::next_i32(const char *what)
{
    return *next_i32_array(1, what);
}

const int32_t *BinaryFile::next_i32_array(size_t count, const char *what)
{
    size_t need = count * sizeof(int32_t);
    if (remaining() < need)
        throw LabError("input file '" + path_ + "' is truncated: " + what + " needs " +
                       std::to_string(need) + " bytes at offset " + std::to_string(offset_) +
                       ", but the file has " + std::to_string(bytes_.size()) + " bytes");
    // The kit's formats are little-endian int32, as are the machines it runs on.
    const int32_t *values = reinterpret_cast<const int32_t *>(bytes_.data() + offset_);
    offset_ += need;
    return values;
}

void write_all(int fd, const void *data, size_t bytes, const std::string &path)
{
    const char *from = static_cast<const char *>(data);
    size_t written = 0;
    while (written < bytes) {
        ssize_t wrote = write(fd, from + written, bytes - written);
        if (wrote < 0 && errno == EINTR)
            continue;
        if (wrote <= 0)
            throw LabError(system_error("cannot write output file", path) + " (wrote " +
                           std::to_string(written) + " of " + std::to_string(bytes) + " bytes)");
        written += static_cast<size_t>(wrote);
    }
}

void write_binary_file(const std::string &path, const void *data, size_t bytes)
{
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0)
        throw LabError(system_error("cannot create output file", path));
    try {
        write_all(fd, data, bytes, path);
    } catch (...) {
        close(fd);
        throw;
    }
    if (close(fd) != 0)
        throw LabError(system_error("cannot write output file", path) + " (wrote " +
                       std::to_string(bytes) + " of " + std::to_string(bytes) + " bytes)");
}
