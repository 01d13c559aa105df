// The status check of a CUDA library call (cuBLAS, cuSPARSE), the library's own CUDA_CHECK: on
// failure it prints the call, file, line and the library's words for the status, then exits
// with LAB_EXIT_CUDA. Each library's macro names its success value and its status text:
//
//   #define CUBLAS_CHECK(call) \
//       LAB_LIBRARY_CHECK("cuBLAS", call, CUBLAS_STATUS_SUCCESS, cublasGetStatusString)
#pragma once

#include <cstdio>
#include <cstdlib>

#include "exit_codes.h"

template <class Status>
static inline void lab_library_check(const char *library, Status status, Status success,
                                     const char *(*status_text)(Status), const char *call, const char *file,
                                     int line)
{
    if (status == success)
        return;
    std::fprintf(stderr, "%s error: %s failed at %s:%d: %s\n", library, call, file, line, status_text(status));
    std::exit(LAB_EXIT_CUDA);
}

#define LAB_LIBRARY_CHECK(library, call, success, status_text) \
    lab_library_check(library, (call), success, status_text, #call, __FILE__, __LINE__)
