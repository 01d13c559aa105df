// The CUDA toolkit's cuda_bf16.h: not part of the CPU emulator. This file stands in its place so
// that a build says so at the #include, wherever a toolkit happens to be installed.
#error "cuda_bf16.h: bfloat16 (cuda_bf16.h) is not emulated: the CPU emulator (nvcc-emu, EMU=1) provides the CUDA runtime API and the kernel language only"
