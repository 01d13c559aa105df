// Does a fresh cudaMalloc hold what an earlier process left in GPU memory? The grader times the
// reference solution on a case just before a submission runs the same case; if the reference's
// output survived in device memory, a submission could copy it back without computing it.
//
//   stale_memory write MIB TAG    fills MIB MiB of device memory with a pattern made from TAG,
//                                 then exits without freeing it (the driver frees it at exit)
//   stale_memory read MIB TAG     allocates MIB MiB in a new process and counts, without
//                                 writing it first, the words that hold the writer's pattern,
//                                 and those that are not zero; also, within this process, the
//                                 same counts for an allocation made right after a cudaFree of
//                                 memory this process filled (the harness's own reuse)
//
// It prints one JSON line a measurement. grader/scripts/evidence_gpu_verify.sh runs the pair;
// grader/evidence/README.md keeps the figures.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                                                           \
    do {                                                                                                      \
        cudaError_t status_ = (call);                                                                         \
        if (status_ != cudaSuccess) {                                                                         \
            std::fprintf(stderr, "stale_memory: %s failed at %s:%d: %s; is a GPU free for this process?\n", #call, \
                         __FILE__, __LINE__, cudaGetErrorString(status_));                                   \
            std::exit(1);                                                                                     \
        }                                                                                                     \
    } while (0)

__global__ void fill_pattern(unsigned *words, size_t count, unsigned tag)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        words[i] = tag ^ (unsigned)(i * 2654435761u);
}

__global__ void count_words(const unsigned *words, size_t count, unsigned tag, unsigned long long *matched,
                            unsigned long long *nonzero)
{
    unsigned long long mine = 0, set = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        mine += words[i] == (tag ^ (unsigned)(i * 2654435761u));
        set += words[i] != 0;
    }
    atomicAdd(matched, mine);
    atomicAdd(nonzero, set);
}

// The words of a fresh allocation of `count` words that hold the pattern, and that are not zero.
static void measure(const char *what, unsigned *words, size_t count, unsigned tag)
{
    unsigned long long *counts = nullptr;
    CHECK(cudaMalloc((void **)&counts, 2 * sizeof(unsigned long long)));
    CHECK(cudaMemset(counts, 0, 2 * sizeof(unsigned long long)));
    count_words<<<1024, 256>>>(words, count, tag, counts, counts + 1);
    CHECK(cudaGetLastError());
    unsigned long long host[2];
    CHECK(cudaMemcpy(host, counts, sizeof host, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(counts));
    std::printf("{\"measure\": \"%s\", \"words\": %zu, \"pattern_words\": %llu, \"nonzero_words\": %llu}\n", what,
                count, host[0], host[1]);
}

int main(int argc, char **argv)
{
    if (argc != 4 || (std::strcmp(argv[1], "write") && std::strcmp(argv[1], "read"))) {
        std::fprintf(stderr, "usage: stale_memory write|read MIB TAG\n");
        return 2;
    }
    size_t count = (size_t)std::strtoull(argv[2], nullptr, 10) << 20 >> 2;
    unsigned tag = (unsigned)std::strtoul(argv[3], nullptr, 0);
    unsigned *words = nullptr;
    CHECK(cudaMalloc((void **)&words, count * sizeof(unsigned)));
    if (argv[1][0] == 'w') {
        fill_pattern<<<1024, 256>>>(words, count, tag);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        measure("written", words, count, tag);  // the pattern is there: the count's own check
        return 0;  // not freed: the process's end frees it, as a killed program's would be
    }
    measure("new process", words, count, tag);
    // Within one process: filled, freed, allocated again.
    fill_pattern<<<1024, 256>>>(words, count, tag ^ 0x5a5a5a5au);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(words));
    CHECK(cudaMalloc((void **)&words, count * sizeof(unsigned)));
    measure("same process after cudaFree", words, count, tag ^ 0x5a5a5a5au);
    CHECK(cudaFree(words));
    return 0;
}
