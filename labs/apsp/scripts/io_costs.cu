// What the whole apsp program pays besides its kernels, piece by piece, at one matrix size
// (issue 6: multigpu on 2 GPUs against 1 at n = 30001, whole program). Each line is one cost,
// timed on its own, so the harness's design can be chosen by measurement:
//
//   io_costs N DIR [SECTION ...]      sections, by default all but overlap, in this order:
//
//   startup     the driver, then a context on GPU 0, then on every visible GPU (one thread each)
//   touch       first writes to fresh anonymous memory (a VM may back it only then), by 1
//               thread and by all; then the same memory again, warm
//   file        write() of the whole matrix; a mapped file filled by 1 thread and by all
//   copies      device to host and back, pageable, one GPU then all at once, each GPU its
//               share of the rows; into a fresh mapped file and a filled one
//   pinned      the same copies through two pinned 64 MB buffers, the host side of each chunk
//               copied by 1, 4 or 8 threads while the GPU copies the other buffer
//   overlap     (a process of its own: CUDA not started) a fresh mapped file filled by all
//               threads while another thread starts CUDA on every GPU, each timed
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cuda_check.h"
#include "host_timer.h"

static void line(const char *what, double ms, double bytes = 0)
{
    if (bytes > 0)
        std::printf("  %-48s %9.1f ms  %6.2f GB/s\n", what, ms, bytes / ms / 1e6);
    else
        std::printf("  %-48s %9.1f ms\n", what, ms);
    std::fflush(stdout);
}

// Runs body(t) on `threads` threads, each given its index; returns the wall milliseconds.
template <class Body>
static double on_threads(int threads, Body body)
{
    HostTimer timer;
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back(body, t);
    for (auto &thread : pool)
        thread.join();
    return timer.ms();
}

// Fills [data, data + bytes) with all threads, each its own contiguous part.
static double fill(char *data, size_t bytes, int threads)
{
    return on_threads(threads, [&](int t) {
        size_t begin = bytes * t / threads, end = bytes * (t + 1) / threads;
        std::memset(data + begin, 0x3f, end - begin);
    });
}

static char *fresh_anonymous(size_t bytes)
{
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        std::perror("mmap");
        std::exit(1);
    }
    return static_cast<char *>(p);
}

// Each GPU copies its share of `bytes` between its buffer and host memory at `host`, all at once.
static double copies(const std::vector<char *> &device, char *host, size_t bytes, int gpus, cudaMemcpyKind kind)
{
    return on_threads(gpus, [&](int g) {
        CUDA_CHECK(cudaSetDevice(g));
        size_t begin = bytes * g / gpus, end = bytes * (g + 1) / gpus;
        if (kind == cudaMemcpyDeviceToHost)
            CUDA_CHECK(cudaMemcpy(host + begin, device[g], end - begin, kind));
        else
            CUDA_CHECK(cudaMemcpy(device[g], host + begin, end - begin, kind));
    });
}

static std::string g_dir;
static size_t g_bytes;
static int g_cores;

// A fresh file of `bytes` in the folder, mapped; closed and removed by unmap_file().
static char *map_fresh_file(int *fd)
{
    std::string path = g_dir + "/io_costs-" + std::to_string(getpid()) + ".bin";
    *fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (*fd < 0 || ftruncate(*fd, static_cast<off_t>(g_bytes)) != 0) {
        std::perror(path.c_str());
        std::exit(1);
    }
    unlink(path.c_str());  // the open descriptor keeps it until closed
    void *p = mmap(nullptr, g_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    if (p == MAP_FAILED) {
        std::perror("mmap");
        std::exit(1);
    }
    return static_cast<char *>(p);
}

static double unmap_file(char *mapped, int fd)
{
    HostTimer timer;
    munmap(mapped, g_bytes);
    close(fd);
    return timer.ms();
}

static int start_cuda()
{
    HostTimer timer;
    int gpus = 0;
    CUDA_CHECK(cudaGetDeviceCount(&gpus));
    line("cudaGetDeviceCount (driver start-up)", timer.ms());
    for (int count = 1; count <= gpus; count *= 2) {
        // A context made once stays: each pass makes new ones only for the GPUs it adds.
        double ms = on_threads(count, [&](int g) {
            CUDA_CHECK(cudaSetDevice(g));
            CUDA_CHECK(cudaFree(0));
        });
        std::string what = "contexts on GPUs 0.." + std::to_string(count - 1) + " (new ones made)";
        line(what.c_str(), ms);
    }
    return gpus;
}

static void overlap()
{
    int fd;
    char *mapped = map_fresh_file(&fd);
    double cuda_ms = 0;
    HostTimer timer;
    std::thread cuda([&] {
        HostTimer started;
        int gpus = 0;
        CUDA_CHECK(cudaGetDeviceCount(&gpus));
        on_threads(gpus, [&](int g) {
            CUDA_CHECK(cudaSetDevice(g));
            CUDA_CHECK(cudaFree(0));
        });
        cuda_ms = started.ms();
    });
    double fill_ms = fill(mapped, g_bytes, g_cores);
    cuda.join();
    line("fresh mapped file filled by all threads, beside", fill_ms, static_cast<double>(g_bytes));
    line("  CUDA's start-up on every GPU", cuda_ms);
    line("  both", timer.ms());
    line("munmap and close", unmap_file(mapped, fd));
}

static void touch()
{
    char *a = fresh_anonymous(g_bytes), *b = fresh_anonymous(g_bytes);
    double bytes = static_cast<double>(g_bytes);
    line("fresh, 1 thread", fill(a, g_bytes, 1), bytes);
    line("fresh, all threads", fill(b, g_bytes, g_cores), bytes);
    line("warm, 1 thread", fill(a, g_bytes, 1), bytes);
    line("warm, all threads", fill(b, g_bytes, g_cores), bytes);
    HostTimer timer;
    munmap(b, g_bytes);
    line("munmap of a touched anonymous matrix", timer.ms());
    munmap(a, g_bytes);
}

static void file()
{
    char *a = fresh_anonymous(g_bytes);
    fill(a, g_bytes, g_cores);
    std::string path = g_dir + "/io_costs-" + std::to_string(getpid()) + ".bin";
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    HostTimer timer;
    size_t done = 0;
    while (done < g_bytes) {
        ssize_t wrote = write(fd, a + done, g_bytes - done);
        if (wrote <= 0) {
            std::perror("write");
            std::exit(1);
        }
        done += static_cast<size_t>(wrote);
    }
    line("write(), one thread, fresh file", timer.ms(), static_cast<double>(g_bytes));
    timer.restart();
    close(fd);
    unlink(path.c_str());
    line("close and unlink", timer.ms());
    munmap(a, g_bytes);
    for (int threads : {1, g_cores}) {
        char *mapped = map_fresh_file(&fd);
        std::string what = "mapped file, first fill, " + std::to_string(threads) + " thread(s)";
        line(what.c_str(), fill(mapped, g_bytes, threads), static_cast<double>(g_bytes));
        line("mapped file, second fill, all threads", fill(mapped, g_bytes, g_cores), static_cast<double>(g_bytes));
        line("munmap and close", unmap_file(mapped, fd));
    }
}

static void copies_section(int gpus)
{
    char *a = fresh_anonymous(g_bytes);
    fill(a, g_bytes, g_cores);
    std::vector<char *> device(gpus);
    HostTimer timer;
    for (int g = 0; g < gpus; ++g) {
        CUDA_CHECK(cudaSetDevice(g));
        CUDA_CHECK(cudaMalloc(&device[g], g_bytes));
        CUDA_CHECK(cudaMemset(device[g], 0x3f, g_bytes));
    }
    for (int g = 0; g < gpus; ++g) {
        CUDA_CHECK(cudaSetDevice(g));
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    line("cudaMalloc and cudaMemset of the matrix on every GPU", timer.ms());
    double bytes = static_cast<double>(g_bytes);
    for (int count = 1; count <= gpus; count *= 2) {
        std::string to_host = "device to host, " + std::to_string(count) + " GPU(s) at once";
        std::string to_device = "host to device, " + std::to_string(count) + " GPU(s) at once";
        line(to_host.c_str(), copies(device, a, g_bytes, count, cudaMemcpyDeviceToHost), bytes);
        line(to_device.c_str(), copies(device, a, g_bytes, count, cudaMemcpyHostToDevice), bytes);
    }
    for (int count = 1; count <= gpus; count *= 2) {
        int fd;
        char *mapped = map_fresh_file(&fd);
        std::string what = "device to a fresh mapped file, " + std::to_string(count) + " GPU(s)";
        line(what.c_str(), copies(device, mapped, g_bytes, count, cudaMemcpyDeviceToHost), bytes);
        what = "device to the same file again, " + std::to_string(count) + " GPU(s)";
        line(what.c_str(), copies(device, mapped, g_bytes, count, cudaMemcpyDeviceToHost), bytes);
        unmap_file(mapped, fd);
    }
    timer.restart();
    for (int g = 0; g < gpus; ++g) {
        CUDA_CHECK(cudaSetDevice(g));
        CUDA_CHECK(cudaFree(device[g]));
    }
    line("cudaFree of the matrix on every GPU", timer.ms());
    munmap(a, g_bytes);
}

// Copies `bytes` between host memory and one GPU through two pinned buffers: the GPU copies one
// chunk while `threads` host threads copy the other between its buffer and `host`.
static void pinned_copy(char *device, char *host, size_t bytes, cudaMemcpyKind kind, int threads,
                        char *pinned[2], cudaStream_t stream, cudaEvent_t done[2])
{
    const size_t chunk = size_t(64) << 20;
    size_t chunks = (bytes + chunk - 1) / chunk;
    auto host_copy = [&](size_t c, bool to_pinned) {
        size_t offset = c * chunk, size = std::min(chunk, bytes - offset);
        on_threads(threads, [&](int t) {
            size_t begin = size * t / threads, end = size * (t + 1) / threads;
            if (to_pinned)
                std::memcpy(pinned[c % 2] + begin, host + offset + begin, end - begin);
            else
                std::memcpy(host + offset + begin, pinned[c % 2] + begin, end - begin);
        });
    };
    auto gpu_copy = [&](size_t c) {
        size_t offset = c * chunk, size = std::min(chunk, bytes - offset);
        if (kind == cudaMemcpyHostToDevice)
            CUDA_CHECK(cudaMemcpyAsync(device + offset, pinned[c % 2], size, kind, stream));
        else
            CUDA_CHECK(cudaMemcpyAsync(pinned[c % 2], device + offset, size, kind, stream));
        CUDA_CHECK(cudaEventRecord(done[c % 2], stream));
    };
    if (kind == cudaMemcpyHostToDevice) {
        for (size_t c = 0; c < chunks; ++c) {
            CUDA_CHECK(cudaEventSynchronize(done[c % 2]));  // the buffer's last copy is done
            host_copy(c, true);
            gpu_copy(c);
        }
    } else {
        gpu_copy(0);
        for (size_t c = 0; c < chunks; ++c) {
            if (c + 1 < chunks)
                gpu_copy(c + 1);
            CUDA_CHECK(cudaEventSynchronize(done[c % 2]));
            host_copy(c, false);
        }
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
}

static void pinned_section(int gpus)
{
    char *a = fresh_anonymous(g_bytes);
    fill(a, g_bytes, g_cores);
    struct Gpu {
        char *device, *pinned[2];
        cudaStream_t stream;
        cudaEvent_t done[2];
    };
    std::vector<Gpu> gpu(gpus);
    for (int g = 0; g < gpus; ++g) {
        CUDA_CHECK(cudaSetDevice(g));
        CUDA_CHECK(cudaMalloc(&gpu[g].device, g_bytes));
        CUDA_CHECK(cudaStreamCreate(&gpu[g].stream));
        for (int b = 0; b < 2; ++b) {
            CUDA_CHECK(cudaMallocHost(&gpu[g].pinned[b], size_t(64) << 20));
            CUDA_CHECK(cudaEventCreate(&gpu[g].done[b]));
            CUDA_CHECK(cudaEventRecord(gpu[g].done[b], gpu[g].stream));
        }
    }
    double bytes = static_cast<double>(g_bytes);
    for (int count = 1; count <= gpus; count *= 2)
        for (int threads : {1, 4, 8})
            for (cudaMemcpyKind kind : {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost}) {
                double ms = on_threads(count, [&](int g) {
                    CUDA_CHECK(cudaSetDevice(g));
                    size_t begin = g_bytes * g / count, end = g_bytes * (g + 1) / count;
                    pinned_copy(gpu[g].device, a + begin, end - begin, kind, threads, gpu[g].pinned,
                                gpu[g].stream, gpu[g].done);
                });
                std::string what = std::string(kind == cudaMemcpyHostToDevice ? "host to device" : "device to host") +
                                   ", " + std::to_string(count) + " GPU(s), " + std::to_string(threads) + " thread(s) each";
                line(what.c_str(), ms, bytes);
            }
    for (int g = 0; g < gpus; ++g) {
        CUDA_CHECK(cudaSetDevice(g));
        CUDA_CHECK(cudaFree(gpu[g].device));
        for (int b = 0; b < 2; ++b)
            CUDA_CHECK(cudaFreeHost(gpu[g].pinned[b]));
    }
    munmap(a, g_bytes);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: io_costs N DIR [startup|touch|file|copies|pinned|overlap ...]\n");
        return 2;
    }
    long long n = std::atoll(argv[1]);
    g_dir = argv[2];
    g_bytes = static_cast<size_t>(n) * n * sizeof(int);
    g_cores = static_cast<int>(std::thread::hardware_concurrency());
    std::vector<std::string> sections(argv + 3, argv + argc);
    if (sections.empty())
        sections = {"startup", "touch", "file", "copies", "pinned"};
    std::printf("n = %lld: matrix %.2f GB; %d cores\n", n, g_bytes / 1e9, g_cores);
    int gpus = 0;
    for (const std::string &section : sections) {
        std::printf("%s\n", section.c_str());
        if (section == "startup")
            gpus = start_cuda();
        else if (section == "touch")
            touch();
        else if (section == "file")
            file();
        else if (section == "copies")
            copies_section(gpus ? gpus : start_cuda());
        else if (section == "pinned")
            pinned_section(gpus ? gpus : start_cuda());
        else if (section == "overlap")
            overlap();
        else {
            std::fprintf(stderr, "io_costs: unknown section '%s'\n", section.c_str());
            return 2;
        }
    }
    return 0;
}
