#include "output_file.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "binfile.h"
#include "exit_codes.h"
#include "graph_io.h"
#include "lab_error.h"

// The OUTPUT.partial being filled, if any. exit() (a CUDA_CHECK or LAB_TODO in the student's
// code) skips destructors, so an atexit handler removes it then.
static std::string g_unfinished;

static void remove_unfinished()
{
    if (!g_unfinished.empty())
        unlink(g_unfinished.c_str());
}

// A page of a mapped file that the file system cannot back (its disk filled up after the space
// check) raises SIGBUS at the write that touches it. Say so instead of dying without a word.
static void on_sigbus(int)
{
    static const char message[] =
        "error: the output file could not take the next page of results (SIGBUS): the disk or "
        "file system holding it is full; free some space or write the output elsewhere\n";
    ssize_t ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
    (void)ignored;
    remove_unfinished();
    _exit(LAB_EXIT_USAGE);
}

OutputFile::OutputFile(const std::string &path, size_t bytes) : path_(path), bytes_(bytes)
{
    std::string where = "output file '" + path_ + "'";
    struct stat info;
    if (stat(path_.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
        fd_ = open(path_.c_str(), O_WRONLY);
        if (fd_ < 0)
            throw LabError("cannot open " + where + ": " + std::strerror(errno));
        return;
    }
    partial_path_ = path_ + ".partial";
    fd_ = open(partial_path_.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0666);
    if (fd_ < 0)
        throw LabError("cannot create " + where + " (as '" + partial_path_ + "' until it is complete): " +
                       std::strerror(errno));
    static bool cleanup_registered = std::atexit(remove_unfinished) == 0;
    (void)cleanup_registered;
    g_unfinished = partial_path_;
    struct statvfs disk;
    if (fstatvfs(fd_, &disk) == 0) {
        double free_bytes = static_cast<double>(disk.f_bavail) * static_cast<double>(disk.f_frsize);
        if (free_bytes < static_cast<double>(bytes_))
            throw LabError("not enough space for " + where + ": it takes " + gib(static_cast<double>(bytes_)) +
                           " (n * n * 4 bytes), its file system has " + gib(free_bytes) + " free");
    }
    // ftruncate past RLIMIT_FSIZE raises SIGXFSZ, as a write past it would.
    if (ftruncate(fd_, static_cast<off_t>(bytes_)) != 0)
        throw LabError("cannot make " + where + " " + std::to_string(bytes_) + " bytes long: " + std::strerror(errno));
    void *mapped = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (mapped == MAP_FAILED)
        throw LabError("cannot map " + where + " (" + gib(static_cast<double>(bytes_)) + "): " + std::strerror(errno));
    mapped_ = static_cast<char *>(mapped);
    std::signal(SIGBUS, on_sigbus);
    populating_ = std::thread([this] {
        // Pages are allocated as if written, their contents untouched. EINVAL: a kernel older
        // than Linux 5.14, or a file system that cannot; write() then takes the faults itself.
        if (madvise(mapped_, bytes_, MADV_POPULATE_WRITE) != 0 && errno != EINVAL)
            populate_error_ = errno;
    });
}

void OutputFile::stop_populating()
{
    if (populating_.joinable())
        populating_.join();
}

OutputFile::~OutputFile()
{
    stop_populating();
    if (mapped_)
        munmap(mapped_, bytes_);
    if (fd_ >= 0)
        close(fd_);
    if (!partial_path_.empty()) {
        unlink(partial_path_.c_str());
        g_unfinished.clear();
    }
}

void OutputFile::write(const void *data)
{
    std::string where = "output file '" + path_ + "'";
    const char *from = static_cast<const char *>(data);
    if (partial_path_.empty()) {  // not a regular file: one pass of write()
        write_all(fd_, data, bytes_, path_);
    } else {
        stop_populating();
        if (populate_error_ != 0)
            throw LabError("cannot make room for " + where + " (" + gib(static_cast<double>(bytes_)) +
                           "): " + std::strerror(populate_error_));
        // Every thread copies its share: the pages are there, so this runs at memory speed.
        const size_t chunk = size_t(1) << 22;
        long long chunks = static_cast<long long>((bytes_ + chunk - 1) / chunk);
        #pragma omp parallel for schedule(static)
        for (long long c = 0; c < chunks; ++c) {
            size_t offset = static_cast<size_t>(c) * chunk;
            std::memcpy(mapped_ + offset, from + offset, bytes_ - offset < chunk ? bytes_ - offset : chunk);
        }
        // The pages stay in the page cache, written back by the kernel, as write() leaves them.
        munmap(mapped_, bytes_);
        mapped_ = nullptr;
    }
    int fd = fd_;
    fd_ = -1;
    if (close(fd) != 0)
        throw LabError("cannot close " + where + ": " + std::strerror(errno));
    if (!partial_path_.empty()) {
        if (rename(partial_path_.c_str(), path_.c_str()) != 0)
            throw LabError("cannot rename '" + partial_path_ + "' to " + where + ": " + std::strerror(errno));
        partial_path_.clear();
        g_unfinished.clear();
    }
}
