// Lab 7, spmv: the functions the student writes in spmv.c: y += A·x for a sparse A in CSR,
// three ways, in the lecture's order ([cs344 n.d.], "SpMv" to "Hybrid Approach"):
//
//   row      thread per row: each thread walks its row with the row pointers and adds the dot
//            product to y (the lecture's code, with its row guard).
//   element  thread per element: one multiply per nonzero, then a backward inclusive segmented
//            sum scan of the products, each row's sum landing on its first nonzero, gathered
//            into y by the row pointers. Its time depends on nnz alone, not on row lengths.
//   hybrid   Bell and Garland's ([Bell & Garland 2009]): thread per row on each row's first K
//            nonzeros, thread per element on the rest, K by their rule (handouts/spmv.md).
//
// The harness (main.cpp) reads the matrix, copies it to the device and calls, in order:
//   spmv_prepare once (not timed: workspace, the hybrid's split),
//   spmv_line (the hybrid's K, which it checks against the rule),
//   spmv_run once to warm up, then once or more, timed (y is reset to its start before each),
//   spmv_release. It copies y back and checks every entry itself.
#pragma once

#include "cuda_check.h"

// A CSR matrix. In the harness's DeviceCsr the arrays are device pointers; spmv_prepare also
// gets the same matrix in host memory. Row r's nonzeros are values[row_ptr[r] .. row_ptr[r+1]-1]
// in columns col_idx[...]; rows may be empty. rows >= 1, cols >= 1, nnz >= 0.
struct Csr {
    int rows, cols, nnz;
    const int *row_ptr;   // rows + 1 offsets: row_ptr[0] = 0, row_ptr[rows] = nnz
    const int *col_idx;   // nnz column indices
    const float *values;  // nnz values
};

enum SpmvKernel { SPMV_ROW, SPMV_ELEMENT, SPMV_HYBRID };

// What a version keeps between the calls: spmv.c defines it (workspace, the hybrid's parts).
struct SpmvPlan;

// Sets up `kernel` for the matrix: `device` holds device pointers, `host` the same matrix in
// host memory (both stay valid until spmv_release). Not timed.
SpmvPlan *spmv_prepare(SpmvKernel kernel, const Csr *device, const Csr *host);

// The hybrid's line K (each row's first K nonzeros go to the per-row part); -1 for the others.
int spmv_line(const SpmvPlan *plan);

// y += A·x: x has cols entries, y rows, both device pointers. Launches the version's kernels,
// checks each launch (CUDA_CHECK_LAUNCH) and returns without waiting; the harness times it with
// CUDA events. Called more than once: it must not depend on what an earlier call left.
void spmv_run(SpmvPlan *plan, const float *x, float *y);

// Frees everything spmv_prepare allocated.
void spmv_release(SpmvPlan *plan);
