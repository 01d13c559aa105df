// Lab 3, fw: Floyd-Warshall with one kernel launch per k (Hochberg's module,
// [Hochberg 2012]), and the versions of Carrega and Ferreira ([Carrega & Ferreira n.d.]).
//
// The distance matrix is stored as the module stores it: N rows of Na ints, Na = N rounded up to
// a multiple of ALIGNMENT, entry (i, j) at dist[i * Na + j], FW_INF (INT_MAX) for "no path yet",
// 0 on the diagonal. Columns N..Na-1 are padding: never read them, never write them.
//
// The harness (main.cpp) reads the graph, copies the matrix to the device, calls one version's
// solve() (or its step() once per k, with --steps), copies the matrix back and prints it. The
// student's file fw.c holds the versions, listed in fw_versions[]: the first is the lab's own,
// the one graded; `fw --version NAME` runs another, `fw --list` lists them.
#pragma once

#include <climits>

#include "cuda_check.h"

// fwHelpers.h: row length is a multiple of ALIGNMENT ints; build with -DALIGNMENT=32 to change it.
#ifndef ALIGNMENT
#define ALIGNMENT 64
#endif

#define FW_INF INT_MAX  // the module's "infinity": no path found yet

// Where a version's matrix lives while it runs.
typedef enum { FW_ON_DEVICE = 0, FW_ON_HOST = 1 } FwPlace;

typedef struct FwVersion {
    const char *name;     // what --version takes
    const char *summary;  // one line for --list
    FwPlace place;
    // All N steps of Floyd-Warshall on the N x Na matrix `dist`; returns when they are done.
    void (*solve)(int *dist, int Na, int N);
    // Step k alone (k = 0..N-1: M_k -> M_k+1), returning when it is done; NULL for versions
    // that run every step inside one kernel (they cannot show the matrices in between).
    void (*step)(int k, int *dist, int Na, int N);
    // Optional: a version that lays the matrix out its own way (cudaMallocPitch, Exploration 3)
    // gives all three; NULL means the harness's cudaMalloc of N x Na ints, rows Na apart.
    // upload returns the device matrix and sets *stride to its row length in ints; solve and
    // step then get that stride as Na.
    int *(*upload)(const int *graph, int Na, int N, int *stride);
    void (*download)(int *graph, int Na, int N, const int *dist, int stride);
    void (*release)(int *dist);
} FwVersion;

// The versions in the student's file; fw_versions[0] is the one the grader runs.
extern const FwVersion fw_versions[];
extern const int fw_version_count;

// Given, not graded (labs/fw/paper_versions.cu): Carrega and Ferreira's versions (001 III.B to
// III.E), listed and run after the student's; a name in fw_versions[] comes first.
extern const FwVersion fw_paper_versions[];
extern const int fw_paper_version_count;

// Exploration 8 (fw --path FROM TO): Floyd-Warshall that also keeps next[i * Na + j], the vertex
// to step to from i on a shortest path to j (-1: no path). The harness fills next for M_0
// (next(i, j) = j where there is an edge, i on the diagonal) and rebuilds paths from it.
void fw_solve_with_next(int *dist, int *next, int Na, int N);
