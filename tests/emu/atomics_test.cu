// Atomics under contention: every thread of many blocks, on several CPU threads, updates the
// same few words; the totals must come out exact.
#include "emu_test_util.h"

__global__ void contend(int *i, unsigned int *u, unsigned long long *ull, float *f, double *d)
{
    atomicAdd(i, 1);
    atomicAdd(u, 2u);
    atomicAdd(ull, 3ull);
    atomicAdd(f, 1.0f);  // sums of small integers are exact in float up to 2^24
    atomicAdd(d, 0.5);
    atomicSub(i, 0);
}

TEST(Atomics, AddUnderContention)
{
    DeviceArray<int> i(1);
    DeviceArray<unsigned int> u(1);
    DeviceArray<unsigned long long> ull(1);
    DeviceArray<float> f(1);
    DeviceArray<double> d(1);
    const int blocks = 512, threads = 256;
    contend<<<blocks, threads>>>(i.get(), u.get(), ull.get(), f.get(), d.get());
    ASSERT_CUDA_OK(cudaGetLastError());
    const long long total = (long long)blocks * threads;
    EXPECT_EQ(total, i.host()[0]);
    EXPECT_EQ(2 * total, (long long)u.host()[0]);
    EXPECT_EQ(3ull * total, ull.host()[0]);
    EXPECT_EQ((float)total, f.host()[0]);
    EXPECT_EQ(0.5 * total, d.host()[0]);
}

__global__ void min_max_bits(const int *values, int *minimum, int *maximum, unsigned int *and_bits,
                             unsigned int *or_bits, unsigned int *xor_bits, unsigned long long *umax)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicMin(minimum, values[i]);
    atomicMax(maximum, values[i]);
    atomicAnd(and_bits, ~(1u << (i % 32)) | (1u << 31));
    atomicOr(or_bits, 1u << (i % 32));
    atomicXor(xor_bits, 1u);
    atomicMax(umax, (unsigned long long)i << 32);
}

TEST(Atomics, MinMaxAndBitwise)
{
    const int n = 4096;
    std::vector<int> values(n);
    for (int i = 0; i < n; ++i) values[i] = (i * 7919) % 10007 - 5000;
    DeviceArray<int> d_values(values), minimum(std::vector<int>{1 << 30}), maximum(std::vector<int>{-(1 << 30)});
    DeviceArray<unsigned int> and_bits(std::vector<unsigned int>{0xffffffffu}), or_bits(1), xor_bits(1);
    DeviceArray<unsigned long long> umax(1);
    min_max_bits<<<n / 256, 256>>>(d_values.get(), minimum.get(), maximum.get(), and_bits.get(), or_bits.get(),
                                  xor_bits.get(), umax.get());
    EXPECT_EQ(*std::min_element(values.begin(), values.end()), minimum.host()[0]);
    EXPECT_EQ(*std::max_element(values.begin(), values.end()), maximum.host()[0]);
    EXPECT_EQ(1u << 31, and_bits.host()[0]);
    EXPECT_EQ(0xffffffffu, or_bits.host()[0]);
    EXPECT_EQ(0u, xor_bits.host()[0]);  // an even number of flips
    EXPECT_EQ((unsigned long long)(n - 1) << 32, umax.host()[0]);
}

// A lock built from atomicCAS and atomicExch guards a non-atomic counter.
__global__ void locked_increment(int *lock, int *counter)
{
    if (threadIdx.x != 0) return;  // one thread per block takes the lock (no intra-block spinning)
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    *counter += 1;
    __threadfence();
    atomicExch(lock, 0);
}

TEST(Atomics, CompareAndSwapLockAcrossBlocks)
{
    DeviceArray<int> lock(1), counter(1);
    locked_increment<<<2000, 32>>>(lock.get(), counter.get());
    EXPECT_EQ(2000, counter.host()[0]);
}

__global__ void inc_dec(unsigned int *wrapping_up, unsigned int *wrapping_down, unsigned int *tickets, int *exchanged)
{
    atomicInc(wrapping_up, 9);    // counts 0..9 then wraps to 0
    atomicDec(wrapping_down, 9);  // counts down, wrapping from 0 to 9
    unsigned int ticket = atomicAdd(tickets, 1u);  // the old value: each thread gets its own
    atomicExch(&exchanged[ticket], (int)ticket + 1);
}

TEST(Atomics, IncDecWrapAndReturnOldValues)
{
    DeviceArray<unsigned int> up(1), down(1), tickets(1);
    DeviceArray<int> exchanged(1000);
    inc_dec<<<10, 100>>>(up.get(), down.get(), tickets.get(), exchanged.get());
    EXPECT_EQ(1000u % 10, up.host()[0]);
    EXPECT_EQ(0u, down.host()[0]);  // 1000 decrements from 0 modulo 10
    std::vector<int> values = exchanged.host();
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(i + 1, values[i]);
}

// CUDA 12.8's __nv_atomic_* functions, with a memory order and a scope (HeCBench's atomicCAS
// and scatter use them).
__global__ void nv_atomics(unsigned long long *sum, int *largest, float *total, int *claimed)
{
    __nv_atomic_fetch_add(sum, (unsigned long long)threadIdx.x, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
    __nv_atomic_max(largest, (int)threadIdx.x * 3, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_BLOCK);
    __nv_atomic_fetch_add(total, 0.5f, __NV_ATOMIC_RELAXED);
    int expected = 0;
    if (__nv_atomic_compare_exchange_n(claimed, &expected, (int)threadIdx.x + 1, false, __NV_ATOMIC_ACQ_REL,
                                       __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE))
        __nv_atomic_thread_fence(__NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_DEVICE);
}

TEST(Atomics, NvAtomicFunctionsWithOrderAndScope)
{
    DeviceArray<unsigned long long> sum(1);
    DeviceArray<int> largest(1), claimed(1);
    DeviceArray<float> total(1);
    nv_atomics<<<1, 64>>>(sum.get(), largest.get(), total.get(), claimed.get());
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
    EXPECT_EQ(64ull * 63 / 2, sum.host()[0]);
    EXPECT_EQ(63 * 3, largest.host()[0]);
    EXPECT_EQ(32.0f, total.host()[0]);
    const int winner = claimed.host()[0];
    EXPECT_TRUE(winner >= 1 && winner <= 64) << winner;  // exactly one thread's value
    EXPECT_EQ(64ull * 63 / 2, __nv_atomic_load_n(sum.host().data(), __NV_ATOMIC_ACQUIRE));
}
