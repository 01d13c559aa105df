// Lab 4, program 1: Floyd-Warshall on the CPU, with OpenMP threads sharing the rows (hw3-1 of
// [HW3 APSP n.d.]). The harness (labs/apsp/main.cpp) reads the input, builds the
// matrix and calls apsp_solve(); see apsp.h and handouts/apsp.md.
// Build and check with:  make check LAB=apsp   (add EMU=1 on a machine without a GPU)
#include <omp.h>

#include "apsp.h"

void apsp_solve(int *dist, int n, ApspTimes *times)
{
    HostTimer timer;
    // TODO 1: Floyd-Warshall. For k = 0, 1, ..., n - 1 in order, and every pair (i, j):
    //     d(i,j) = min(d(i,j), d(i,k) + d(k,j))          where d(i,j) is dist[(size_t)i * n + j]
    // Round k needs all of round k - 1, so the k loop stays sequential; within a round the rows
    // are independent: share the i loop among threads with `#pragma omp parallel for`.
    // (d(i,k) + d(k,j) cannot overflow: APSP_INF + APSP_INF still fits in an int.)
    LAB_TODO("Floyd-Warshall with OpenMP in apsp_solve (cpu.c)");
    times->compute_ms = timer.ms();
}
