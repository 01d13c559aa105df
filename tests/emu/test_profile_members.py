"""The profile (EMU_PROFILE) of accesses to a member of an array element, as the nbody lab's
float4 bodies are read and written member by member (pos[j].x, acc[i].x = ...): each member is
one 4-byte access, in global memory and in __shared__, and a kernel that stores the result member
by member is its writer. A bit-field member still compiles (it is not seen); a static member read
through an element is no access."""

from __future__ import annotations

import pytest

from test_profile import build_and_profile, totals

PROGRAM = r'''
struct Flags { int id; unsigned small : 4; static constexpr int kinds = 1; };

// One warp: lane i reads body j = 0..3 member by member (x, y, z, w: 4 loads a body, every lane
// the same address: one sector each), its own body once as x and y (two 16-byte-strided loads:
// 16 sectors each), and stores its result as x, y, z, w (4 stores, 16 sectors each).
__global__ void members(const float4 *pos, float4 *acc, Flags *flags)
{
    __shared__ float4 tile[32];
    int i = threadIdx.x;
    tile[i].x = pos[i].x;              // one global load, one shared store
    tile[i].y = pos[i].y;
    __syncthreads();
    float sum = tile[(i + 1) % 32].x;  // one shared load
    for (int j = 0; j < 4; ++j)
        sum += pos[j].x + pos[j].y + pos[j].z + pos[j].w;
    acc[i].x = sum;
    acc[i].y = sum;
    acc[i].z = sum;
    acc[i].w = 0.0f;
    if (flags[i].small == 0) flags[i].id += flags[i].kinds;   // a bit-field: not seen; the int: a load and a
                                                              // store; a static member: no memory of the element
}

int main()
{
    float4 *pos, *acc;
    Flags *flags;
    cudaMalloc(&pos, 32 * sizeof(float4));
    cudaMalloc(&acc, 32 * sizeof(float4));
    cudaMalloc(&flags, 32 * sizeof(Flags));
    cudaMemset(pos, 0, 32 * sizeof(float4));
    cudaMemset(acc, 0, 32 * sizeof(float4));
    cudaMemset(flags, 0, 32 * sizeof(Flags));
    members<<<1, 32>>>(pos, acc, flags);
    float4 back[32];
    cudaMemcpy(back, acc, sizeof back, cudaMemcpyDeviceToHost);
    cudaemu_profile_output(back, sizeof back, "acc");
    return 0;
}
'''


@pytest.fixture(scope="module")
def profile(tmp_path_factory) -> dict:
    return build_and_profile(PROGRAM, tmp_path_factory.mktemp("members"))


def test_each_member_read_is_a_4_byte_load(profile):
    loads = totals(profile, "members")["global_load"]
    # pos[i].x, pos[i].y (16 bytes apart: 16 sectors each), 16 broadcasts of pos[j].<m> (1 sector
    # each), flags[i].id for the update (8 bytes apart: 8 sectors).
    assert loads["requests"] == 2 + 16 + 1
    assert loads["sectors"] == 2 * 16 + 16 * 1 + 8
    assert loads["accesses"] == 32 * (2 + 16 + 1) and loads["bytes"] == 4 * 32 * (2 + 16 + 1)


def test_each_member_store_is_a_4_byte_store(profile):
    stores = totals(profile, "members")["global_store"]
    assert stores["requests"] == 4 + 1 and stores["sectors"] == 4 * 16 + 8
    assert stores["bytes"] == 4 * 32 * 5


def test_shared_members_are_profiled(profile):
    t = totals(profile, "members")
    assert t["shared_store"]["requests"] == 2 and t["shared_store"]["accesses"] == 64
    assert t["shared_load"]["requests"] == 1 and t["shared_load"]["bytes"] == 4 * 32


def test_a_result_stored_member_by_member_was_written_by_the_kernel(profile):
    writers = {w["id"]: w for w in profile["writers"]}
    output = next(o for o in profile["outputs"] if o["what"] == "acc")
    (part,) = output["parts"]
    by_name = {}
    for writer_id, count in part["writers"]:
        by_name[writers[writer_id]["name"]] = by_name.get(writers[writer_id]["name"], 0) + count
    assert by_name == {"members": 32 * 16}


def test_data_bytes_count_each_distinct_byte_of_a_request_once(profile):
    # What ncu's smsp__sass_data_bytes_mem_global_op_ld counts, and what nvcc's merging of a
    # float4's four member reads into one 16-byte load does not change: pos[i].x and .y, 32
    # distinct 4-byte words each; each broadcast pos[j].<m>, 4 bytes; flags[i].id, 32 words.
    loads = totals(profile, "members")["global_load"]
    assert loads["data_bytes"] == 2 * 32 * 4 + 16 * 4 + 32 * 4
    stores = totals(profile, "members")["global_store"]
    assert stores["data_bytes"] == 4 * 32 * 4 + 32 * 4
