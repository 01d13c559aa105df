"""grader/work.py: the generic work requirements, met and not met, on hand-made profiles; the
rules lab.toml's [work] sets, and how a lab's own checks (labs/<lab>/work_checks.py) are found.
The labs' own checks are tested in tests/<lab>/test_<lab>_work_checks.py."""

import pytest

from grader import work
from grader.labs import ConfigError, lab_ids, lab_work_checks, load_lab
from grader.testing import HARNESS_WRITER as HARNESS, HOST_WRITER as HOST, KERNEL_WRITER as KERNEL
from grader.testing import profile_launch as launch, result_part as part, result_profile as profile
from grader.work import CaseFacts, WorkConfigError, parse_rules

FACTS = CaseFacts("c", "prog", {"n": 16})
HARNESS_KERNEL = 9  # a writer id the shared hand-made writers leave free


def test_all_computed_by_kernels_is_met():
    assert work.computed_by_kernels(profile([part([(KERNEL, 1024)])]), FACTS, "all") is None


def test_a_copy_from_the_host_is_named_with_its_line():
    reason = work.computed_by_kernels(profile([part([(HOST, 1024)])]), FACTS, "all")
    assert "100% of C" in reason and "lab.c:40" in reason


def test_computed_on_the_host_and_never_copied_back():
    reason = work.computed_by_kernels(profile([part([(KERNEL, 8)], device=-1)]), FACTS, "any")
    assert "never copied back" in reason


def test_changed_on_the_host_after_the_copy_back():
    reason = work.computed_by_kernels(profile([part([(KERNEL, 8)], changed=True)]), FACTS, "all")
    assert "changed on the host" in reason


def test_any_needs_a_kernel_to_write_some_of_the_result():
    assert work.computed_by_kernels(profile([part([(HOST, 1000), (KERNEL, 4)])]), FACTS, "any") is None
    assert work.computed_by_kernels(profile([part([(HARNESS, 1000), (KERNEL, 4)])]), FACTS, "any") is None
    assert "no kernel wrote" in work.computed_by_kernels(profile([part([(HOST, 1000)])]), FACTS, "any")
    # The harness's mark can be forged from the student's process: its upload alone is no work either
    # (a case where it is the answer goes in the lab's exempt_cases).
    assert "no kernel wrote" in work.computed_by_kernels(profile([part([(HARNESS, 1000)])]), FACTS, "any")


def test_coalesced_loads():
    coalesced = {"requests": 100, "sectors": 400, "bytes": 1, "accesses": 1}
    scattered = {"requests": 100, "sectors": 3200, "bytes": 1, "accesses": 1}
    settings = {"max_sectors_per_request": 8}
    assert work.coalesced_loads({"launches": [launch(loads=coalesced)]}, FACTS, settings) is None
    assert "32.0 32-byte sectors" in work.coalesced_loads({"launches": [launch(loads=scattered)]}, FACTS, settings)


def test_the_harness_is_told_by_its_origin_not_by_a_file_name():
    harness = launch(file="labs/common/device.cu", origin="harness")
    assert work.student_launches({"launches": [harness, launch()]}) == [launch()]
    # A student's `#line 1 "labs/common/device.cu"` names a kit file, but the launch is still theirs.
    lined = launch(file="labs/common/device.cu")
    assert work.student_launches({"launches": [lined]}) == [lined]


def test_a_line_directive_naming_a_kit_file_hides_nothing():
    scattered = {"requests": 100, "sectors": 3200, "bytes": 1, "accesses": 1}
    lined = profile([part([(KERNEL, 1024)])], launches=[launch(loads=scattered, file="labs/common/device.cu")])
    assert "32.0 32-byte sectors" in _graded_once(lined, check=[{"check": "coalesced_loads"}])


def _graded_once(profile_: dict, **table) -> str | None:
    rules = parse_rules({"computed_by_kernels": "all", **table}, "lab.toml")
    return work.judge(rules, FACTS, profile_)


def test_a_kernel_marked_as_the_harness_can_only_lose_points():
    """The mark is a define a student can write in their own file: whatever it hides from a check,
    the run is refused for it, and the marked kernel's bytes are not the kernels' work."""
    scattered = {"requests": 100, "sectors": 3200, "bytes": 1, "accesses": 1}
    honest = profile([part([(KERNEL, 1024)])], launches=[launch(loads=scattered)])
    forged = profile([part([(KERNEL, 1024)])], launches=[launch(loads=scattered, origin="harness")])
    coalesced = [{"check": "coalesced_loads", "max_sectors_per_request": 8}]
    assert "32.0 32-byte sectors" in _graded_once(honest, check=coalesced)
    assert "built as the kit's harness" in _graded_once(forged, check=coalesced)
    assert _graded_once(profile([part([(KERNEL, 1024)])], launches=[launch()])) is None
    assert "built as the kit's harness" in _graded_once(forged)
    # Its writes, read alone: not the student's kernels, in either mode.
    marked = profile([part([(HARNESS_KERNEL, 1024)])])
    marked["writers"] = marked["writers"] + [{"id": HARNESS_KERNEL, "kind": "kernel", "name": "k", "file": "x.c",
                                             "line": 9, "origin": "harness", "device": 0}]
    assert "not by a kernel" in work.computed_by_kernels(marked, FACTS, "all")
    assert "no kernel wrote any of C" in work.computed_by_kernels(marked, FACTS, "any")


def test_a_result_staged_through_a_host_buffer_of_the_programs_own():
    staged = profile([part([(KERNEL, 8)], device=-1)])
    staged["outputs"][0]["staged_kernel_bytes"] = 8
    assert work.computed_by_kernels(staged, FACTS, "all") is None


def test_rules_parse_and_refuse_unknown_checks():
    rules = parse_rules({"computed_by_kernels": "all", "check": [{"check": "coalesced_loads",
                                                                   "when": {"kernel": "naive"}}]}, "lab.toml")
    assert rules.active and rules.checks[0].when == {"kernel": "naive"}
    with pytest.raises(WorkConfigError, match="check = 'fast'.*write it in labs/<lab>/work_checks.py"):
        parse_rules({"check": [{"check": "fast"}]}, "lab.toml")


def one_launch_a_step(profile: dict, facts: CaseFacts, settings: dict) -> str | None:
    """A lab's own check, as labs/<lab>/work_checks.py writes one."""
    launches = len(work.student_launches(profile))
    return None if launches >= facts.params["n"] else f"{launches} launches"


def test_a_labs_own_check_is_found_before_the_generic_ones():
    own = {"steps": one_launch_a_step, "coalesced_loads": one_launch_a_step}
    rules = parse_rules({"check": [{"check": "steps"}, {"check": "coalesced_loads"}]}, "lab.toml", own)
    assert [check.run for check in rules.checks] == [one_launch_a_step, one_launch_a_step]
    with pytest.raises(WorkConfigError, match=r"CHECKS in labs/x/work_checks.py: coalesced_loads, steps\)"):
        parse_rules({"check": [{"check": "fast"}]}, "lab.toml", own, "labs/x/work_checks.py")


def test_judge_applies_checks_by_params_and_a_missing_profile_fails():
    rules = parse_rules({"check": [{"check": "steps", "when": {"program": "p", "baseline": ""}}]}, "x",
                        {"steps": one_launch_a_step})
    facts = CaseFacts("c", "p", {"n": 2})
    assert work.judge(rules, facts, {"launches": [launch()]}) == "1 launches"
    assert work.judge(rules, CaseFacts("c", "p", {"n": 2, "baseline": "naive"}), {"launches": []}) is None
    assert "profile" in work.judge(rules, facts, None)


def test_case_options_from_args_let_hidden_cases_match():
    options = work.case_options(["--n", "{n}", "--kernel", "tiled", "--out", "{output}"], {"n": 40})
    assert options["kernel"] == "tiled" and options["n"] == 40 and "out" not in options


def test_coalescing_is_not_asked_of_blocks_narrower_than_a_few_lanes():
    scattered = {"requests": 100, "sectors": 3200, "bytes": 1, "accesses": 1}
    narrow = CaseFacts("c", "prog", {"n": 16, "ntx": 1})
    settings = {"block_width_param": "ntx", "min_block_width": 8}
    assert work.coalesced_loads({"launches": [launch(loads=scattered)]}, narrow, settings) is None
    # Without the lab's param named, every block is judged.
    assert work.coalesced_loads({"launches": [launch(loads=scattered)]}, narrow, {}) is not None


def test_the_input_header_is_read_only_as_the_lab_declares_it(tmp_path):
    graph = tmp_path / "graph.bin"
    graph.write_bytes((5).to_bytes(4, "little") + (7).to_bytes(4, "little"))
    assert work.read_header(graph, ("n", "m")) == {"n": 5, "m": 7}
    assert work.read_header(graph, ()) == {}
    graph.write_bytes((-1).to_bytes(4, "little", signed=True) + (7).to_bytes(4, "little"))
    assert work.read_header(graph, ("n", "m")) == {}
    assert work.read_header(tmp_path / "missing", ("n",)) == {}
    with pytest.raises(WorkConfigError, match="input_header"):
        parse_rules({"input_header": ["nnz"]}, "lab.toml")


def test_every_labs_checks_load_and_every_check_lab_toml_names_is_found():
    for lab_id in lab_ids():
        own = lab_work_checks(lab_id)
        for check in load_lab(lab_id).work.checks:
            assert check.run in (*own.values(), *work.GENERIC_CHECKS.values()), (lab_id, check.name)


def test_a_labs_checks_file_that_does_not_load_is_a_config_error_naming_it(tmp_path, monkeypatch):
    from grader import labs
    for lab_id, text in (("x", "CHECKS = {}\n\nraise ValueError('no')\n"), ("y", "CHECKS = ['steps']\n")):
        (tmp_path / lab_id).mkdir()
        (tmp_path / lab_id / "work_checks.py").write_text(text)
    monkeypatch.setattr(labs, "LABS_DIR", tmp_path)
    with pytest.raises(ConfigError, match=r"labs/x/work_checks.py:3 does not load \(ValueError: no\)"):
        lab_work_checks("x")
    with pytest.raises(ConfigError, match="labs/y/work_checks.py must define CHECKS"):
        lab_work_checks("y")
