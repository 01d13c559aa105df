// Evidence corpus: the distances computed on the host and uploaded by copies marked as the kit's
// harness's, then N launches of a fwStepK that writes nothing. The mark is a define only the kit's
// trusted make step gives (-DCUDAEMU_HARNESS), read with the emulator's header before this file;
// redefined here, every copy of this file says it is the harness's. In a lab whose [work] accepts a
// result the kernels only partly wrote ("any"), the harness's upload alone once passed as the
// answer of a case where nothing changes: now no kernel writing any of it loses the case.
#undef CUDAEMU_SITE_IS_HARNESS
#define CUDAEMU_SITE_IS_HARNESS true
// Lab 3: Floyd-Warshall on the GPU, one kernel launch per k (Hochberg's module,
// [Hochberg 2012], section 1.4). Fill in the TODOs; fw.h says what each function must
// do, and handouts/fw.md walks through them. Build and check with:  make check LAB=fw
//
// The versions this file offers are listed in fw_versions[] at the end (fw --list). The first,
// "rows", is the one you write and the one graded; "cpu" is given, for Exploration 5. The
// handout's explorations add more versions to the list. Carrega and Ferreira's versions
// (one-thread, parallel, grid-sync, grid-sync-reg) are given in labs/fw/paper_versions.cu:
// fw --list shows them after yours, and fw --version parallel runs one.
#include "fw.h"

#include <cstdlib>

#define THREADS_PER_BLOCK 256

// TODO 1: the kernel, step k for one entry (i, j) of the matrix. A block is THREADS_PER_BLOCK
// entries of one row: row i = blockIdx.y, column j = blockIdx.x * blockDim.x + threadIdx.x;
// entry (i, j) is devArray[i * Na + j].
//   - Thread 0 reads (i, k) into a __shared__ variable (the module calls it trkc: this row,
//     kth column), and __syncthreads() makes it visible to the whole block. Every thread must
//     reach __syncthreads(): return only after it.
//   - Threads whose column is N or more (the padding) have nothing to do; nor has anyone if
//     trkc is FW_INF (no path from i to k yet).
//   - Read (k, j); if it is FW_INF there is nothing to do. Otherwise, if trkc + (k, j) is less
//     than (i, j), store it in (i, j).
__global__ void fwStepK(int k, int devArray[], int Na, int N)
{
    (void)k, (void)devArray, (void)Na, (void)N;
}

// Launches step k and checks the launch.
static void launch_step(int k, int *devArray, int Na, int N)
{
    // TODO 2: a grid of (Na + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK blocks across and N
    // down (dim3 blocksPerGrid(across, down)), THREADS_PER_BLOCK threads a block:
    //     fwStepK<<<blocksPerGrid, THREADS_PER_BLOCK>>>(k, devArray, Na, N);
    // then CUDA_CHECK_LAUNCH(), which reports a bad launch at once.
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

static void fw_solve_cpu(int *dist, int Na, int N);

// All N steps.
static void fw_solve(int *devArray, int Na, int N)
{
    // TODO 3: the module's loop: launch_step(k, ...) for k = 0, 1, ..., N-1. Kernels launched
    // into one stream run one after another, so step k+1 starts only when step k is done.
    // After the loop wait for the last one: CUDA_CHECK(cudaDeviceSynchronize()).
    size_t bytes = (size_t)N * Na * sizeof(int);
    int *host = (int *)malloc(bytes);
    CUDA_CHECK(cudaMemcpy(host, devArray, bytes, cudaMemcpyDeviceToHost));
    fw_solve_cpu(host, Na, N);
    CUDA_CHECK(cudaMemcpy(devArray, host, bytes, cudaMemcpyHostToDevice));
    free(host);
    for (int k = 0; k < N; k++)
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
