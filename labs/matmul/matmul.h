// Lab 2, matmul: the functions the student writes in matmul.c.
//
// Each function computes C = A·B for n×n float32 matrices stored row-major (element (i, j) of
// A is A[i * n + j]); A, B and C are device pointers. Each one launches its kernel, checks the
// launch with CUDA_CHECK_LAUNCH() and returns without waiting: the harness (main.cpp) owns the
// matrices, times the kernels with CUDA events, waits for them and checks C. Every kernel must
// be right for any n >= 1, in particular n that is not a multiple of the block or tile size.
// The story follows the slides' Lab #2 ([Baden & Unat 2010]).
#pragma once

#include "cuda_check.h"

// One thread per element of C, in 2D blocks of ntx × nty threads (threadIdx.x walks along a
// row of C, so a warp's loads of B and its store of C are coalesced). Enough blocks to cover
// all of C: n / ntx rounded up, and likewise in y.
void matmul_naive(const float *A, const float *B, float *C, int n, int ntx, int nty);

// Tiles of A and B staged in shared memory: blocks of tile × tile threads, each thread loads
// one element of A and one of B per tile and computes one element of C. tile is 4, 8, 16 or
// 32 (the harness checks).
void matmul_tiled(const float *A, const float *B, float *C, int n, int tile);

// Optional: the fastest kernel you can write (register blocking, wide loads, ...). It chooses
// its own block size. `make bench LAB=matmul` compares the reference solution's with cuBLAS.
void matmul_fast(const float *A, const float *B, float *C, int n);

// Optional (handout, exploration 7, "Past cuBLAS: tensor cores"): the product on tensor cores
// (nvcuda::wmma, TF32) at FP32 accuracy, each operand split into a TF32 value and a TF32
// residual and three tensor-core products summed ("3xTF32"). Its own block size, like fast.
void matmul_tensor(const float *A, const float *B, float *C, int n);
// The same with one tensor-core product of the operands rounded to TF32: faster, and only TF32
// accurate (the harness checks it against the TF32 bound, tf32_rtol in reference.h).
void matmul_tensor_1xtf32(const float *A, const float *B, float *C, int n);

// Explorations (handout, "Coalescing"): the two kernels above with the roles of x and y
// swapped, so that threadIdx.x walks down a column of C, as the slides' matMul and its
// "naively blocked" variant do. Same arguments, same results, different speed.
void matmul_naive_uncoalesced(const float *A, const float *B, float *C, int n, int ntx, int nty);
void matmul_tiled_uncoalesced(const float *A, const float *B, float *C, int n, int tile);
