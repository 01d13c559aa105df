// Lab 4, apsp: all-pairs shortest paths by blocked Floyd-Warshall, on the CPU, on one GPU and
// on several (the NTHU HW3 course report, [HW3 APSP n.d.]: hw3-1, hw3-2, hw3-3).
//
// Three programs share this header and one harness (main.cpp): starter/apsp/cpu.c, gpu.c and
// multigpu.c each define apsp_solve(). The harness reads the input file and builds the
// distance matrix, calls apsp_solve() once, and writes the matrix to the output file.
#pragma once

#include "apsp_format.h"  // APSP_INF, APSP_MAX_WEIGHT
#include "cuda_check.h"
#include "gpu_timer.h"
#include "host_timer.h"

// Where the time went, for the --timing table (the report's "Time Distribution").
typedef struct {
    double compute_ms;   // the algorithm: the loops (cpu) or the rounds of kernels (gpu)
    double copy_ms;      // the matrix's copies between host and device memory, both ways
    double exchange_ms;  // multigpu: pivot rows sent between GPUs, already inside compute_ms
} ApspTimes;

// dist: the n x n distance matrix in host memory, row-major (entry (i, j) is dist[i * n + j]).
// On entry: 0 on the diagonal, the weight of edge i -> j where there is one (the smallest if
// the input repeats it), APSP_INF elsewhere. On return: every shortest-path distance, with
// APSP_INF where j cannot be reached from i. Weights are 0..1000, so no distance reaches
// APSP_INF. Fill in *times (all zero on entry).
void apsp_solve(int *dist, int n, ApspTimes *times);
