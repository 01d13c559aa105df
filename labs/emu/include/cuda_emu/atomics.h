// CUDA's atomic functions on the host: GCC's __atomic builtins on the same memory, relaxed
// as a GPU's atomics are (order with __threadfence()). Each returns the old value, as in CUDA.
// The _block and _system scopes are the same operation on a CPU.
#pragma once

#include <cstddef>
#include <cstring>

namespace cudaemu {
// The profiler (EMU_PROFILE) counts atomics: one test of a flag when it is off.
extern bool atomic_hooks_on;
void observe_atomic(const void *address, std::size_t size);
}  // namespace cudaemu
#define CUDAEMU_SEEN_ATOMIC(a) \
    (__builtin_expect(::cudaemu::atomic_hooks_on, 0) ? ::cudaemu::observe_atomic(a, sizeof(*(a))) : void())

namespace cudaemu {
// Read-modify-write through compare-and-swap, for the operations GCC has no builtin for
// (float add, min/max, inc/dec). `update` maps the old value to the new one.
template <class T, class Update>
inline T atomic_update(T *address, Update update)
{
    CUDAEMU_SEEN_ATOMIC(address);
    T old = __atomic_load_n(address, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(address, &old, update(old), true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}
// Floating-point operations act on the value's bits through a same-sized integer.
template <class F, class Bits, class Update>
inline F atomic_update_float(F *address, Update update)
{
    CUDAEMU_SEEN_ATOMIC(address);
    Bits *bits = reinterpret_cast<Bits *>(address);
    Bits old = __atomic_load_n(bits, __ATOMIC_RELAXED);
    for (;;) {
        F old_value, new_value;
        std::memcpy(&old_value, &old, sizeof(F));
        new_value = update(old_value);
        Bits new_bits;
        std::memcpy(&new_bits, &new_value, sizeof(F));
        if (__atomic_compare_exchange_n(bits, &old, new_bits, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return old_value;
    }
}
}  // namespace cudaemu

#define CUDAEMU_ATOMIC_SCOPES(ret, name, params, args) \
    inline ret name##_block params { return name args; } \
    inline ret name##_system params { return name args; }

#define CUDAEMU_ATOMIC_INT_OPS(T)                                                                    \
    inline T atomicAdd(T *a, T v) { return CUDAEMU_SEEN_ATOMIC(a), __atomic_fetch_add(a, v, __ATOMIC_RELAXED); }             \
    inline T atomicExch(T *a, T v) { return CUDAEMU_SEEN_ATOMIC(a), __atomic_exchange_n(a, v, __ATOMIC_RELAXED); }           \
    inline T atomicAnd(T *a, T v) { return CUDAEMU_SEEN_ATOMIC(a), __atomic_fetch_and(a, v, __ATOMIC_RELAXED); }             \
    inline T atomicOr(T *a, T v) { return CUDAEMU_SEEN_ATOMIC(a), __atomic_fetch_or(a, v, __ATOMIC_RELAXED); }               \
    inline T atomicXor(T *a, T v) { return CUDAEMU_SEEN_ATOMIC(a), __atomic_fetch_xor(a, v, __ATOMIC_RELAXED); }             \
    inline T atomicMin(T *a, T v) { return cudaemu::atomic_update(a, [v](T old) { return v < old ? v : old; }); } \
    inline T atomicMax(T *a, T v) { return cudaemu::atomic_update(a, [v](T old) { return v > old ? v : old; }); } \
    inline T atomicCAS(T *a, T compare, T v)                                                          \
    {                                                                                                 \
        CUDAEMU_SEEN_ATOMIC(a);                                                                       \
        __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);       \
        return compare;                                                                               \
    }                                                                                                 \
    CUDAEMU_ATOMIC_SCOPES(T, atomicAdd, (T * a, T v), (a, v))                                        \
    CUDAEMU_ATOMIC_SCOPES(T, atomicExch, (T * a, T v), (a, v))                                       \
    CUDAEMU_ATOMIC_SCOPES(T, atomicAnd, (T * a, T v), (a, v))                                        \
    CUDAEMU_ATOMIC_SCOPES(T, atomicOr, (T * a, T v), (a, v))                                         \
    CUDAEMU_ATOMIC_SCOPES(T, atomicXor, (T * a, T v), (a, v))                                        \
    CUDAEMU_ATOMIC_SCOPES(T, atomicMin, (T * a, T v), (a, v))                                        \
    CUDAEMU_ATOMIC_SCOPES(T, atomicMax, (T * a, T v), (a, v))                                        \
    CUDAEMU_ATOMIC_SCOPES(T, atomicCAS, (T * a, T c, T v), (a, c, v))

CUDAEMU_ATOMIC_INT_OPS(int)
CUDAEMU_ATOMIC_INT_OPS(unsigned int)
CUDAEMU_ATOMIC_INT_OPS(unsigned long long)
#undef CUDAEMU_ATOMIC_INT_OPS

inline int atomicSub(int *a, int v) { return CUDAEMU_SEEN_ATOMIC(a), __atomic_fetch_sub(a, v, __ATOMIC_RELAXED); }
inline unsigned int atomicSub(unsigned int *a, unsigned int v) { return CUDAEMU_SEEN_ATOMIC(a), __atomic_fetch_sub(a, v, __ATOMIC_RELAXED); }
CUDAEMU_ATOMIC_SCOPES(int, atomicSub, (int *a, int v), (a, v))
CUDAEMU_ATOMIC_SCOPES(unsigned int, atomicSub, (unsigned int *a, unsigned int v), (a, v))

// long long has min and max (and nothing else) in CUDA.
inline long long atomicMin(long long *a, long long v)
{
    return cudaemu::atomic_update(a, [v](long long old) { return v < old ? v : old; });
}
inline long long atomicMax(long long *a, long long v)
{
    return cudaemu::atomic_update(a, [v](long long old) { return v > old ? v : old; });
}
CUDAEMU_ATOMIC_SCOPES(long long, atomicMin, (long long *a, long long v), (a, v))
CUDAEMU_ATOMIC_SCOPES(long long, atomicMax, (long long *a, long long v), (a, v))

inline unsigned short atomicCAS(unsigned short *a, unsigned short compare, unsigned short v)
{
    CUDAEMU_SEEN_ATOMIC(a);
    __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return compare;
}

// atomicInc wraps to 0 past `limit`; atomicDec wraps to `limit` below 1 (CUDA's definitions).
inline unsigned int atomicInc(unsigned int *a, unsigned int limit)
{
    return cudaemu::atomic_update(a, [limit](unsigned int old) { return old >= limit ? 0u : old + 1; });
}
inline unsigned int atomicDec(unsigned int *a, unsigned int limit)
{
    return cudaemu::atomic_update(a, [limit](unsigned int old) { return (old == 0 || old > limit) ? limit : old - 1; });
}
CUDAEMU_ATOMIC_SCOPES(unsigned int, atomicInc, (unsigned int *a, unsigned int v), (a, v))
CUDAEMU_ATOMIC_SCOPES(unsigned int, atomicDec, (unsigned int *a, unsigned int v), (a, v))

inline float atomicAdd(float *a, float v)
{
    return cudaemu::atomic_update_float<float, unsigned int>(a, [v](float old) { return old + v; });
}
inline double atomicAdd(double *a, double v)
{
    return cudaemu::atomic_update_float<double, unsigned long long>(a, [v](double old) { return old + v; });
}
inline float atomicExch(float *a, float v)
{
    return cudaemu::atomic_update_float<float, unsigned int>(a, [v](float) { return v; });
}
CUDAEMU_ATOMIC_SCOPES(float, atomicAdd, (float *a, float v), (a, v))
CUDAEMU_ATOMIC_SCOPES(double, atomicAdd, (double *a, double v), (a, v))
CUDAEMU_ATOMIC_SCOPES(float, atomicExch, (float *a, float v), (a, v))
#undef CUDAEMU_ATOMIC_SCOPES

// Fences: a GPU orders memory at these points; on the host a full fence does the same.
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
