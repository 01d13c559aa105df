// Hostile corpus: fw_solve and fw_step copy the matrix to the host, run the CPU version, copy it back.
// Lab 3: Floyd-Warshall on the GPU, one kernel launch per k. My transcription of Hochberg's
// module ([Hochberg 2012], sections 1.4 and 3.1, fwStepK and its main loop).
// Kept from the module: the kernel as printed, with its early return for the padding columns
// (col >= N) before the __syncthreads(), thread 0 loading trkc, the returns for INT_MAX
// ("infinity"), betterMaybe; the launch geometry (256 threads, (Na + 255) / 256 blocks across,
// N down) and the loop of N launches. Changed for the lab: the loop is in fw_solve and one step
// in launch_step (fw.h's versions table), the launch and the wait go through CUDA_CHECK, and
// cudaThreadSynchronize (removed from CUDA) is cudaDeviceSynchronize, once after the loop as
// the starter asks, instead of after every launch.
#include "fw.h"

/*
 * Kernel to improve the shortest paths by considering the kth vertex
 * as an intermediate.
 * arg: k = the index of the vertex we are using as intermediate
 * arg: devArray = the array containing the matrix
 * arg: N = the number of vertices in the graph
 * arg: Na = the width of the matrix as stored on the device's memory.
 *
 * The graph is stored as an N x Na matrix, with the (i, j) matrix entry
 * being stored as devArray[i*Na + j]
 */
__global__ void fwStepK(int k, int devArray[], int Na, int N)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x; /* This thread's matrix column */
    if (col >= N)
        return;
    int arrayIndex = Na * blockIdx.y + col;
    __shared__ int trkc; /* this row, kth column */
    // Improve by using the intermediate k, if we can
    if (threadIdx.x == 0)
        trkc = devArray[Na * blockIdx.y + k];
    __syncthreads();
    if (trkc == INT_MAX) /* infinity */
        return;
    int tckr = devArray[k * Na + col]; /* this column, kth row */
    if (tckr == INT_MAX) /* infinity */
        return;
    int betterMaybe = trkc + tckr;
    if (betterMaybe < devArray[arrayIndex])
        devArray[arrayIndex] = betterMaybe;
}

static void launch_step(int k, int *devArray, int Na, int N)
{
    // Set up and run the kernels
    int threadsPerBlock = 256;
    dim3 blocksPerGrid((Na + threadsPerBlock - 1) / threadsPerBlock, N);
    fwStepK<<<blocksPerGrid, threadsPerBlock>>>(k, devArray, Na, N);
    CUDA_CHECK_LAUNCH();
}

// One step, finished: `fw --steps` calls this for each k and prints the matrix after it.
static void fw_step_cpu(int k, int *dist, int Na, int N);
static void fw_solve_cpu(int *dist, int Na, int N);

// The matrix comes back to the host, the CPU version runs there, and the result goes back in.
static void on_host(int k, int *devArray, int Na, int N)
{
    size_t bytes = (size_t)Na * N * sizeof(int);
    int *dist = (int *)malloc(bytes);
    CUDA_CHECK(cudaMemcpy(dist, devArray, bytes, cudaMemcpyDeviceToHost));
    if (k < 0)
        fw_solve_cpu(dist, Na, N);
    else
        fw_step_cpu(k, dist, Na, N);
    CUDA_CHECK(cudaMemcpy(devArray, dist, bytes, cudaMemcpyHostToDevice));
    free(dist);
}

static void fw_step(int k, int *devArray, int Na, int N) { on_host(k, devArray, Na, N); }

static void fw_solve(int *devArray, int Na, int N) { on_host(-1, devArray, Na, N); }

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
