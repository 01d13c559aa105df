#include "cusparse_spmv.h"

#include "lab_error.h"

#ifndef LABKIT_EMU

#include <cusparse.h>

#include "cuda_check.h"
#include "library_check.h"

#define CUSPARSE_CHECK(call) LAB_LIBRARY_CHECK("cuSPARSE", call, CUSPARSE_STATUS_SUCCESS, cusparseGetErrorString)

// Dense vectors are described per call: the bench passes the same x and y each time, and
// creating a descriptor is a host-side step of nanoseconds.
static cusparseDnVecDescr_t vector(int size, const float *data)
{
    cusparseDnVecDescr_t v;
    CUSPARSE_CHECK(cusparseCreateDnVec(&v, size, const_cast<float *>(data), CUDA_R_32F));
    return v;
}

CusparseSpmv::CusparseSpmv(int rows, int cols, int nnz, const int *row_ptr, const int *col_idx, const float *values)
    : rows_(rows), cols_(cols)
{
    cusparseHandle_t handle;
    CUSPARSE_CHECK(cusparseCreate(&handle));
    handle_ = handle;
    cusparseSpMatDescr_t matrix;
    CUSPARSE_CHECK(cusparseCreateCsr(&matrix, rows, cols, nnz, const_cast<int *>(row_ptr), const_cast<int *>(col_idx),
                                     const_cast<float *>(values), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    matrix_ = matrix;
    // The workspace cuSPARSE asks for, sized on scratch vectors of the right lengths.
    float *x = nullptr, *y = nullptr;
    CUDA_CHECK(cudaMalloc((void **)&x, sizeof(float) * cols));
    CUDA_CHECK(cudaMalloc((void **)&y, sizeof(float) * rows));
    cusparseDnVecDescr_t vx = vector(cols, x), vy = vector(rows, y);
    const float one = 1.0f;
    size_t bytes = 0;
    CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix, vx, &one, vy,
                                           CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1, &bytes));
    CUDA_CHECK(cudaMalloc(&buffer_, bytes ? bytes : 1));
    CUSPARSE_CHECK(cusparseDestroyDnVec(vx));
    CUSPARSE_CHECK(cusparseDestroyDnVec(vy));
    CUDA_CHECK(cudaFree(x));
    CUDA_CHECK(cudaFree(y));
}

CusparseSpmv::~CusparseSpmv()
{
    cusparseDestroySpMat(static_cast<cusparseSpMatDescr_t>(matrix_));
    cusparseDestroy(static_cast<cusparseHandle_t>(handle_));
    cudaFree(buffer_);
}

void CusparseSpmv::run(const float *x, float *y)
{
    cusparseDnVecDescr_t vx = vector(cols_, x), vy = vector(rows_, y);
    const float one = 1.0f;
    CUSPARSE_CHECK(cusparseSpMV(static_cast<cusparseHandle_t>(handle_), CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                static_cast<cusparseSpMatDescr_t>(matrix_), vx, &one, vy, CUDA_R_32F,
                                CUSPARSE_SPMV_CSR_ALG1, buffer_));
    CUSPARSE_CHECK(cusparseDestroyDnVec(vx));
    CUSPARSE_CHECK(cusparseDestroyDnVec(vy));
}

std::string CusparseSpmv::describe() const
{
    return "cusparseSpMV, CSR, FP32 in and out, CUSPARSE_SPMV_CSR_ALG1";
}

#else  // LABKIT_EMU: no cuSPARSE on the CPU

CusparseSpmv::CusparseSpmv(int, int, int, const int *, const int *, const float *)
{
    throw LabError("cuSPARSE is unavailable under CPU emulation (EMU=1): the bench's cuSPARSE row needs a GPU");
}

CusparseSpmv::~CusparseSpmv() {}

void CusparseSpmv::run(const float *, float *) {}

std::string CusparseSpmv::describe() const { return "cuSPARSE (unavailable under emulation)"; }

#endif
