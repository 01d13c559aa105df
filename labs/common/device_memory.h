// Device arrays that free themselves: a harness's device-side state (A, B and C; the bodies; the
// matrix and vectors) allocates through one DeviceMemory, which frees every array it made when
// the state goes out of scope.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "cuda_check.h"

class DeviceMemory {
public:
    DeviceMemory() = default;
    ~DeviceMemory()
    {
        for (void *array : arrays_)
            cudaFree(array);  // unchecked: a destructor also runs on the way out of an error
    }
    DeviceMemory(const DeviceMemory &) = delete;
    DeviceMemory &operator=(const DeviceMemory &) = delete;

    // `count` elements, not initialized; at least one, since cudaMalloc(0) gives no address.
    template <class T>
    T *alloc(size_t count)
    {
        void *array = nullptr;
        CUDA_CHECK(cudaMalloc(&array, std::max<size_t>(count, 1) * sizeof(T)));
        arrays_.push_back(array);
        return static_cast<T *>(array);
    }

    // `count` elements copied from `host` (its bytes taken as they are: a host Body is a float4).
    template <class T>
    T *copy_of(const void *host, size_t count)
    {
        T *array = alloc<T>(count);
        CUDA_CHECK(cudaMemcpy(array, host, count * sizeof(T), cudaMemcpyHostToDevice));
        return array;
    }

private:
    std::vector<void *> arrays_;
};
