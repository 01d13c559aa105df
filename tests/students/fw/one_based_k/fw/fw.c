// Lab 3: Floyd-Warshall, one kernel launch per k.
// Thread 0 of each block reads d(i,k) into shared memory for its row; the other threads of the
// row use it. I return early from the padding threads and from rows with no path to k.
// The steps go k = 1 .. N, as in the module's text ("on step k, for 1 <= k <= 6").
#include "fw.h"

#define THREADS_PER_BLOCK 256

__global__ void fwStepK(int k, int devArray[], int Na, int N)
{
    __shared__ int trkc;
    int i = blockIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        trkc = devArray[i * Na + k];
    __syncthreads();
    if (j >= N || trkc == FW_INF)
        return;
    int tckr = devArray[k * Na + j];
    if (tckr == FW_INF)
        return;
    if (trkc + tckr < devArray[i * Na + j])
        devArray[i * Na + j] = trkc + tckr;
}

static void launch_step(int k, int *devArray, int Na, int N)
{
    dim3 blocksPerGrid((Na + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, N);
    fwStepK<<<blocksPerGrid, THREADS_PER_BLOCK>>>(k, devArray, Na, N);
    CUDA_CHECK_LAUNCH();
}

// One step, finished: `fw --steps` calls this for each k and prints the matrix after it.
static void fw_step(int k, int *devArray, int Na, int N)
{
    launch_step(k, devArray, Na, N);
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void fw_solve(int *devArray, int Na, int N)
{
    for (int k = 1; k <= N; k++)
        launch_step(k, devArray, Na, N);
    CUDA_CHECK(cudaDeviceSynchronize());
}

// Exploration 5, given: the sequential version, three loops on the CPU.
// Step k on the CPU. Row k does not change in step k (d(k,k) = 0), so it is skipped; the inner
// loop has no branch, so the compiler turns it into vector instructions (with gcc -O3, about
// three times faster than the same loop written with an if).
static void fw_step_cpu(int k, int *dist, int Na, int N)
{
    const int *row_k = dist + (size_t)k * Na;
    for (int i = 0; i < N; i++) {
        int dik = dist[(size_t)i * Na + k];
        if (i == k || dik == FW_INF)
            continue;
        int *row_i = dist + (size_t)i * Na;
        for (int j = 0; j < N; j++) {
            int through_k = row_k[j] == FW_INF ? FW_INF : dik + row_k[j];
            row_i[j] = through_k < row_i[j] ? through_k : row_i[j];
        }
    }
}

static void fw_solve_cpu(int *dist, int Na, int N)
{
    for (int k = 0; k < N; k++)
        fw_step_cpu(k, dist, Na, N);
}

// Exploration 8 (fw GRAPH --path FROM TO): a kernel like fwStepK that also keeps next(i, j),
// the vertex to step to from i toward j. When k improves (i, j), next(i, j) becomes next(i, k).
void fw_solve_with_next(int *dist, int *next, int Na, int N)
{
    LAB_TODO("Exploration 8: fw_solve_with_next");
}

// The versions, in the order fw --list shows them; add yours at the end.
const FwVersion fw_versions[] = {
    /* name, summary, place, solve, step, upload, download, release */
    {"rows", "the module's fwStepK: one launch per k, a block is 256 entries of a row, (i,k) in __shared__",
     FW_ON_DEVICE, fw_solve, fw_step, NULL, NULL, NULL},
    {"cpu", "sequential CPU, three loops (Exploration 5)",
     FW_ON_HOST, fw_solve_cpu, fw_step_cpu, NULL, NULL, NULL},
};
const int fw_version_count = sizeof(fw_versions) / sizeof(fw_versions[0]);
