// The CUDA toolkit's nvblas.h: not part of the CPU emulator. This file stands in its place so
// that a build says so at the #include, wherever a toolkit happens to be installed.
#error "nvblas.h: cuBLAS is not emulated: the CPU emulator (nvcc-emu, EMU=1) provides the CUDA runtime API and the kernel language only"
