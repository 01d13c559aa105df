"""Timing backed by the GPU record (grader/evidence/timing.py) and the GPU's counters against the
emulated profile (counters.py), on made-up records and a saved Nsight Compute table."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from grader.evidence.counters import (KernelTraffic, compare_traffic, emulated_traffic, parse_ncu_csv,
                                      permission_from)
from grader.evidence.record import Copy, Kernel, Record
from grader.evidence.timing import timed_repetitions, timing_backed

SAMPLES = Path(__file__).parent / "samples" / "evidence"
MS = 1_000_000  # ns


def run(kernel_ms: list[float], *, name="increment_kernel(float*, int)", stream=7) -> Record:
    """A copy in, one kernel per repetition (back to back, the given durations), a copy out."""
    events, clock = [Copy("HtoD", 4000, 0, -1, 0)], 0
    for ms in kernel_ms:
        events.append(Kernel(name, 0, (4, 1, 1), (256, 1, 1), stream=stream, start_ns=clock, end_ns=clock + int(ms * MS)))
        clock += int(ms * MS) + 10_000
    events.append(Copy("DtoH", 4000, 0, 0, -1))
    return Record(tuple(events), "gpu")


def test_honest_repetitions_back_the_figure():
    reps = timed_repetitions(run([2.0, 2.0, 2.0]), reps=3)
    evidence = timing_backed(reps, 2.05)
    assert evidence.backed and evidence.busy_ms == (2.0, 2.0, 2.0) and "3 timed repetitions" in evidence.reason


def test_a_warm_up_is_left_out_of_the_timed_figures():
    reps = timed_repetitions(run([3.0, 2.0, 2.0]), reps=2, warmups=1)
    assert timing_backed(reps, 2.0, warmups=1).busy_ms == (2.0, 2.0)


def test_work_hidden_from_the_events_is_not_backed():
    # other_stream: 50 ms of kernels a repetition, a figure of a few microseconds
    evidence = timing_backed(timed_repetitions(run([50.0, 50.0]), reps=2), 0.004)
    assert not evidence.backed and "ran 50.0000 ms (GPU record), the program reported 0.0040 ms" in evidence.reason


def test_work_done_once_then_skipped_is_not_backed():
    # results cached between calls with the same arguments: the same launch, no work after the first
    evidence = timing_backed(timed_repetitions(run([20.0, 0.003, 0.003]), reps=2, warmups=1), 0.01, warmups=1)
    assert not evidence.backed and "repetition 2's kernels ran 0.0030 ms" in evidence.reason


def test_a_repetition_that_launched_nothing_cannot_be_shared_out():
    events = run([2.0]).events
    reason = timed_repetitions(Record(events, "gpu"), reps=3)
    assert isinstance(reason, str) and "1 kernels" in reason and "cannot share alike" in reason
    reason = timed_repetitions(Record((events[0], events[-1]), "gpu"), reps=1)
    assert "launched no kernel between the copy in and the copy out" in reason


def test_a_repetition_that_launched_another_kernel_is_named():
    reps = timed_repetitions(run([2.0]), reps=1) + timed_repetitions(run([2.0], name="copy_kernel(float*)"), reps=1)
    evidence = timing_backed(reps, 2.0)
    assert not evidence.backed and "repetition 2 launched copy_kernel(float*)" in evidence.reason


def test_tiny_kernels_are_not_called_skipped():
    # a cold first launch of a 2-microsecond kernel: the slack keeps it from looking like skipped work
    assert timing_backed(timed_repetitions(run([0.009, 0.002, 0.002]), reps=3), 0.004).backed


def test_ncu_table_parses_per_kernel_over_launches():
    traffic = parse_ncu_csv((SAMPLES / "matmul_tiled_n17.ncu.csv").read_text())
    assert set(traffic) == {"tiled_kernel"}
    tiled = traffic["tiled_kernel"]
    assert (tiled.launches, tiled.ld_requests, tiled.ld_sectors, tiled.st_requests, tiled.st_sectors) == \
        (2, 144, 472, 36, 118)


def test_ncu_output_without_a_table_is_a_reason():
    said = "==PROF== Connected to process 1\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n"
    assert "ERR_NVGPUCTRPERM" in parse_ncu_csv(said)


@pytest.mark.parametrize("run", ["matmul_tiled_n17", "matmul_naive_n100"])
def test_the_reference_counters_match_its_emulated_profile(run):
    # ncu on an H100 (grader/scripts/evidence_verify.py's runs of the same names), sectors and
    # distinct bytes: naive's warp reads 2 addresses of A and 16 of B in a row at each k.
    gpu = parse_ncu_csv((SAMPLES / f"{run}.ncu.csv").read_text())
    emulated = emulated_traffic(json.loads((SAMPLES / f"{run}.emu.json").read_text()))
    figures = lambda t: (t.launches, t.ld_sectors, t.st_sectors, t.ld_bytes, t.st_bytes, t.bytes_measured)  # noqa: E731
    assert {k: figures(t) for k, t in gpu.items()} == {k: figures(t) for k, t in emulated.items()}
    assert compare_traffic(gpu, emulated, tolerance=0) == []


def test_a_kernel_that_skipped_its_work_is_caught_by_its_sectors():
    emulated = {"tiled_kernel": KernelTraffic(2, 144, 472, 36, 118)}
    no_loads = {"tiled_kernel": KernelTraffic(2, 0, 0, 36, 118)}
    assert compare_traffic(no_loads, emulated) == [
        "tiled_kernel: global load sectors 0 on the GPU, 472 emulated (2 and 2 launches)"]
    assert compare_traffic({}, emulated) == ["tiled_kernel: only the emulated run ran it (2 launches)"]
    racy = {"relax_edges": KernelTraffic(30, 15000, 290460, 5120, 9222)}
    assert compare_traffic(racy, {"relax_edges": KernelTraffic(30, 15000, 290460, 4854, 7871)}) == []


def test_loads_the_compiler_merged_are_the_same_work():
    # nbody's member_access on naive-five-bodies: pos[j].x, .y, .z and .w read one by one in the
    # source, one 16-byte load on the GPU (it lost its points as a non-root user on an H200: 26
    # load sectors on the GPU, 86 emulated); the distinct bytes a request asks for are 480 on both.
    broadcast = {"global_load": {"requests": 10, "sectors": 10, "data_bytes": 40, "bytes": 100}}
    emulated = emulated_traffic({"launches": [{"kernel": "forces_naive_kernel", "sites": [
        {"global_load": {"requests": 2, "sectors": 3, "data_bytes": 80, "bytes": 80}}, *[broadcast] * 4,
        {"global_store": {"requests": 2, "sectors": 3, "data_bytes": 20, "bytes": 20}}]}] * 2})
    assert (emulated["forces_naive_kernel"].ld_sectors, emulated["forces_naive_kernel"].ld_bytes) == (86, 480)
    merged = {"forces_naive_kernel": KernelTraffic(2, 24, 26, 4, 6, ld_bytes=480, st_bytes=40, bytes_measured=True)}
    assert compare_traffic(merged, emulated) == []
    # Without the bytes on either side (an ncu that lacks the metric, a profile from before it)
    # the sectors decide, as before.
    expected = ["forces_naive_kernel: global load sectors 26 on the GPU, 86 emulated (2 and 2 launches)"]
    assert compare_traffic({"forces_naive_kernel": replace(merged["forces_naive_kernel"], bytes_measured=False)},
                           emulated) == expected
    old_profile = {k: replace(v, bytes_measured=False) for k, v in emulated.items()}
    assert compare_traffic(merged, old_profile) == expected


def test_bytes_not_asked_for_or_sectors_the_emulator_never_touched_differ():
    emulated = {"tiled_kernel": KernelTraffic(2, 144, 472, 36, 118, ld_bytes=10000, st_bytes=2000, bytes_measured=True)}
    no_loads = {"tiled_kernel": KernelTraffic(2, 0, 0, 36, 118, ld_bytes=0, st_bytes=2000, bytes_measured=True)}
    assert compare_traffic(no_loads, emulated) == [
        "tiled_kernel: global load bytes 0 on the GPU, 10000 emulated (2 and 2 launches)"]
    scattered = {"tiled_kernel": KernelTraffic(2, 144, 4000, 36, 118, ld_bytes=10000, st_bytes=2000,
                                               bytes_measured=True)}
    assert compare_traffic(scattered, emulated) == [
        "tiled_kernel: global load sectors 4000 on the GPU, 472 emulated (the same bytes) (2 and 2 launches)"]


def test_who_may_read_counters():
    assert permission_from(0, None).allowed
    assert permission_from(1000, "RmProfilingAdminOnly: 0\n").allowed
    denied = permission_from(1000, "ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\n")
    assert not denied.allowed and "RmProfilingAdminOnly=1" in denied.why
    assert not permission_from(1000, None).allowed


def test_a_run_that_left_no_figures_says_what_ncu_said():
    from grader.evidence.counters import what_ncu_said
    assert what_ncu_said("==PROF== Connected\n==ERROR== Failed to create lock file\nbye\n") == \
        ": ==ERROR== Failed to create lock file"
    assert what_ncu_said("segmentation fault\n\n") == ": segmentation fault"
    assert what_ncu_said("") == ""
    assert "\x1b" not in what_ncu_said("==ERROR== \x1b[2J=cmd|' /C calc'!A0")
