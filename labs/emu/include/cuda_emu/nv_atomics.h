// CUDA 12.8's __nv_atomic_* functions (the programming guide's "Atomic Functions" with a memory
// order and a thread scope): GCC's __atomic builtins on the same memory. The orders have GCC's
// values, so they pass through; every scope is the whole machine on a CPU (as _system is).
// Floating-point adds and min/max, which GCC has no builtin for, go through a compare-and-swap
// loop (atomics.h).
#pragma once

#include <type_traits>

#include "cuda_emu/atomics.h"

#define __NV_ATOMIC_RELAXED __ATOMIC_RELAXED
#define __NV_ATOMIC_CONSUME __ATOMIC_CONSUME
#define __NV_ATOMIC_ACQUIRE __ATOMIC_ACQUIRE
#define __NV_ATOMIC_RELEASE __ATOMIC_RELEASE
#define __NV_ATOMIC_ACQ_REL __ATOMIC_ACQ_REL
#define __NV_ATOMIC_SEQ_CST __ATOMIC_SEQ_CST
#define __NV_THREAD_SCOPE_THREAD 0
#define __NV_THREAD_SCOPE_BLOCK 1
#define __NV_THREAD_SCOPE_CLUSTER 2
#define __NV_THREAD_SCOPE_DEVICE 3
#define __NV_THREAD_SCOPE_SYSTEM 4

namespace cudaemu {
template <class T, class Update>
inline T nv_atomic_update(T *address, Update update)
{
    if constexpr (std::is_floating_point<T>::value) {
        using Bits = typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type;
        return atomic_update_float<T, Bits>(address, update);
    } else {
        return atomic_update(address, update);
    }
}
}  // namespace cudaemu

template <class T>
inline T __nv_atomic_fetch_add(T *ptr, T val, int order, int = __NV_THREAD_SCOPE_SYSTEM)
{
    if constexpr (std::is_floating_point<T>::value)
        return cudaemu::nv_atomic_update(ptr, [val](T old) { return old + val; });
    else
        return CUDAEMU_SEEN_ATOMIC(ptr), __atomic_fetch_add(ptr, val, order);
}
template <class T>
inline T __nv_atomic_fetch_sub(T *ptr, T val, int order, int = __NV_THREAD_SCOPE_SYSTEM)
{
    if constexpr (std::is_floating_point<T>::value)
        return cudaemu::nv_atomic_update(ptr, [val](T old) { return old - val; });
    else
        return CUDAEMU_SEEN_ATOMIC(ptr), __atomic_fetch_sub(ptr, val, order);
}
template <class T>
inline T __nv_atomic_fetch_and(T *ptr, T val, int order, int = __NV_THREAD_SCOPE_SYSTEM)
{
    return CUDAEMU_SEEN_ATOMIC(ptr), __atomic_fetch_and(ptr, val, order);
}
template <class T>
inline T __nv_atomic_fetch_or(T *ptr, T val, int order, int = __NV_THREAD_SCOPE_SYSTEM)
{
    return CUDAEMU_SEEN_ATOMIC(ptr), __atomic_fetch_or(ptr, val, order);
}
template <class T>
inline T __nv_atomic_fetch_xor(T *ptr, T val, int order, int = __NV_THREAD_SCOPE_SYSTEM)
{
    return CUDAEMU_SEEN_ATOMIC(ptr), __atomic_fetch_xor(ptr, val, order);
}
template <class T>
inline T __nv_atomic_fetch_min(T *ptr, T val, int, int = __NV_THREAD_SCOPE_SYSTEM)
{
    return cudaemu::nv_atomic_update(ptr, [val](T old) { return val < old ? val : old; });
}
template <class T>
inline T __nv_atomic_fetch_max(T *ptr, T val, int, int = __NV_THREAD_SCOPE_SYSTEM)
{
    return cudaemu::nv_atomic_update(ptr, [val](T old) { return old < val ? val : old; });
}
// The forms that return nothing.
#define CUDAEMU_NV_ATOMIC_VOID(op)                                                    \
    template <class T>                                                                \
    inline void __nv_atomic_##op(T *ptr, T val, int order, int scope = __NV_THREAD_SCOPE_SYSTEM) \
    {                                                                                 \
        __nv_atomic_fetch_##op(ptr, val, order, scope);                               \
    }
CUDAEMU_NV_ATOMIC_VOID(add)
CUDAEMU_NV_ATOMIC_VOID(sub)
CUDAEMU_NV_ATOMIC_VOID(and)
CUDAEMU_NV_ATOMIC_VOID(or)
CUDAEMU_NV_ATOMIC_VOID(xor)
CUDAEMU_NV_ATOMIC_VOID(min)
CUDAEMU_NV_ATOMIC_VOID(max)
#undef CUDAEMU_NV_ATOMIC_VOID

template <class T>
inline T __nv_atomic_load_n(const T *ptr, int order, int = __NV_THREAD_SCOPE_SYSTEM)
{
    return __atomic_load_n(ptr, order);
}
template <class T>
inline void __nv_atomic_load(const T *ptr, T *ret, int order, int = __NV_THREAD_SCOPE_SYSTEM)
{
    __atomic_load(ptr, ret, order);
}
template <class T>
inline void __nv_atomic_store_n(T *ptr, T val, int order, int = __NV_THREAD_SCOPE_SYSTEM)
{
    CUDAEMU_SEEN_ATOMIC(ptr);
    __atomic_store_n(ptr, val, order);
}
template <class T>
inline void __nv_atomic_store(T *ptr, T *val, int order, int = __NV_THREAD_SCOPE_SYSTEM)
{
    CUDAEMU_SEEN_ATOMIC(ptr);
    __atomic_store(ptr, val, order);
}
template <class T>
inline T __nv_atomic_exchange_n(T *ptr, T val, int order, int = __NV_THREAD_SCOPE_SYSTEM)
{
    return CUDAEMU_SEEN_ATOMIC(ptr), __atomic_exchange_n(ptr, val, order);
}
template <class T>
inline void __nv_atomic_exchange(T *ptr, T *val, T *ret, int order, int = __NV_THREAD_SCOPE_SYSTEM)
{
    CUDAEMU_SEEN_ATOMIC(ptr);
    __atomic_exchange(ptr, val, ret, order);
}
// A failed compare stores the value found in *expected, as C++'s compare_exchange does.
template <class T>
inline bool __nv_atomic_compare_exchange_n(T *ptr, T *expected, T desired, bool weak, int success_order,
                                           int failure_order, int = __NV_THREAD_SCOPE_SYSTEM)
{
    CUDAEMU_SEEN_ATOMIC(ptr);
    return __atomic_compare_exchange_n(ptr, expected, desired, weak, success_order, failure_order);
}
template <class T>
inline bool __nv_atomic_compare_exchange(T *ptr, T *expected, T *desired, bool weak, int success_order,
                                         int failure_order, int = __NV_THREAD_SCOPE_SYSTEM)
{
    CUDAEMU_SEEN_ATOMIC(ptr);
    return __atomic_compare_exchange(ptr, expected, desired, weak, success_order, failure_order);
}
inline void __nv_atomic_thread_fence(int order, int = __NV_THREAD_SCOPE_SYSTEM) { __atomic_thread_fence(order); }
