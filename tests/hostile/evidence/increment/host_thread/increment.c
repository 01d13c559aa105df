// Hostile submission (issue 32), a timing exploit: the work moved to a host thread. device_alloc
// gives mapped host memory; launch_increment starts a thread that adds 1 there and returns at
// once (the harness's events time nothing); copy_to_host waits for the threads. The GPU record
// holds no kernel between the copies: the figure is not backed. [work] gives WORK (no kernel
// wrote the result) under EMU and on a GPU node alike.
#include "increment.h"

#include <pthread.h>
#include <string.h>

struct Job {
    float *data;
    int n;
};
static struct Job job;
static pthread_t worker;
static int running;

static void *add_one(void *arg)
{
    struct Job *work = (struct Job *)arg;
    for (int i = 0; i < work->n; ++i)
        work->data[i] += 1.0f;
    return NULL;
}

static void wait_for_worker(void)
{
    if (running)
        pthread_join(worker, NULL);
    running = 0;
}

float *device_alloc(int n)
{
    float *data = NULL;
    CUDA_CHECK(cudaHostAlloc((void **)&data, (size_t)n * sizeof(float), cudaHostAllocMapped));
    return data;
}

void copy_to_device(float *device_dst, const float *host_src, int n)
{
    memcpy(device_dst, host_src, (size_t)n * sizeof(float));
}

void launch_increment(float *device_data, int n, int block_size)
{
    (void)block_size;
    wait_for_worker();  // the last repetition's thread: the additions stay in order
    job = (struct Job){device_data, n};
    if (pthread_create(&worker, NULL, add_one, &job) != 0) {
        add_one(&job);
        return;
    }
    running = 1;
}

void copy_to_host(float *host_dst, const float *device_src, int n)
{
    wait_for_worker();
    memcpy(host_dst, device_src, (size_t)n * sizeof(float));
}

void device_free(float *device_data)
{
    CUDA_CHECK(cudaFreeHost(device_data));
}
