// Helpers shared by the emulator's test suites (tests/emu/*_test.cu).
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

// The suites provoke API errors on purpose; their explanations on stderr would only be noise.
static const int kQuietSet = setenv("EMU_QUIET", "1", 0);

#define EXPECT_CUDA_OK(call) EXPECT_EQ(cudaSuccess, (call)) << #call << ": " << cudaGetErrorString(cudaGetLastError())
#define ASSERT_CUDA_OK(call) ASSERT_EQ(cudaSuccess, (call)) << #call << ": " << cudaGetErrorString(cudaGetLastError())

// Device memory for n elements, freed at scope exit; host() copies it back.
template <class T>
class DeviceArray {
public:
    explicit DeviceArray(size_t n, int fill_byte = 0) : n_(n)
    {
        EXPECT_CUDA_OK(cudaMalloc(&data_, n * sizeof(T)));
        EXPECT_CUDA_OK(cudaMemset(data_, fill_byte, n * sizeof(T)));
    }
    explicit DeviceArray(const std::vector<T> &values) : DeviceArray(values.size())
    {
        EXPECT_CUDA_OK(cudaMemcpy(data_, values.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
    }
    ~DeviceArray() { cudaFree(data_); }
    DeviceArray(const DeviceArray &) = delete;
    DeviceArray &operator=(const DeviceArray &) = delete;

    T *get() const { return data_; }
    size_t size() const { return n_; }
    std::vector<T> host() const
    {
        std::vector<T> values(n_);
        EXPECT_CUDA_OK(cudaMemcpy(values.data(), data_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
        return values;
    }

private:
    T *data_ = nullptr;
    size_t n_;
};

// Sets an environment variable for one scope (the emulator reads EMU_SCHEDULE at each launch).
class ScopedEnv {
public:
    ScopedEnv(const char *name, const char *value) : name_(name)
    {
        const char *old = std::getenv(name);
        had_old_ = old != nullptr;
        if (had_old_) old_ = old;
        setenv(name, value, 1);
    }
    ~ScopedEnv()
    {
        if (had_old_)
            setenv(name_.c_str(), old_.c_str(), 1);
        else
            unsetenv(name_.c_str());
    }

private:
    std::string name_, old_;
    bool had_old_ = false;
};

// The standard output and error of a shell command (all of it), and its exit status.
struct CommandResult {
    int status;
    std::string output;
};
inline CommandResult run_command(const std::string &command)
{
    CommandResult result{-1, ""};
    FILE *pipe = popen(("( " + command + " ) 2>&1").c_str(), "r");
    if (!pipe) return result;
    char buffer[4096];
    size_t got;
    while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, got);
    result.status = pclose(pipe);
    return result;
}

// The path of the running test binary (to run some of its tests in a fresh process).
inline std::string this_program()
{
    char path[4096];
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    return length > 0 ? std::string(path, (size_t)length) : std::string();
}
