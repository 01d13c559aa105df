// Error checking used by every lab, harness and student file alike.
//
// CUDA_CHECK(call)     runs a runtime call; on failure prints the call, file, line and
//                      CUDA's error string, then exits with LAB_EXIT_CUDA.
// CUDA_CHECK_LAUNCH()  after a kernel launch: a bad launch configuration is only reported
//                      by cudaGetLastError, never by the launch itself.
// LAB_TODO("what")     marks host code a student still has to write; the program stops
//                      there and says which TODO, so nobody mistakes a stub for a bug.
#pragma once

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "exit_codes.h"
#include "findings.h"

static inline void lab_cuda_fail(cudaError_t err, const char *call, const char *file, int line)
{
    char said[1024];
    snprintf(said, sizeof said, "CUDA error: %s failed at %s:%d: %s (%s)", call, file, line,
             cudaGetErrorString(err), cudaGetErrorName(err));
    lab_finding("cuda_error", cudaGetErrorName(err), said);
    fprintf(stderr,
            "%s\n"
            "  Fix the call at that line; if the error came from an earlier kernel, run with\n"
            "  CUDA_LAUNCH_BLOCKING=1 or under compute-sanitizer to find the launch that failed.\n",
            said);
    exit(LAB_EXIT_CUDA);
}

__attribute__((noreturn)) static inline void lab_todo(const char *what, const char *file, int line)
{
    char said[1024];
    snprintf(said, sizeof said, "TODO not done: %s (%s:%d)", what, file, line);
    lab_finding("todo", NULL, said);
    fprintf(stderr, "%s\n", said);
    exit(LAB_EXIT_TODO);
}

#define CUDA_CHECK(call)                                                  \
    do {                                                                  \
        cudaError_t lab_err_ = (call);                                    \
        if (lab_err_ != cudaSuccess)                                      \
            lab_cuda_fail(lab_err_, #call, __FILE__, __LINE__);           \
    } while (0)

#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

#define LAB_TODO(what) lab_todo(what, __FILE__, __LINE__)
