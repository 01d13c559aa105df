"""The profile's runs (engine/profiler.h): a thread's accesses of one site a stride apart are kept
as one run, and a long stretch of requests with one stride for all lanes is counted a period at
a time. Loops here are long enough for that, and their figures are worked out by hand: the
period, what is left after the last whole one, lanes that leave a loop early, a 16-byte chain
across a loop, a store run and who wrote it."""

from __future__ import annotations

import pytest

from test_profile import build_and_profile, totals

PROGRAM = r'''
#include <vector>

// One warp, 100 requests: lane i reads in[i + 3 j], 128 bytes from byte 12 j. That is 4 sectors
// where 12 j is a multiple of 32 (j = 0, 8, ..., 96: 13 of them), else 5: 13 * 4 + 87 * 5 = 487.
__global__ void shifting(const float *in, float *out)
{
    float sum = 0.0f;
    for (int j = 0; j < 100; ++j) sum += in[threadIdx.x + 3 * j];
    out[threadIdx.x] = sum;
}

// Lane i runs i % 4 + 1 times: requests of 32, 24, 16 and 8 lanes, each lane's load 128 bytes
// after its last; every request's lanes reach all 4 sectors of its 128 bytes.
__global__ void leaving(const float *in, float *out)
{
    float sum = 0.0f;
    for (int k = 0; k <= (int)threadIdx.x % 4; ++k) sum += in[threadIdx.x + 32 * k];
    out[threadIdx.x] = sum;
}

// tile[x][0..63], four words at a time from a 16-byte boundary: 16 loads of 16 bytes (nvcc's
// LDS.128). Rows are 64 words long, so a quarter-warp's 8 lanes read 4 words of the same 4 banks:
// 8 wavefronts a quarter, 32 a load, 28 of them conflicts (4 phases needed).
__global__ void chained(float *out)
{
    __shared__ __align__(16) float tile[32][64];
    for (int k = 0; k < 64; ++k) tile[threadIdx.x][k] = k;
    __syncthreads();
    float sum = 0.0f;
    for (int k = 0; k < 64; ++k) sum += tile[threadIdx.x][k];
    out[threadIdx.x] = sum;
}

// Each lane stores a row of 40 ints 4 bytes apart, rows 160 bytes apart: every store of the warp
// reaches 32 sectors; the kernel wrote all of out.
__global__ void rows(int *out)
{
    for (int k = 0; k < 40; ++k) out[threadIdx.x * 40 + k] = k;
}

int main()
{
    float *in, *out;
    cudaMalloc(&in, 1024 * sizeof(float));
    cudaMalloc(&out, 32 * sizeof(float));
    cudaMemset(in, 0, 1024 * sizeof(float));
    shifting<<<1, 32>>>(in, out);
    leaving<<<1, 32>>>(in, out);
    chained<<<1, 32>>>(out);
    int *stored;
    cudaMalloc(&stored, 32 * 40 * sizeof(int));
    rows<<<1, 32>>>(stored);
    std::vector<int> back(32 * 40);
    cudaMemcpy(back.data(), stored, back.size() * sizeof(int), cudaMemcpyDeviceToHost);
    cudaemu_profile_output(back.data(), back.size() * sizeof(int), "rows");
    return 0;
}
'''


@pytest.fixture(scope="module")
def profile(tmp_path_factory) -> dict:
    return build_and_profile(PROGRAM, tmp_path_factory.mktemp("profile_runs"))


def test_a_shifting_warp_counted_a_period_at_a_time(profile):
    load = totals(profile, "shifting")["global_load"]
    assert load == {"requests": 100, "accesses": 3200, "bytes": 12800, "sectors": 487, "data_bytes": 12800}


def test_lanes_that_leave_a_loop_early(profile):
    load = totals(profile, "leaving")["global_load"]
    assert load["requests"] == 4 and load["accesses"] == 32 + 24 + 16 + 8 and load["sectors"] == 16


def test_a_long_loop_of_16_byte_chains(profile):
    load = totals(profile, "chained")["shared_load"]
    assert load["requests"] == 16 and load["wavefronts"] == 16 * 32 and load["conflicts"] == 16 * 28
    store = totals(profile, "chained")["shared_store"]
    assert store["requests"] == 64 and store["wavefronts"] == 64 * 32


def test_a_store_run_and_its_writer(profile):
    store = totals(profile, "rows")["global_store"]
    assert store["requests"] == 40 and store["sectors"] == 40 * 32
    writers = {w["id"]: w for w in profile["writers"]}
    output = next(o for o in profile["outputs"] if o["what"] == "rows")
    (part,) = output["parts"]
    by_writer = {}
    for writer_id, count in part["writers"]:
        key = (writers[writer_id]["kind"], writers[writer_id]["name"])
        by_writer[key] = by_writer.get(key, 0) + count
    assert by_writer == {("kernel", "rows"): 32 * 40 * 4}
