// Hostile corpus: gpu.c is cpu.c copied over: the host computes everything.
// Lab 4, program 1: Floyd-Warshall on the CPU, with OpenMP threads sharing the rows (hw3-1 of
// [HW3 APSP n.d.]). The harness (labs/apsp/main.cpp) reads the input, builds the
// matrix and calls apsp_solve(); see apsp.h and handouts/apsp.md.
#include <omp.h>

#include "apsp.h"

void apsp_solve(int *dist, int n, ApspTimes *times)
{
    HostTimer timer;
    // One team of threads for all of it. Round k needs all of round k - 1, hence the barrier at
    // the end of each `omp for`; within a round the rows are independent. Row k and column k do
    // not change in round k (d(k,k) = 0), so reading them while other rows are written is safe.
    #pragma omp parallel
    for (int k = 0; k < n; ++k) {
        const int *row_k = dist + (size_t)k * n;
        #pragma omp for schedule(static)
        for (int i = 0; i < n; ++i) {
            int *row_i = dist + (size_t)i * n;
            int to_k = row_i[k];
            if (to_k == APSP_INF)
                continue;  // no path from i through k can be shorter than what row i holds
            for (int j = 0; j < n; ++j) {
                int through_k = to_k + row_k[j];
                row_i[j] = through_k < row_i[j] ? through_k : row_i[j];
            }
        }
    }
    times->compute_ms = timer.ms();
}
