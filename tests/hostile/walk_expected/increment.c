// Hostile submission (issue 24's first): no kernel work at all; copy_to_host walks the whole file
// system for a file of n*4 bytes whose path says "expect" and hands it to the harness. Where the
// answers are out of the program's reach (every sandbox kind), it finds nothing: WA.
#include "increment.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int steal(const char *folder, float *host_dst, int n, int depth)
{
    DIR *dir = opendir(folder);
    if (!dir || depth > 12) {
        if (dir)
            closedir(dir);
        return 0;
    }
    struct dirent *entry;
    int found = 0;
    while (!found && (entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.' || !strcmp(entry->d_name, "proc") || !strcmp(entry->d_name, "sys") ||
            !strcmp(entry->d_name, "usr"))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", strcmp(folder, "/") ? folder : "", entry->d_name);
        struct stat info;
        if (lstat(path, &info) != 0)
            continue;
        if (S_ISDIR(info.st_mode)) {
            found = steal(path, host_dst, n, depth + 1);
        } else if (S_ISREG(info.st_mode) && info.st_size == (off_t)n * 4 && strstr(path, "expect")) {
            FILE *f = fopen(path, "rb");
            if (f) {
                found = fread(host_dst, sizeof(float), (size_t)n, f) == (size_t)n;
                fclose(f);
            }
        }
    }
    closedir(dir);
    return found;
}

__global__ void increment_kernel(float *data, int n)
{
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
}

void copy_to_host(float *host_dst, const float *device_src, int n)
{
    CUDA_CHECK(cudaMemcpy(host_dst, device_src, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
    steal("/", host_dst, n, 0);
}

void device_free(float *device_data)
{
    CUDA_CHECK(cudaFree(device_data));
}
