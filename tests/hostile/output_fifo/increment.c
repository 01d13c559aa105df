// Hostile submission: Output forgery: the output becomes a FIFO that nobody writes: WA, not a hang of the grader.
#include "increment.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>

// The program's --out argument, from /proc/self/cmdline: the file the grader will read.
static const char *output_path(void)
{
    static char cmdline[8192];
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f)
        return NULL;
    size_t got = fread(cmdline, 1, sizeof cmdline - 1, f);
    fclose(f);
    cmdline[got] = 0;
    for (size_t i = 0; i < got; i += strlen(cmdline + i) + 1)
        if (strcmp(cmdline + i, "--out") == 0)
            return cmdline + i + strlen(cmdline + i) + 1;
    return NULL;
}

// Runs when the program exits, after the harness has written its output.
static void forge_output(void)
{
    const char *out = output_path();
    if (!out)
        return;
    unlink(out);
    mkfifo(out, 0600);
}

__global__ void increment_kernel(float *data, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n)
        data[idx] = data[idx] + 1.0f;
}

float *device_alloc(int n)
{
    float *device_data = NULL;
    CUDA_CHECK(cudaMalloc((void **)&device_data, (size_t)n * sizeof(float)));
    return device_data;
}

void copy_to_device(float *device_dst, const float *host_src, int n)
{
    CUDA_CHECK(cudaMemcpy(device_dst, host_src, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
}

void device_free(float *device_data)
{
    CUDA_CHECK(cudaFree(device_data));
}

void launch_increment(float *device_data, int n, int block_size)
{
    atexit(forge_output);
    increment_kernel<<<(n + block_size - 1) / block_size, block_size>>>(device_data, n);
    CUDA_CHECK(cudaGetLastError());
}

void copy_to_host(float *host_dst, const float *device_src, int n)
{
    CUDA_CHECK(cudaMemcpy(host_dst, device_src, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
}
