"""The emulator's profile (EMU_PROFILE): small kernels whose requests, sectors, bank conflicts and
writers are known by hand, built as a student's file is (the rewriter, then g++ with the runtime)
and run with EMU_PROFILE=<file>."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

KIT = Path(__file__).resolve().parents[2]

PROGRAM = r'''
#include <cstdio>
#include <vector>

#include <mma.h>

__global__ void coalesced(const float *in, float *out)       // 32 lanes, 4 bytes apart: 4 sectors
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] + 1.0f;
}

__global__ void strided(const float *in, float *out)         // 32 lanes, 128 bytes apart: 32 sectors
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i * 32];
}

__global__ void vector4(float *data)                          // 16-byte loads: 16 sectors a warp
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 v = ((float4 *)data)[i];
    v.x += 1.0f;
    ((float4 *)data)[i] = v;
}

__global__ void banks(float *out, int stride)                 // shared words `stride` apart
{
    __shared__ float tile[32 * 33];
    tile[threadIdx.x * stride] = threadIdx.x;
    __syncthreads();
    float broadcast = tile[0];
    out[threadIdx.x] = tile[threadIdx.x * stride] + broadcast;
}

__global__ void fill_rows(float *m, size_t stride)               // a pitched matrix, row by row
{
    m[blockIdx.x * stride + threadIdx.x] = blockIdx.x + threadIdx.x;
}

__global__ void half_warp(int *data, int *flag)               // lanes 0..15 only; a named pointer
{
    if (threadIdx.x < 16) data[threadIdx.x] = 1;
    if (threadIdx.x == 0) *flag = 7;
    atomicAdd(flag, 1);
}

__global__ void tensor_products(float *out)                   // 2 warps, 3 mma_sync each: 6
{
    using namespace nvcuda;
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c;
    wmma::fill_fragment(a, 1.0f);
    wmma::fill_fragment(b, 1.0f);
    wmma::fill_fragment(c, 0.0f);
    for (int i = 0; i < 3; ++i) wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(out + threadIdx.x / 32 * 256, c, 16, wmma::mem_row_major);
}

__device__ int column_sum(const int (*rows)[32])              // two rows of a piece: 2 loads
{
    return rows[0][threadIdx.x] + rows[1][threadIdx.x];
}

__global__ void pieces(int *out)         // apsp's own_piece[group]: picking a sub-array loads nothing
{
    __shared__ int piece[2][2][32];
    piece[0][0][threadIdx.x] = 1;
    piece[1][1][threadIdx.x] = 2;
    int (*all)[2][32] = piece;
    __syncthreads();
    out[threadIdx.x] = column_sum(all[1]);
}

__global__ void merged_loads(float *out)  // tile[x][0..3] unrolled: nvcc's one 16-byte LDS.128
{
    __shared__ __align__(16) float tile[32][16];
    __shared__ __align__(16) float other[32][16];
    for (int k = 0; k < 16; ++k) tile[threadIdx.x][k] = other[threadIdx.x][k] = k;
    __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; ++k) sum += tile[threadIdx.x][k] * other[threadIdx.x][k];   // two at once
    for (int k = 5; k < 8; ++k) sum += tile[threadIdx.x][k];   // from word 5, no 16-byte boundary
    out[threadIdx.x] = sum;
}

__global__ void wide_loads(float *out)   // 16-byte shared loads as apsp's min-plus tiles make them
{
    __shared__ __align__(16) float tile[64];
    tile[threadIdx.x] = threadIdx.x;
    tile[threadIdx.x + 32] = threadIdx.x;
    __syncthreads();
    float4 shared_by_16 = ((float4 *)tile)[threadIdx.x / 16];   // one address a half-warp
    float4 eight_apart = ((float4 *)tile)[threadIdx.x % 8];     // 8 addresses in each quarter
    out[threadIdx.x] = shared_by_16.x + eight_apart.y;
}

int main()
{
    float *in, *out;
    cudaMalloc(&in, 32 * 32 * 64 * sizeof(float));
    cudaMalloc(&out, 64 * sizeof(float) * 4);
    cudaMemset(in, 0, 32 * 32 * 64 * sizeof(float));
    coalesced<<<2, 32>>>(in, out);
    strided<<<1, 32>>>(in, out);
    vector4<<<1, 32>>>(in);
    banks<<<1, 32>>>(out, 1);
    banks<<<1, 32>>>(out, 32);
    int *data, *flag;
    cudaMalloc(&data, 32 * sizeof(int));
    cudaMalloc(&flag, sizeof(int));
    half_warp<<<1, 32>>>(data, flag);
    pieces<<<1, 32>>>(data);
    merged_loads<<<1, 32>>>(out);
    wide_loads<<<1, 32>>>(out);
    std::vector<float> host(64);
    cudaMemcpy(out, host.data(), 32 * sizeof(float), cudaMemcpyHostToDevice);   // overwrites coalesced's out[0..31]
    std::vector<float> back(64);
    cudaMemcpy(back.data(), out, 64 * sizeof(float), cudaMemcpyDeviceToHost);
    cudaemu_profile_output(back.data(), 64 * sizeof(float), "out");
    // A result of 4 rows of 5 floats in host rows of 8 (padding after each), copied back with
    // cudaMemcpy2D from a pitched matrix a kernel filled: all of it came from the device.
    float *pitched;
    size_t pitch;
    cudaMallocPitch((void **)&pitched, &pitch, 5 * sizeof(float), 4);
    fill_rows<<<4, 5>>>(pitched, pitch / sizeof(float));
    std::vector<float> rows(4 * 8, -1.0f);
    cudaMemcpy2D(rows.data(), 8 * sizeof(float), pitched, pitch, 5 * sizeof(float), 4, cudaMemcpyDeviceToHost);
    cudaemu_profile_output_rows(rows.data(), 8 * sizeof(float), 5 * sizeof(float), 4, "rows");
    // The same rows copied back whole, padding and all, in one cudaMemcpy, then one entry
    // changed on the host: the copy spans the rows, and the change is still seen.
    float *padded;
    cudaMalloc(&padded, 4 * 8 * sizeof(float));
    fill_rows<<<4, 5>>>(padded, 8);
    std::vector<float> whole(4 * 8);
    cudaMemcpy(whole.data(), padded, 4 * 8 * sizeof(float), cudaMemcpyDeviceToHost);
    whole[9] += 1.0f;
    cudaemu_profile_output_rows(whole.data(), 8 * sizeof(float), 5 * sizeof(float), 4, "rows changed");
    float *tiles;
    cudaMalloc(&tiles, 2 * 256 * sizeof(float));
    tensor_products<<<1, 64>>>(tiles);
    return 0;
}
'''


def build_and_profile(program: str, folder: Path, defines: tuple[str, ...] = ()) -> dict:
    """The profile (EMU_PROFILE's JSON) of `program`, built in `folder` as a student's file is
    (with `defines`, as the kit's harness is: -DCUDAEMU_HARNESS)."""
    if subprocess.run(["g++", "--version"], capture_output=True).returncode != 0:
        pytest.skip("no g++: the emulator's tests need a C++17 compiler")
    # emu-runtime builds the runtime of this machine's fiber backend and prints it with the
    # libraries it needs (Boost.Context's, or none for ucontext).
    done = subprocess.run(["make", "--no-print-directory", "-s", "-C", str(KIT), "emu-runtime"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"building the emulator's runtime (make emu-runtime) failed: {done.stderr[-1500:]}")
    library, *link_flags = done.stdout.strip().splitlines()[-1].split()
    source = folder / "kernels.cu"
    # The declaration first: the program calls it.
    source.write_text('extern "C" void cudaemu_profile_output(const void *, size_t, const char *);\n'
                      'extern "C" void cudaemu_profile_output_rows(const void *, size_t, size_t, size_t, const char *);\n'
                      + program)
    rewritten, binary = folder / "kernels.cpp", folder / "kernels"
    subprocess.run([sys.executable, str(KIT / "labs/emu/rewriter"), str(source), str(rewritten)], check=True)
    done = subprocess.run(["g++", "-std=c++17", "-O1", "-pthread", *defines, f"-I{KIT / 'labs/emu/include'}", str(rewritten),
                           library, "-o", str(binary), *link_flags], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    path = folder / "profile.json"
    done = subprocess.run([str(binary)], env={**os.environ, "EMU_PROFILE": str(path), "EMU_THREADS": "2"},
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def profile(tmp_path_factory) -> dict:
    return build_and_profile(PROGRAM, tmp_path_factory.mktemp("profile"))


def totals(profile: dict, kernel: str, index: int = 0) -> dict:
    launches = [launch for launch in profile["launches"] if launch["kernel"] == kernel]
    summed: dict = {}
    for site in launches[index]["sites"]:
        for kind, counts in site.items():
            if isinstance(counts, dict):
                for key, value in counts.items():
                    summed.setdefault(kind, {}).setdefault(key, 0)
                    summed[kind][key] += value
    return summed


def test_coalesced_loads_take_4_sectors_a_warp(profile):
    t = totals(profile, "coalesced")
    assert t["global_load"]["requests"] == 2 and t["global_load"]["sectors"] == 8
    assert t["global_store"]["requests"] == 2 and t["global_store"]["sectors"] == 8


def test_strided_loads_take_a_sector_a_lane(profile):
    assert totals(profile, "strided")["global_load"] == {"requests": 1, "sectors": 32, "data_bytes": 128, "bytes": 128,
                                                                  "accesses": 32}


def test_16_byte_accesses_through_a_cast(profile):
    t = totals(profile, "vector4")
    assert t["global_load"]["requests"] == 1 and t["global_load"]["sectors"] == 16
    assert t["global_store"]["requests"] == 1 and t["global_store"]["sectors"] == 16


def test_bank_conflicts_and_broadcast(profile):
    no_conflict, all_in_one_bank = totals(profile, "banks", 0), totals(profile, "banks", 1)
    # The store and the load of tile[x * stride], and the broadcast read of tile[0].
    assert no_conflict["shared_store"]["conflicts"] == 0 and no_conflict["shared_load"]["conflicts"] == 0
    assert no_conflict["shared_load"]["requests"] == 2
    assert all_in_one_bank["shared_store"] == {"requests": 1, "wavefronts": 32, "conflicts": 31, "bytes": 128,
                                               "accesses": 32}
    assert all_in_one_bank["shared_load"]["conflicts"] == 31  # the broadcast adds none


def test_partial_warps_named_pointers_and_atomics(profile):
    t = totals(profile, "half_warp")
    # data[x] by 16 lanes (2 sectors) and *flag by one: two requests.
    assert t["global_store"]["requests"] == 2 and t["global_store"]["sectors"] == 3
    assert t["global_atomic"]["accesses"] == 32


def test_a_sub_array_reached_through_a_pointer_is_no_load(profile):
    # all[1] is an int[2][32]: it decays to the pointer column_sum gets. Only rows[0][x] and
    # rows[1][x] read shared memory, 32 lanes of 4 bytes each.
    t = totals(profile, "pieces")
    assert t["shared_load"] == {"requests": 2, "wavefronts": 2, "conflicts": 0, "bytes": 256, "accesses": 64}
    assert t["shared_store"]["requests"] == 2


def test_four_adjacent_shared_loads_are_one_16_byte_load(profile):
    t = totals(profile, "merged_loads")
    # Rows of 16 words: even lanes' words in one bank, odd lanes' in another. A merged load (one
    # of tile, one of other, their chains side by side): 4 phases of 8 lanes, 4 words of one bank
    # each, 16 wavefronts (12 conflicts). The three loads from word 5 stay 4-byte ones: 16 words
    # in one bank each, 16 wavefronts apiece.
    assert t["shared_load"] == {"requests": 2 + 3, "wavefronts": 2 * 16 + 3 * 16, "conflicts": 2 * 12 + 3 * 15,
                                "bytes": 2 * 32 * 16 + 3 * 32 * 4, "accesses": 2 * 32 + 3 * 32}


def test_16_byte_shared_loads_by_quarter_warps_or_half_warps(profile):
    # As ncu counts them on an H200: the two quarters of a half-warp that each read one address
    # are served together (2 wavefronts for the warp); quarters reading 8 addresses, one each (4).
    t = totals(profile, "wide_loads")
    assert t["shared_load"]["requests"] == 2
    assert t["shared_load"]["wavefronts"] == 2 + 4 and t["shared_load"]["conflicts"] == 0


def test_who_wrote_what_was_copied_back(profile):
    writers = {w["id"]: w for w in profile["writers"]}
    output = next(o for o in profile["outputs"] if o["what"] == "out")
    (part,) = output["parts"]
    by_kind = {}
    for writer_id, count in part["writers"]:
        w = writers[writer_id]
        by_kind[(w["kind"], w["name"])] = by_kind.get((w["kind"], w["name"]), 0) + count
    # out[0..31]: a copy from the host (its line named); out[32..63]: the second block of coalesced.
    assert by_kind[("host_copy", "cudaMemcpy")] == 128
    assert by_kind[("kernel", "coalesced")] == 128
    host = next(w for w in writers.values() if w["kind"] == "host_copy")
    assert host["file"].endswith("kernels.cu") and host["line"] > 0
    # Built as a student's file is: every launch and write is the program's.
    assert {w["origin"] for w in writers.values()} | {l["origin"] for l in profile["launches"]} == {"program"}
    assert part["changed_on_host"] is False and part["device"] == 0


def test_a_result_in_rows_leaves_the_padding_out(profile):
    """fw's harness: N rows of N entries in host rows of Na. The padding no copy brought back is
    not the result; every byte of the rows came back from the device, in one part."""
    writers = {w["id"]: w for w in profile["writers"]}
    output = next(o for o in profile["outputs"] if o["what"] == "rows")
    assert output["bytes"] == 4 * 5 * 4
    (part,) = output["parts"]
    assert part["device"] == 0 and part["bytes"] == 80 and part["line"] > 0
    assert {writers[w]["name"] for w, _ in part["writers"]} == {"fill_rows"}


def test_a_result_in_rows_changed_on_the_host_after_one_whole_copy_is_seen(profile):
    """fw's default version: the padded matrix copied back in one cudaMemcpy, which spans every
    row; an entry changed on the host after it must still be caught."""
    output = next(o for o in profile["outputs"] if o["what"] == "rows changed")
    (part,) = output["parts"]
    assert part["bytes"] == 80 and part["device"] == 0 and part["changed_on_host"] is True


def test_devices_count_launches_and_traffic(profile):
    (device,) = profile["devices"]
    assert device["launches"] == 12 and device["from_host"] == 128 and device["to_host"] == 256 + 80 + 128


def test_the_timeline_holds_every_launch_copy_and_memset_in_issue_order(profile):
    # What grader/evidence/record.py holds against a GPU run's record: the same shape CUPTI gives.
    def short(event):
        if event["op"] == "kernel":
            return ("kernel", event["kernel"], event["device"], tuple(event["grid"]), tuple(event["block"]))
        if event["op"] == "memcpy":
            return ("memcpy", event["direction"], event["bytes"], event["src_device"], event["dst_device"])
        return ("memset", event["bytes"], event["device"])
    launch = lambda name, grid=1, block=32: ("kernel", name, 0, (grid, 1, 1), (block, 1, 1))  # noqa: E731
    assert [short(e) for e in profile["timeline"]] == [
        ("memset", 32 * 32 * 64 * 4, 0),
        launch("coalesced", 2), launch("strided"), launch("vector4"), launch("banks"), launch("banks"),
        launch("half_warp"), launch("pieces"), launch("merged_loads"), launch("wide_loads"),
        ("memcpy", "HtoD", 128, -1, 0), ("memcpy", "DtoH", 256, 0, -1),
        launch("fill_rows", 4, 5), ("memcpy", "DtoH", 80, 0, -1),  # a 2D copy: one event, width x height
        launch("fill_rows", 4, 5), ("memcpy", "DtoH", 128, 0, -1), launch("tensor_products", 1, 64)]
    assert all(e["file"].endswith("kernels.cu") for e in profile["timeline"] if e["op"] == "kernel")


def test_warp_matrix_products_are_counted_once_a_warp(profile):
    (launch,) = [launch for launch in profile["launches"] if launch["kernel"] == "tensor_products"]
    assert launch["wmma"] == 6
    assert all(launch["wmma"] == 0 for launch in profile["launches"] if launch["kernel"] != "tensor_products")


HARNESS_PROGRAM = r'''
#line 1 "sub/lab/any_name.c"
__global__ void ceiling(float *out) { out[threadIdx.x] = 1.0f; }

int main()
{
    float host[32] = {0}, *device = nullptr;
    cudaMalloc(&device, sizeof host);
    cudaMemset(device, 0, sizeof host);
    cudaMemcpy(device, host, sizeof host, cudaMemcpyHostToDevice);
    ceiling<<<1, 32>>>(device);
    cudaMemcpy(host, device, sizeof host, cudaMemcpyDeviceToHost);
    cudaemu_profile_output(host, sizeof host, "out");
    return 0;
}
'''


def test_a_unit_built_as_the_harness_is_marked_so_whatever_its_file(tmp_path):
    """-DCUDAEMU_HARNESS (the Makefile gives it to the kit's harness objects alone): its launches,
    copies and fills are the harness's, though a #line names some other file."""
    marked = build_and_profile(HARNESS_PROGRAM, tmp_path, ("-DCUDAEMU_HARNESS",))
    writers = [w for w in marked["writers"] if w["kind"] != "never"]
    assert {w["kind"] for w in writers} == {"kernel", "host_copy", "memset"}
    assert all(w["origin"] == "harness" and w["file"] == "sub/lab/any_name.c" for w in writers)
    (launch,) = marked["launches"]
    assert launch["origin"] == "harness"
    assert [e["origin"] for e in marked["timeline"] if e["op"] == "kernel"] == ["harness"]
