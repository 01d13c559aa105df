// The rest of what device code calls: clocks, sleeping, traps, cached loads. printf and assert
// in a kernel are the host's (include <stdio.h> / <assert.h> as with nvcc).
#pragma once

#include <csignal>
#include <cstdlib>
#include <ctime>

namespace cudaemu {
long long clock_ticks();  // a monotonic nanosecond count: the emulator's clock64()
// clock() in device code (the rewriter's rewriting: rewriter/device_calls.py): clock_ticks()
// in a kernel, the C library's clock() outside one.
clock_t device_clock();
void nanosleep_ns(unsigned int ns);
}  // namespace cudaemu

inline long long clock64() { return cudaemu::clock_ticks(); }
inline void __nanosleep(unsigned int ns) { cudaemu::nanosleep_ns(ns); }
// __trap aborts the kernel on a GPU; here it stops the program where gdb can see it.
inline void __trap() { std::abort(); }
inline void __brkpt() { std::raise(SIGTRAP); }

// Loads through the read-only or streaming caches are plain loads on a CPU.
template <class T> inline T __ldg(const T *p) { return *p; }
template <class T> inline T __ldcg(const T *p) { return *p; }
template <class T> inline T __ldca(const T *p) { return *p; }
template <class T> inline T __ldcs(const T *p) { return *p; }
template <class T> inline T __ldlu(const T *p) { return *p; }
template <class T> inline T __ldcv(const T *p) { return *p; }
template <class T> inline void __stcg(T *p, T v) { *p = v; }
template <class T> inline void __stcs(T *p, T v) { *p = v; }
template <class T> inline void __stwb(T *p, T v) { *p = v; }
template <class T> inline void __stwt(T *p, T v) { *p = v; }
