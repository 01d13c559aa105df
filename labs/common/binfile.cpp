#include "binfile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <sys/stat.h>

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

void write_binary_file(const std::string &path, const void *data, size_t bytes)
{
    FILE *file = std::fopen(path.c_str(), "wb");
    if (!file)
        throw LabError(system_error("cannot create output file", path));
    size_t written = bytes ? std::fwrite(data, 1, bytes, file) : 0;
    bool closed = std::fclose(file) == 0;
    if (written != bytes || !closed)
        throw LabError(system_error("cannot write output file", path) + " (wrote " +
                       std::to_string(written) + " of " + std::to_string(bytes) + " bytes)");
}
