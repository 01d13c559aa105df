// cuBLAS SGEMM in plain FP32: the ceiling `matmul --bench` measures the kernels against.
// Only the bench uses it; under the CPU emulator (EMU=1) there is no cuBLAS, and creating one
// throws a LabError that says so.
#pragma once

#include <string>

class CublasSgemm {
public:
    // pedantic: CUBLAS_PEDANTIC_MATH (prescribed precision in every phase) instead of
    // CUBLAS_DEFAULT_MATH. Both compute in FP32 (CUBLAS_COMPUTE_32F): never TF32.
    explicit CublasSgemm(bool pedantic);
    ~CublasSgemm();
    CublasSgemm(const CublasSgemm &) = delete;
    CublasSgemm &operator=(const CublasSgemm &) = delete;

    // C = A·B for n×n row-major device matrices; returns without waiting, like the kernels.
    void run(const float *A, const float *B, float *C, int n);
    std::string describe() const;  // the call and math mode, for the bench's header

private:
    void *handle_ = nullptr;
    bool pedantic_;
};
