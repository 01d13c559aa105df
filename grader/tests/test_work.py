"""grader/work.py: each work requirement, met and not met, on hand-made profiles."""

import pytest

from grader import work
from grader.work import CaseFacts, WorkConfigError, parse_rules

KERNEL, HOST, HARNESS = 1, 2, 3
WRITERS = [{"id": 0, "kind": "never"},
           {"id": KERNEL, "kind": "kernel", "name": "k", "file": "sub/matmul/matmul.c", "line": 9, "device": 0},
           {"id": HOST, "kind": "host_copy", "name": "cudaMemcpy", "file": "sub/matmul/matmul.c", "line": 40,
            "device": 0},
           {"id": HARNESS, "kind": "host_copy", "name": "cudaMemcpy", "file": "labs/fw/main.cpp", "line": 140,
            "device": 0}]


def profile(parts, launches=(), devices=()):
    return {"launches": list(launches), "writers": WRITERS, "devices": list(devices),
            "outputs": [{"what": "C", "bytes": sum(p["bytes"] for p in parts), "parts": parts}]}


def part(writers, device=0, changed=False):
    return {"bytes": sum(b for _, b in writers), "device": device, "file": "labs/matmul/main.cpp", "line": 157,
            "changed_on_host": changed, "writers": [list(w) for w in writers]}


def launch(kernel="k", threads=256, loads=None, shared_loads=0, file="sub/lab/x.c", device=0):
    sites = [{"file": file, "line": 3, "name": "A", "global_load": loads or {"requests": 1, "sectors": 4,
                                                                            "bytes": 128, "accesses": 32}}]
    if shared_loads:
        sites.append({"file": file, "line": 4, "name": "tile", "shared_load": {"requests": shared_loads}})
    return {"kernel": kernel, "file": file, "line": 1, "device": device, "threads": threads, "sites": sites}


FACTS = CaseFacts("c", "matmul", {"n": 16})


def test_all_computed_by_kernels_is_met():
    assert work.computed_by_kernels(profile([part([(KERNEL, 1024)])]), FACTS, "all") is None


def test_a_copy_from_the_host_is_named_with_its_line():
    reason = work.computed_by_kernels(profile([part([(HOST, 1024)])]), FACTS, "all")
    assert "100% of C" in reason and "matmul.c:40" in reason


def test_computed_on_the_host_and_never_copied_back():
    reason = work.computed_by_kernels(profile([part([(KERNEL, 8)], device=-1)]), FACTS, "any")
    assert "never copied back" in reason


def test_changed_on_the_host_after_the_copy_back():
    reason = work.computed_by_kernels(profile([part([(KERNEL, 8)], changed=True)]), FACTS, "all")
    assert "changed on the host" in reason


def test_any_accepts_what_the_harness_uploaded_and_kernels_left():
    assert work.computed_by_kernels(profile([part([(HARNESS, 1000)])]), FACTS, "any") is None
    assert work.computed_by_kernels(profile([part([(HOST, 1000), (KERNEL, 4)])]), FACTS, "any") is None
    assert "no kernel wrote" in work.computed_by_kernels(profile([part([(HOST, 1000)])]), FACTS, "any")


def test_tiled_in_shared():
    n = 16
    naive = {"requests": 1, "sectors": 1, "bytes": 2 * n ** 3 * 4, "accesses": 1}
    tiled = {"requests": 1, "sectors": 1, "bytes": 2 * n ** 3 * 4 // 16, "accesses": 1}
    facts = CaseFacts("c", "matmul", {"n": n})
    settings = {"max_global_fraction": 0.25}
    assert work.tiled_in_shared({"launches": [launch(loads=tiled, shared_loads=5)]}, facts, settings) is None
    reason = work.tiled_in_shared({"launches": [launch(loads=naive)]}, facts, settings)
    assert "2.00 n^3 floats" in reason and "no __shared__" in reason


def test_coalesced_loads():
    coalesced = {"requests": 100, "sectors": 400, "bytes": 1, "accesses": 1}
    scattered = {"requests": 100, "sectors": 3200, "bytes": 1, "accesses": 1}
    settings = {"max_sectors_per_request": 8}
    assert work.coalesced_loads({"launches": [launch(loads=coalesced)]}, FACTS, settings) is None
    assert "32.0 32-byte sectors" in work.coalesced_loads({"launches": [launch(loads=scattered)]}, FACTS, settings)


def test_kit_launches_are_not_the_students():
    assert work.student_launches({"launches": [launch(file="labs/common/device.cu"), launch()]}) == [launch()]


def test_launch_per_step():
    facts = CaseFacts("c", "fw", {"n": 3})
    assert work.launch_per_step({"launches": [launch()] * 3}, facts, {}) is None
    assert "1 kernel launch for n = 3" in work.launch_per_step({"launches": [launch()]}, facts, {})


def test_thread_per_edge():
    facts = CaseFacts("c", "bfs", {}, n=10, m=100)
    edges = {"requests": 4, "sectors": 4, "bytes": 800, "accesses": 200}
    init = launch(threads=1024)  # reads no edges: not judged
    assert work.thread_per_edge({"launches": [init, launch(threads=128, loads=edges)]}, facts, {}) is None
    assert "with 1 thread in a launch" in work.thread_per_edge({"launches": [init, launch(threads=1, loads=edges)]},
                                                                facts, {})


def test_a_result_staged_through_a_host_buffer_of_the_programs_own():
    staged = profile([part([(KERNEL, 8)], device=-1)])
    staged["outputs"][0]["staged_kernel_bytes"] = 8
    assert work.computed_by_kernels(staged, FACTS, "all") is None


def test_every_device_works():
    facts = CaseFacts("c", "multigpu", {}, devices=2)
    writers = WRITERS + [{"id": 4, "kind": "kernel", "name": "k", "file": "x.c", "line": 1, "device": 1}]
    both = {"writers": writers, "launches": [],
            "devices": [{"device": 0, "launches": 3, "from_other_devices": 64},
                        {"device": 1, "launches": 3, "from_other_devices": 64}],
            "outputs": [{"what": "d", "bytes": 8, "parts": [part([(KERNEL, 4)], device=0), part([(4, 4)], device=1)]}]}
    assert work.every_device_works(both, facts, {}) is None
    one = dict(both, devices=[{"device": 0, "launches": 3}, {"device": 1, "launches": 0}])
    assert "device 1 of 2 ran no kernel" in work.every_device_works(one, facts, {})
    silent = dict(both, devices=[{"device": 0, "launches": 3}, {"device": 1, "launches": 3}])
    assert "never exchanged" in work.every_device_works(silent, facts, {})
    staged = dict(both, outputs=[{"what": "d", "bytes": 8, "staged_own_by_device": [[0, 64], [1, 64]],
                                  "parts": [part([], device=-1)]}])
    assert work.every_device_works(staged, facts, {}) is None
    staged["outputs"][0]["staged_own_by_device"] = [[0, 64]]
    assert "from device 1's kernels" in work.every_device_works(staged, facts, {})


def test_rules_parse_and_refuse_unknown_checks():
    rules = parse_rules({"computed_by_kernels": "all", "check": [{"check": "coalesced_loads",
                                                                   "when": {"kernel": "naive"}}]}, "lab.toml")
    assert rules.active and rules.checks[0].when == {"kernel": "naive"}
    with pytest.raises(WorkConfigError, match="check = 'fast'"):
        parse_rules({"check": [{"check": "fast"}]}, "lab.toml")


def test_judge_applies_checks_by_params_and_a_missing_profile_fails():
    rules = parse_rules({"check": [{"check": "launch_per_step", "when": {"program": "fw", "baseline": ""}}]}, "x")
    facts = CaseFacts("c", "fw", {"n": 2})
    assert "1 kernel launch" in work.judge(rules, facts, {"launches": [launch()]})
    assert work.judge(rules, CaseFacts("c", "fw", {"n": 2, "baseline": "naive"}), {"launches": []}) is None
    assert "profile" in work.judge(rules, facts, None)


def test_case_options_from_args_let_hidden_cases_match():
    options = work.case_options(["--n", "{n}", "--kernel", "tiled", "--out", "{output}"], {"n": 40})
    assert options["kernel"] == "tiled" and options["n"] == 40 and "out" not in options


def test_coalescing_is_not_asked_of_blocks_narrower_than_a_few_lanes():
    scattered = {"requests": 100, "sectors": 3200, "bytes": 1, "accesses": 1}
    narrow = CaseFacts("c", "matmul", {"n": 16, "ntx": 1})
    assert work.coalesced_loads({"launches": [launch(loads=scattered)]}, narrow, {"min_ntx": 8}) is None
