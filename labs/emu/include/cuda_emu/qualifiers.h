// CUDA's function and variable qualifiers, as the host compiler sees them under emulation:
// every function is a host function, so the execution-space qualifiers vanish.
#pragma once

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __grid_constant__
#define __forceinline__ inline
#define __inline_hint__ inline
// __noinline__ is not defined here: the rewriter turns it into __attribute__((noinline)) in the
// student's code, since libstdc++'s headers use __noinline__ as the attribute's own spelling.
#define __launch_bounds__(...)
#define __maxnreg__(n)
#define __cluster_dims__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define __cudart_builtin__
#define CUDART_CB

// The launch rewriter turns each __shared__ declaration it reads into a reference into the
// running block's shared memory. One it cannot read (say, a __shared__ spelled by a macro)
// keeps this meaning: one variable per CPU thread, which is still one per running block
// because a CPU thread runs one block at a time; it only misses AddressSanitizer's redzones.
#define __shared__ static thread_local
