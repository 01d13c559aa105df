// The output file of an apsp program: n * n int32, written as a judge times it, I/O included.
//
// Getting 3.6 GB (n = 30001) into the page cache costs about a second even from many threads
// (the kernel allocates and maps each 4 KB page; measured by scripts/io_costs.cu), and a write()
// pays it at the end, after the solve. So the file is made full-size and mapped when the program
// starts, and one thread populates its pages (MADV_POPULATE_WRITE) while the GPUs compute;
// write() then only copies the matrix into pages that are already there, with every thread.
//
// The results go to OUTPUT.partial, renamed to OUTPUT once complete: a run that fails leaves an
// earlier OUTPUT as it was, and no partial file. An output that is not a regular file
// (/dev/null, a pipe) is written to as it is, in one pass.
#pragma once

#include <cstddef>
#include <string>
#include <thread>

class OutputFile {
public:
    // Creates the file (throws LabError naming it: no such folder, not enough space, ...) and
    // starts populating its pages on a thread of its own.
    OutputFile(const std::string &path, size_t bytes);
    ~OutputFile();  // unfinished: removes OUTPUT.partial
    OutputFile(const OutputFile &) = delete;
    OutputFile &operator=(const OutputFile &) = delete;

    // Writes `data` (the file's `bytes` bytes) and completes the file; throws LabError.
    void write(const void *data);

private:
    void stop_populating();

    std::string path_, partial_path_;  // partial_path_ is empty for a file that is not regular
    size_t bytes_;
    int fd_ = -1;
    char *mapped_ = nullptr;
    std::thread populating_;
    int populate_error_ = 0;  // errno of MADV_POPULATE_WRITE, 0 if it worked or is not supported
};
