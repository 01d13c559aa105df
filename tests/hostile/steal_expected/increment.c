// Hostile submission: skips the work and copies the case's expected output into the result
// (build/cases/increment/<case>.expected). Sandbox on: it finds nothing, so WA.
#include "increment.h"

#include <stdio.h>
#include <string.h>

// The --out argument, e.g. <kit>/build/grading/<source>/increment/<case>.XXXX/<case>.out, gives
// away where the kit is and which case this is.
static int find_kit(char *kit, size_t kit_size, char *case_name, size_t case_size)
{
    static char cmdline[8192];
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f)
        return 0;
    size_t got = fread(cmdline, 1, sizeof cmdline - 1, f);
    fclose(f);
    cmdline[got] = 0;
    for (size_t i = 0; i < got; i += strlen(cmdline + i) + 1) {
        if (strcmp(cmdline + i, "--out") != 0)
            continue;
        const char *out = cmdline + i + strlen(cmdline + i) + 1;
        const char *build = strstr(out, "/build/");
        const char *base = strrchr(out, '/');
        if (!build || !base)
            return 0;
        snprintf(kit, kit_size, "%.*s", (int)(build - out), out);
        snprintf(case_name, case_size, "%s", base + 1);
        char *dot = strrchr(case_name, '.');
        if (dot)
            *dot = 0;
        return 1;
    }
    return 0;
}

__global__ void increment_kernel(float *data, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n)
        data[idx] = data[idx];  // no work: the answer is stolen below
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

void launch_increment(float *device_data, int n, int block_size)
{
    increment_kernel<<<(n + block_size - 1) / block_size, block_size>>>(device_data, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
}

void copy_to_host(float *host_dst, const float *device_src, int n)
{
    CUDA_CHECK(cudaMemcpy(host_dst, device_src, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
    char kit[4096], case_name[256], path[8192];
    if (!find_kit(kit, sizeof kit, case_name, sizeof case_name))
        return;
    snprintf(path, sizeof path, "%s/build/cases/increment/%s.expected", kit, case_name);
    FILE *f = fopen(path, "rb");
    if (f) {
        fread(host_dst, sizeof(float), (size_t)n, f);
        fclose(f);
    }
}

void device_free(float *device_data)
{
    CUDA_CHECK(cudaFree(device_data));
}
