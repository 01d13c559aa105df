// CUDA's built-in vector types (dim3, uint3, float4, ...) and their make_* constructors,
// with the same member names and alignment as CUDA's, for code compiled by the emulator.
#pragma once
// The guard macro nvcc's header defines; helper headers test it.
#define __VECTOR_TYPES_H__

#include <cstddef>

#define CUDAEMU_VECTOR_TYPES(type, name, align2, align4)                                        \
    struct name##1 { type x; };                                                                 \
    struct alignas(align2) name##2 { type x, y; };                                              \
    struct name##3 { type x, y, z; };                                                           \
    struct alignas(align4) name##4 { type x, y, z, w; };                                        \
    inline name##1 make_##name##1(type x) { return name##1{x}; }                                \
    inline name##2 make_##name##2(type x, type y) { return name##2{x, y}; }                     \
    inline name##3 make_##name##3(type x, type y, type z) { return name##3{x, y, z}; }          \
    inline name##4 make_##name##4(type x, type y, type z, type w) { return name##4{x, y, z, w}; }

CUDAEMU_VECTOR_TYPES(signed char, char, 2, 4)
CUDAEMU_VECTOR_TYPES(unsigned char, uchar, 2, 4)
CUDAEMU_VECTOR_TYPES(short, short, 4, 8)
CUDAEMU_VECTOR_TYPES(unsigned short, ushort, 4, 8)
CUDAEMU_VECTOR_TYPES(int, int, 8, 16)
CUDAEMU_VECTOR_TYPES(unsigned int, uint, 8, 16)
CUDAEMU_VECTOR_TYPES(long, long, 2 * sizeof(long), 16)
CUDAEMU_VECTOR_TYPES(unsigned long, ulong, 2 * sizeof(long), 16)
CUDAEMU_VECTOR_TYPES(long long, longlong, 16, 16)
CUDAEMU_VECTOR_TYPES(unsigned long long, ulonglong, 16, 16)
CUDAEMU_VECTOR_TYPES(float, float, 8, 16)
CUDAEMU_VECTOR_TYPES(double, double, 16, 16)

#undef CUDAEMU_VECTOR_TYPES

// dim3: a uint3 whose unspecified components are 1, convertible to and from uint3.
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};
