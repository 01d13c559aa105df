"""Honest timing: the program's own figures against the grader's clock."""

from grader.timing import figure_doubts, judged_on_wall, wall_doubt
from grader.run import RunOutcome


def outcome(wall_s):
    return RunOutcome(0, None, wall_s, False, "", "", False, False)


def test_honest_figures_raise_no_doubt():
    assert figure_doubts({"kernel_ms": 0.5, "total_ms": 3.0}, outcome(0.4)) == []


def test_times_longer_than_the_process_lived():
    doubts = figure_doubts({"kernel_ms": 0.0001, "total_ms": 999999}, outcome(0.4))
    assert doubts == ["total_ms 999999.000 is longer than the process lived (400.0 ms, timed by the grader)"]


def test_kernel_longer_than_the_whole_run():
    assert figure_doubts({"kernel_ms": 50, "total_ms": 10}, outcome(1)) == \
        ["kernel_ms 50.000 is longer than total_ms 10.000, which includes it"]


def test_missing_and_nonsense_figures():
    assert figure_doubts({}, outcome(1)) == ["no kernel_ms in the program's result file",
                                             "no total_ms in the program's result file"]
    assert figure_doubts({"kernel_ms": -1, "total_ms": "fast"}, outcome(1)) == \
        ["kernel_ms = -1 is not a time", "total_ms = 'fast' is not a time"]


def test_work_left_on_another_stream():
    doubts = figure_doubts({"kernel_ms": 0.01, "total_ms": 40, "kernel_host_ms": 35}, outcome(1))
    assert doubts and "work left running on another stream?" in doubts[0]


def test_reported_fast_but_the_process_was_slow():
    assert wall_doubt("kernel_ms", 1.0, 1.5, wall_s=9.0, reference_wall_s=2.0, slow_factor=1.5)
    assert wall_doubt("kernel_ms", 1.0, 1.5, wall_s=3.5, reference_wall_s=2.0, slow_factor=1.5) is None
    assert judged_on_wall(9.0, 2.0, 1.5)[0] and not judged_on_wall(3.0, 2.0, 1.5)[0]


def test_grader_judges_a_flagged_case_on_its_wall_time(fake_program, expected_file, tmp_path, monkeypatch):
    from support import fake_grader, reference_timing
    # Reports 1200 ms (within 1.5 x the reference's 1000 ms) but the reference process took 0.1 s
    # in all and this one more than 1.2 s: the grader's clock wins.
    monkeypatch.setenv("FAKE_KERNEL_MS", "1200")
    monkeypatch.setattr("grader.case_run.clean_env", lambda env, **extra: {**env, **extra})
    grader = fake_grader(fake_program, expected_file, tmp_path, emu=False)
    timing = reference_timing(grader)
    timing.walls = {"c1": 0.1}
    result = grader.case_grader.grade(grader.cases[0], {"c1": 1000.0}, timing)
    assert result.verdict == "SLOW" and result.timing_flagged
    assert "timing flagged: reported kernel_ms 1200.000 is within the limit, but the process took" in result.timing_note
