#include "cublas_sgemm.h"

#include "lab_error.h"

#ifndef LABKIT_EMU

#include <cublas_v2.h>

#include "library_check.h"

#define CUBLAS_CHECK(call) LAB_LIBRARY_CHECK("cuBLAS", call, CUBLAS_STATUS_SUCCESS, cublasGetStatusString)

CublasSgemm::CublasSgemm(CublasMath math) : math_(math)
{
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetMathMode(handle, math == CublasMath::Pedantic ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH));
    handle_ = handle;
}

CublasSgemm::~CublasSgemm() { cublasDestroy(static_cast<cublasHandle_t>(handle_)); }

void CublasSgemm::run(const float *A, const float *B, float *C, int n)
{
    const float one = 1.0f, zero = 0.0f;
    // cuBLAS is column-major: a row-major matrix is its transpose, so row-major C = A·B is
    // column-major Cᵀ = Bᵀ·Aᵀ, which is B times A in cuBLAS's eyes.
    CUBLAS_CHECK(cublasGemmEx(static_cast<cublasHandle_t>(handle_), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                              B, CUDA_R_32F, n, A, CUDA_R_32F, n, &zero, C, CUDA_R_32F, n,
                              math_ == CublasMath::Tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
}

std::string CublasSgemm::describe() const
{
    if (math_ == CublasMath::Tf32)
        return "cublasGemmEx, FP32 in and out, CUBLAS_COMPUTE_32F_FAST_TF32";
    return std::string("cublasGemmEx, FP32 in and out, CUBLAS_COMPUTE_32F, ") +
           (math_ == CublasMath::Pedantic ? "CUBLAS_PEDANTIC_MATH" : "CUBLAS_DEFAULT_MATH");
}

#else  // LABKIT_EMU: no cuBLAS on the CPU

CublasSgemm::CublasSgemm(CublasMath math) : math_(math)
{
    throw LabError("cuBLAS is unavailable under CPU emulation (EMU=1): --bench needs a GPU");
}

CublasSgemm::~CublasSgemm() {}

void CublasSgemm::run(const float *, const float *, float *, int) {}

std::string CublasSgemm::describe() const { return "cuBLAS (unavailable under emulation)"; }

#endif
