// A part of CUB (NVIDIA's CUDA C++ block-, warp- and device-wide primitives) for the CPU
// emulator: the collectives HeCBench's programs use most, with CUB's names and call shapes.
//
//   BlockReduce<T, BLOCK_DIM_X[, algorithm, BLOCK_DIM_Y, BLOCK_DIM_Z]>(temp).Sum / Reduce
//       (the aggregate is valid in thread 0, as in CUB)
//   BlockScan<T, BLOCK_DIM_X, ...>(temp).ExclusiveSum / InclusiveSum / ExclusiveScan /
//       InclusiveScan, with or without the block aggregate
//   DeviceReduce::Sum / Max / Min / Reduce, DeviceScan::ExclusiveSum / InclusiveSum
//       (the two-call temporary-storage protocol; the work runs on the calling CPU thread,
//       which is where the emulator runs a stream's work in order anyway)
//   Sum, Max, Min functors
//
// A block collective stores each thread's value in TempStorage (the caller's __shared__
// variable), meets the block at __syncthreads(), and folds in thread-rank order: a floating-point
// result can differ in its last bits from CUB's tree order on a GPU. The algorithm template
// arguments (BLOCK_REDUCE_WARP_REDUCTIONS, BLOCK_SCAN_RAKING, ...) are accepted and change
// nothing. Everything else of CUB (radix sort, select, histogram, block load/store/exchange,
// iterators) is not here: a program using it does not compile.
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>
#include <utility>

#include <cuda_runtime.h>

namespace cub {
struct Sum {
    template <class T>
    __host__ __device__ T operator()(const T &a, const T &b) const { return a + b; }
};
struct Max {
    template <class T>
    __host__ __device__ T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
struct Min {
    template <class T>
    __host__ __device__ T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};

enum BlockReduceAlgorithm { BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, BLOCK_REDUCE_RAKING, BLOCK_REDUCE_WARP_REDUCTIONS };
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };

namespace detail {
inline int block_rank(int dim_x, int dim_y)
{
    return (int)threadIdx.x + (int)threadIdx.y * dim_x + (int)threadIdx.z * dim_x * dim_y;
}
}  // namespace detail

template <class T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockReduce {
    static constexpr int kThreads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

public:
    struct TempStorage {
        T values[kThreads];
    };
    __device__ BlockReduce(TempStorage &storage) : storage_(storage) {}

    template <class Op>
    __device__ T Reduce(T input, Op op) { return Reduce(input, op, kThreads); }
    template <class Op>
    __device__ T Reduce(T input, Op op, int num_valid)
    {
        const int rank = detail::block_rank(BLOCK_DIM_X, BLOCK_DIM_Y);
        storage_.values[rank] = input;
        __syncthreads();
        T aggregate = input;
        if (rank == 0) {
            for (int i = 1; i < num_valid && i < kThreads; ++i) aggregate = op(aggregate, storage_.values[i]);
        }
        __syncthreads();  // every thread has stored and thread 0 has read before the storage is reused
        return aggregate;
    }
    __device__ T Sum(T input) { return Reduce(input, cub::Sum()); }
    __device__ T Sum(T input, int num_valid) { return Reduce(input, cub::Sum(), num_valid); }

private:
    TempStorage &storage_;
};

template <class T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockScan {
    static constexpr int kThreads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

public:
    struct TempStorage {
        T values[kThreads];
        T aggregate;
    };
    __device__ BlockScan(TempStorage &storage) : storage_(storage) {}

    __device__ void ExclusiveSum(T input, T &output) { T zero = T(); Scan(input, output, cub::Sum(), true, &zero, nullptr); }
    __device__ void ExclusiveSum(T input, T &output, T &block_aggregate)
    {
        T zero = T();
        Scan(input, output, cub::Sum(), true, &zero, &block_aggregate);
    }
    __device__ void InclusiveSum(T input, T &output) { Scan(input, output, cub::Sum(), false, nullptr, nullptr); }
    __device__ void InclusiveSum(T input, T &output, T &block_aggregate)
    {
        Scan(input, output, cub::Sum(), false, nullptr, &block_aggregate);
    }
    template <class Op>
    __device__ void ExclusiveScan(T input, T &output, T initial_value, Op op)
    {
        Scan(input, output, op, true, &initial_value, nullptr);
    }
    template <class Op>
    __device__ void ExclusiveScan(T input, T &output, T initial_value, Op op, T &block_aggregate)
    {
        Scan(input, output, op, true, &initial_value, &block_aggregate);
    }
    template <class Op>
    __device__ void InclusiveScan(T input, T &output, Op op) { Scan(input, output, op, false, nullptr, nullptr); }
    template <class Op>
    __device__ void InclusiveScan(T input, T &output, Op op, T &block_aggregate)
    {
        Scan(input, output, op, false, nullptr, &block_aggregate);
    }

private:
    // Thread 0 scans the block's values in rank order, in place; the aggregate leaves out
    // `initial`, as CUB's does.
    template <class Op>
    __device__ void Scan(T input, T &output, Op op, bool exclusive, const T *initial, T *block_aggregate)
    {
        const int rank = detail::block_rank(BLOCK_DIM_X, BLOCK_DIM_Y);
        storage_.values[rank] = input;
        __syncthreads();
        if (rank == 0) {
            T prefix = initial ? *initial : T();
            bool started = initial != nullptr;
            T aggregate = storage_.values[0];
            for (int i = 0; i < kThreads; ++i) {
                const T value = storage_.values[i];
                if (i > 0) aggregate = op(aggregate, value);
                if (exclusive) storage_.values[i] = prefix;
                prefix = started ? op(prefix, value) : value;
                started = true;
                if (!exclusive) storage_.values[i] = prefix;
            }
            storage_.aggregate = aggregate;
        }
        __syncthreads();
        output = storage_.values[rank];
        if (block_aggregate) *block_aggregate = storage_.aggregate;
        __syncthreads();  // every thread has read before the storage is reused
    }

    TempStorage &storage_;
};

// Device-wide reductions and scans: called once with d_temp_storage null for the size of the
// temporary storage, then with it; the work runs on the calling thread.
namespace detail {
// The first call of the two-call protocol only asks the size: true if this is that call.
inline bool storage_size_query(const void *d_temp_storage, std::size_t &temp_storage_bytes)
{
    if (d_temp_storage != nullptr)
        return false;
    temp_storage_bytes = 1;  // CUB asks for some; a caller's cudaMalloc of 0 bytes would fail
    return true;
}
template <class Out>
using output_value_t = typename std::remove_reference<decltype(*std::declval<Out>())>::type;
}  // namespace detail

struct DeviceReduce {
    template <class In, class Out, class Op, class T>
    static cudaError_t Reduce(void *d_temp_storage, std::size_t &temp_storage_bytes, In d_in, Out d_out, int num_items,
                              Op op, T init, cudaStream_t = 0, bool = false)
    {
        if (detail::storage_size_query(d_temp_storage, temp_storage_bytes))
            return cudaSuccess;
        T total = init;
        for (int i = 0; i < num_items; ++i) total = op(total, d_in[i]);
        *d_out = total;
        return cudaSuccess;
    }
// Sum, Max and Min: Reduce with the functor of that name, from its identity for the output's type.
#define CUB_EMU_DEVICE_REDUCTION(Name, identity)                                                                   \
    template <class In, class Out>                                                                                 \
    static cudaError_t Name(void *d_temp_storage, std::size_t &temp_storage_bytes, In d_in, Out d_out, int num_items, \
                            cudaStream_t stream = 0, bool debug = false)                                           \
    {                                                                                                              \
        using T = detail::output_value_t<Out>;                                                                     \
        return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, cub::Name(), identity, stream,   \
                      debug);                                                                                      \
    }
    CUB_EMU_DEVICE_REDUCTION(Sum, T())
    CUB_EMU_DEVICE_REDUCTION(Max, std::numeric_limits<T>::lowest())
    CUB_EMU_DEVICE_REDUCTION(Min, std::numeric_limits<T>::max())
#undef CUB_EMU_DEVICE_REDUCTION
};

struct DeviceScan {
    template <class In, class Out>
    static cudaError_t ExclusiveSum(void *d_temp_storage, std::size_t &temp_storage_bytes, In d_in, Out d_out,
                                    int num_items, cudaStream_t = 0, bool = false)
    {
        if (!detail::storage_size_query(d_temp_storage, temp_storage_bytes))
            SumScan(d_in, d_out, num_items, true);
        return cudaSuccess;
    }
    template <class In, class Out>
    static cudaError_t InclusiveSum(void *d_temp_storage, std::size_t &temp_storage_bytes, In d_in, Out d_out,
                                    int num_items, cudaStream_t = 0, bool = false)
    {
        if (!detail::storage_size_query(d_temp_storage, temp_storage_bytes))
            SumScan(d_in, d_out, num_items, false);
        return cudaSuccess;
    }

private:
    template <class In, class Out>
    static void SumScan(In d_in, Out d_out, int num_items, bool exclusive)
    {
        using T = detail::output_value_t<Out>;
        T running = T();
        for (int i = 0; i < num_items; ++i) {
            const T value = d_in[i];  // read before the write: d_in and d_out may be one array
            const T before = running;
            running = running + value;
            d_out[i] = exclusive ? before : running;
        }
    }
};
}  // namespace cub
