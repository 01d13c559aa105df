// cuBLAS SGEMM in plain FP32: the ceiling `matmul --bench` measures the kernels against; and
// in TF32 mode, the error table's other library row.
// Only the bench uses it; under the CPU emulator (EMU=1) there is no cuBLAS, and creating one
// throws a LabError that says so.
#pragma once

#include <string>

// Default and Pedantic (CUBLAS_PEDANTIC_MATH: prescribed precision in every phase) compute in
// FP32 (CUBLAS_COMPUTE_32F): never TF32. Tf32: CUBLAS_COMPUTE_32F_FAST_TF32, the operands
// rounded to TF32 on the tensor cores.
enum class CublasMath { Default, Pedantic, Tf32 };

class CublasSgemm {
public:
    explicit CublasSgemm(CublasMath math);
    ~CublasSgemm();
    CublasSgemm(const CublasSgemm &) = delete;
    CublasSgemm &operator=(const CublasSgemm &) = delete;

    // C = A·B for n×n row-major device matrices; returns without waiting, like the kernels.
    void run(const float *A, const float *B, float *C, int n);
    std::string describe() const;  // the call and math mode, for the bench's header

private:
    void *handle_ = nullptr;
    CublasMath math_;
};
