// The CUDA toolkit's cuda_gl_interop.h: not part of the CPU emulator. This file stands in its place so
// that a build says so at the #include, wherever a toolkit happens to be installed.
#error "cuda_gl_interop.h: graphics interoperability (OpenGL, EGL, VDPAU) is not emulated: the CPU emulator (nvcc-emu, EMU=1) provides the CUDA runtime API and the kernel language only"
