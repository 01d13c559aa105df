// Whole-file binary I/O for inputs and outputs. A file is read with one large read and written
// in one pass (I/O is part of a lab's measured time). Errors name the file and what is wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// The bytes of a file, with a cursor for reading little-endian int32 fields in order.
class BinaryFile {
public:
    explicit BinaryFile(const std::string &path);  // throws LabError: missing or unreadable

    // Next int32; `what` names the field in the error if the file ends first.
    int32_t next_i32(const char *what);
    // Requires exactly `count` int32 values left, for arrays whose length a header gave.
    const int32_t *next_i32_array(size_t count, const char *what);
    size_t size() const { return bytes_.size(); }
    size_t remaining() const { return bytes_.size() - offset_; }
    const std::string &path() const { return path_; }

private:
    std::string path_;
    std::vector<unsigned char> bytes_;
    size_t offset_ = 0;
};

// Writes `bytes` bytes to `path` in one pass; throws LabError on failure (disk full, bad path).
void write_binary_file(const std::string &path, const void *data, size_t bytes);

// Writes all `bytes` to the open file `fd`, whatever size the system's writes take at a time;
// throws LabError naming `path` and how much was written.
void write_all(int fd, const void *data, size_t bytes, const std::string &path);
