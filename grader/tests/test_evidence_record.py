"""The GPU record's reader (grader/evidence/record.py) and the comparison with the emulated run
(compare.py), on records written as the tracer writes them and a saved emulator profile."""

import json
from pathlib import Path

import pytest

from grader.evidence.compare import compare_records
from grader.evidence.record import (Copy, Kernel, Memset, Record, RecordProblem, from_emulator_profile,
                                    kernel_key, parse_record, read_record)

SAMPLES = Path(__file__).parent / "samples" / "evidence"
HEADER = {"labkit_gpu_record": 1, "pid": 1, "cupti_api_version": 130001, "flush_period_ms": 100}


def tracer_lines(events: list[dict], *, end=True, dropped=0) -> str:
    """A record as tracer.cpp streams it: header, events numbered by seq, end line."""
    lines = [json.dumps(HEADER)]
    for seq, event in enumerate(events):
        lines.append(json.dumps({"seq": seq, "stream": 7, "start": 1000 * seq, "end": 1000 * seq + 500,
                                 "correlation": seq + 1, **event}))
    if end:
        lines.append(json.dumps({"end": True, "events": len(events), "dropped": dropped}))
    return "\n".join(lines) + "\n"


def h2d(size, device=0):
    return {"kind": "memcpy", "direction": "HtoD", "bytes": size, "device": device, "src_device": -1,
            "dst_device": device}


def d2h(size, device=0):
    return {"kind": "memcpy", "direction": "DtoH", "bytes": size, "device": device, "src_device": device,
            "dst_device": -1}


def kernel(name, grid=(2, 2, 1), block=(16, 16, 1), device=0):
    return {"kind": "kernel", "name": name, "device": device, "grid": list(grid), "block": list(block)}


TILED = "void tiled_kernel<16>(const float *, const float *, float *, int)"
MATMUL_GPU = [h2d(1156), h2d(1156), {"kind": "memset", "bytes": 1156, "device": 0}, kernel(TILED), kernel(TILED),
              d2h(1156)]


def emulated_matmul() -> Record:
    record = from_emulator_profile(json.loads((SAMPLES / "matmul_tiled_n17.emu.json").read_text()))
    assert isinstance(record, Record)
    return record


def test_kernel_key_agrees_on_cupti_and_emulator_names():
    assert kernel_key(TILED) == kernel_key("tiled_kernel<TILE>") == "tiled_kernel"
    assert kernel_key("increment_kernel(float*, int)") == "increment_kernel"
    assert kernel_key("void ns::k<a<b>, 2>(int)") == "ns::k"


def test_a_whole_record_reads_in_issue_order():
    record = parse_record(tracer_lines(MATMUL_GPU))
    assert isinstance(record, Record)
    assert [type(e) for e in record.events] == [Copy, Copy, Memset, Kernel, Kernel, Copy]
    assert record.kernels[0].grid == (2, 2, 1) and record.kernels[0].duration_ns == 500


def test_events_are_ordered_by_the_api_call_not_by_the_buffer_they_came_in():
    text = tracer_lines([d2h(4), h2d(4)]).splitlines()
    second = json.loads(text[2])
    second["correlation"] = 0  # issued first, delivered in a later buffer
    text[2] = json.dumps(second)
    record = parse_record("\n".join(text) + "\n")
    assert [e.direction for e in record.events] == ["HtoD", "DtoH"]


@pytest.mark.parametrize("text, kind, words", [
    ("", "truncated", "empty"),
    (tracer_lines(MATMUL_GPU, end=False), "truncated", "no end line (6 events"),
    (tracer_lines(MATMUL_GPU)[:-5], "truncated", "middle of a line"),
    (tracer_lines(MATMUL_GPU).replace('"seq": 3', '"seq": 9'), "malformed", "event number 9"),
    (tracer_lines(MATMUL_GPU).replace('"HtoD"', '"sideways"', 1), "malformed", "direction"),
    ("not json\n", "malformed", "line 1"),
    (tracer_lines(MATMUL_GPU, dropped=3), "incomplete", "dropped 3"),
    (tracer_lines(MATMUL_GPU) + json.dumps(kernel(TILED)) + "\n", "malformed", "after the end line"),
])
def test_a_broken_record_is_a_typed_problem_not_a_crash(text, kind, words):
    problem = parse_record(text)
    assert isinstance(problem, RecordProblem) and problem.kind == kind and words in problem.reason
    assert "\n" not in problem.reason


def test_a_truncated_record_keeps_what_was_read():
    problem = parse_record(tracer_lines(MATMUL_GPU, end=False))
    assert len(problem.partial.events) == 6


def test_a_missing_record_is_a_problem(tmp_path):
    problem = read_record(tmp_path / "none.jsonl")
    assert isinstance(problem, RecordProblem) and problem.kind == "missing"
    (tmp_path / "r.jsonl").write_text(tracer_lines(MATMUL_GPU))
    assert isinstance(read_record(tmp_path / "r.jsonl"), Record)


def test_an_emulator_profile_without_a_timeline_is_a_problem():
    assert from_emulator_profile({"version": 1, "launches": []}).kind == "missing"
    assert from_emulator_profile({"timeline": [{"op": "warp"}]}).kind == "malformed"


def test_the_reference_on_the_gpu_matches_its_emulated_run():
    assert compare_records(parse_record(tracer_lines(MATMUL_GPU)), emulated_matmul()) == []


def test_no_kernel_on_the_gpu_is_named_with_what_the_emulator_launched():
    host_computed = [h2d(1156), h2d(1156), {"kind": "memset", "bytes": 1156, "device": 0}, h2d(1156), d2h(1156)]
    [reason] = compare_records(parse_record(tracer_lines(host_computed)), emulated_matmul())
    assert reason == ("on device 0, after the memset of 1156 bytes, the GPU run copied 1156 bytes host to device; "
                      "the emulated run launched tiled_kernel<TILE> 2 times (grid 2x2x1, block 16x16x1)")


def test_a_gpu_run_that_stops_early_launched_no_kernel():
    gpu = parse_record(tracer_lines(MATMUL_GPU[:3]))
    [reason] = compare_records(gpu, emulated_matmul())
    assert "the GPU run launched no kernel; the emulated run launched tiled_kernel<TILE> 2 times" in reason


def test_other_geometry_and_other_counts_are_named():
    other_grid = MATMUL_GPU[:3] + [kernel(TILED, grid=(1, 1, 1)), kernel(TILED, grid=(1, 1, 1))] + MATMUL_GPU[5:]
    [reason] = compare_records(parse_record(tracer_lines(other_grid)), emulated_matmul())
    assert "grid 1x1x1" in reason and "grid 2x2x1" in reason
    once = MATMUL_GPU[:4] + MATMUL_GPU[5:]
    [reason] = compare_records(parse_record(tracer_lines(once)), emulated_matmul())
    assert "launched tiled_kernel 1 times in a row; the emulated run 2 times" in reason
    assert compare_records(parse_record(tracer_lines(other_grid)), emulated_matmul(), geometry=False) == []


def test_kit_kernels_and_host_copies_are_left_out():
    extra = [kernel("void check_result(float*)"), {"kind": "memcpy", "direction": "HtoH", "bytes": 8, "device": 0,
                                                   "src_device": -1, "dst_device": -1}]
    gpu = parse_record(tracer_lines(MATMUL_GPU + extra))
    assert compare_records(gpu, emulated_matmul(), kit_kernels=["check_result"]) == []
    assert compare_records(gpu, emulated_matmul()) != []


def test_the_harness_kernels_the_emulated_run_marks_are_left_out_whatever_their_file():
    profile = json.loads((SAMPLES / "matmul_tiled_n17.emu.json").read_text())
    ceiling = {"op": "kernel", "kernel": "ceiling_kernel", "file": "sub/matmul/matmul.c", "origin": "harness",
               "device": 0, "grid": [1, 1, 1], "block": [32, 1, 1]}
    lined = dict(ceiling, kernel="lined_kernel", file="labs/matmul/main.cpp", origin="program")
    gpu = parse_record(tracer_lines(MATMUL_GPU + [kernel("ceiling_kernel(float*)", (1, 1, 1), (32, 1, 1))]))
    harness_run = from_emulator_profile({**profile, "timeline": profile["timeline"] + [ceiling]})
    assert compare_records(gpu, harness_run) == []
    lined_run = from_emulator_profile({**profile, "timeline": profile["timeline"] + [lined]})
    assert "lined_kernel" in compare_records(parse_record(tracer_lines(MATMUL_GPU)), lined_run)[0]


def test_a_device_the_gpu_run_left_idle_is_named():
    def emulated(devices):
        timeline = []
        for d in range(devices):
            timeline += [{"op": "memcpy", "direction": "HtoD", "bytes": 64, "device": d, "src_device": -1,
                          "dst_device": d},
                         {"op": "kernel", "kernel": "band_kernel", "file": "apsp.c", "device": d,
                          "grid": [4, 1, 1], "block": [64, 1, 1]}]
        return from_emulator_profile({"timeline": timeline})
    gpu = parse_record(tracer_lines([h2d(64), kernel("band_kernel(int*)", (4, 1, 1), (64, 1, 1))]))
    [reason] = compare_records(gpu, emulated(2))
    assert reason.startswith("on device 1, first, the GPU run did nothing more on it; the emulated run copied 64")


def peer(size, src, dst):
    return {"kind": "memcpy", "direction": "PtoP", "bytes": size, "device": src, "src_device": src,
            "dst_device": dst}


def test_where_a_peer_copy_falls_among_the_other_devices_launches_is_not_compared():
    # One host thread a device: device 1's copy to device 0 lands before or after device 0's
    # second launch as the threads race; the multigpu reference did both on one node of 2 GPUs.
    band0, band1 = kernel("band_kernel(int*)", (4, 1, 1), (64, 1, 1)), kernel("band_kernel(int*)", (4, 1, 1), (64, 1, 1), 1)
    one = parse_record(tracer_lines([band0, band1, peer(4096, 1, 0), band0, band1]))
    other = parse_record(tracer_lines([band0, band1, band0, peer(4096, 1, 0), band1]))
    assert compare_records(one, other) == []


def test_a_missing_peer_copy_is_named_with_its_ends():
    band0, band1 = kernel("band_kernel(int*)", (4, 1, 1), (64, 1, 1)), kernel("band_kernel(int*)", (4, 1, 1), (64, 1, 1), 1)
    gpu = parse_record(tracer_lines([band0, band1, band0, band1]))
    emu = parse_record(tracer_lines([band0, band1, peer(4096, 1, 0), band0, band1]))
    [reason] = compare_records(gpu, emu)
    assert reason == ("between devices, the copy of 4096 bytes from device 1 to device 0: the GPU run made it "
                      "0 times, the emulated run 1 time")
    assert compare_records(gpu, emu, launch_counts="set") == [reason]
    twice = parse_record(tracer_lines([band0, band1, peer(4096, 1, 0), peer(4096, 1, 0), band0, band1]))
    assert compare_records(twice, emu, launch_counts="set") == []


def test_set_mode_forgives_counts_not_missing_kernels():
    relax = kernel("relax_edges(int*)", (8, 1, 1), (256, 1, 1))
    gpu = parse_record(tracer_lines([h2d(64), relax, relax, relax, d2h(4)]))
    emu = parse_record(tracer_lines([h2d(64), relax, d2h(4)]))
    assert compare_records(gpu, emu, launch_counts="set") == []
    assert compare_records(gpu, emu) != []
    none = parse_record(tracer_lines([h2d(64), d2h(4)]))
    [reason] = compare_records(none, emu, launch_counts="set")
    assert "the GPU run never launched relax_edges(int*)" in reason or "never launched relax_edges" in reason


def test_the_symbol_check_refuses_calls_into_cupti_and_the_tracer():
    from grader.labs import load_lab
    from grader.symbols import forbidden_calls
    nm = "cuptiActivityFlushAll U\nInitializeInjection U\ncudaProfilerStop U\nincrement_kernel T 0 10\n"
    assert [name for name, _ in forbidden_calls(nm, load_lab("increment"))] == [
        "InitializeInjection", "cudaProfilerStop", "cuptiActivityFlushAll"]


def test_kit_kernels_are_read_from_nvcc_host_stubs():
    from grader.evidence.compare import kernels_in_nm
    nm = ("0000000000000000 T __device_stub__Z22minplus_ceiling_kernelPiiii(int*, int, int, int)\n"
          "0000000000000040 T __device_stub__ZN2ns6fwStepEPi\n"
          "                 U cudaLaunchKernel\n"
          "0000000000000080 W __device_stub__Z12tiled_kernelILi16EEvPKfS1_Pfi\n")
    assert kernels_in_nm(nm) == ["minplus_ceiling_kernel", "ns::fwStep", "tiled_kernel"]
