"""Every verdict, from fake programs that misbehave in each way a submission can."""

import pytest

from grader.grade import Grader
from grader.intake import Source
from grader.case_run import judge, run_case
from grader.paths import KIT_ROOT
from grader.verdict import AC, RE, SLOW, TLE, WA

from support import fake_case, fake_grader, fake_lab, ready, reference_timing


def verdict_of(mode, fake_program, expected_file, tmp_path, **kw):
    case = fake_case(mode=mode, **kw)
    outcome, output, figures = run_case(fake_program, ready(case, expected_file), tmp_path / "work")
    return judge(fake_lab([case]), ready(case, expected_file), outcome, output), outcome


def test_right_answer_is_ac(fake_program, expected_file, tmp_path):
    (verdict, reason), _ = verdict_of("right", fake_program, expected_file, tmp_path)
    assert (verdict, reason) == (AC, "correct")


def test_wrong_answer_names_first_wrong_entry(fake_program, expected_file, tmp_path):
    (verdict, reason), _ = verdict_of("wrong", fake_program, expected_file, tmp_path)
    assert verdict == WA
    assert reason == "entry 5: expected 5.0, got 6.0; 1 of 8 entries wrong"


def test_wrong_answer_carries_what_the_program_says_by_hand(fake_program, expected_file, tmp_path):
    # The reason a student reads in the table says what running the program by hand says.
    (verdict, reason), _ = verdict_of("wrongsaid", fake_program, expected_file, tmp_path)
    assert verdict == WA
    assert reason == ("entry 5: expected 5.0, got 6.0; 1 of 8 entries wrong; "
                      "the program says: element 5 of n = 8 is 6, expected 5: never touched")


def test_no_output_file_is_wa(fake_program, expected_file, tmp_path):
    (verdict, reason), _ = verdict_of("nooutput", fake_program, expected_file, tmp_path)
    assert (verdict, reason) == (WA, "the program wrote no output file")


def test_short_output_is_wa_with_sizes(fake_program, expected_file, tmp_path):
    (verdict, reason), _ = verdict_of("right", fake_program, expected_file, tmp_path, n=4)
    assert verdict == WA
    assert "output has 16 bytes" in reason and "expected 32 bytes (8 entries)" in reason


def test_crash_is_re_with_signal(fake_program, expected_file, tmp_path):
    (verdict, reason), _ = verdict_of("crash", fake_program, expected_file, tmp_path)
    assert verdict == RE
    assert reason.startswith("killed by SIGSEGV")


def test_hang_is_tle_and_killed(fake_program, expected_file, tmp_path):
    (verdict, reason), outcome = verdict_of("hang", fake_program, expected_file, tmp_path, time_limit_s=1)
    assert verdict == TLE
    assert "time limit of 1 s" in reason
    assert outcome.wall_s < 10


def test_hang_in_a_child_process_is_killed_too(fake_program, expected_file, tmp_path):
    (verdict, _), outcome = verdict_of("forked-hang", fake_program, expected_file, tmp_path, time_limit_s=1)
    assert verdict == TLE
    assert outcome.wall_s < 10  # the grandchild held no pipe open past the kill


def test_flood_is_cut_and_still_judged(fake_program, expected_file, tmp_path):
    (verdict, _), outcome = verdict_of("flood", fake_program, expected_file, tmp_path)
    assert verdict == AC
    assert outcome.stdout_cut
    assert len(outcome.stdout) <= 64 * 1024


@pytest.mark.parametrize("mode, reason", [
    ("todo", "TODO not done: launch the kernel in launch_increment (increment.cu:32)"),
    ("cuda", "CUDA error: cudaMalloc(&d, bytes) failed at increment.cu:14: out of memory (cudaErrorMemoryAllocation)"),
    ("usage", "fake: error: --n must be a whole number, got 'x'"),
    ("exit17", "exited with status 17: something odd happened"),
])
def test_harness_exit_codes_give_re_with_the_line_to_read(mode, reason, fake_program, expected_file, tmp_path):
    (verdict, got), _ = verdict_of(mode, fake_program, expected_file, tmp_path)
    assert (verdict, got) == (RE, reason)


def test_harness_self_check_failure_with_right_output_is_wa(fake_program, expected_file, tmp_path):
    (verdict, reason), _ = verdict_of("selfwrong", fake_program, expected_file, tmp_path)
    assert verdict == WA and "own check" in reason


@pytest.mark.parametrize("kernel_ms, verdict, points", [(1.4, AC, 10.0), (1.6, SLOW, 5.0)])
def test_timing_threshold_relative_to_reference(kernel_ms, verdict, points, fake_program, expected_file,
                                                 tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_KERNEL_MS", str(kernel_ms))
    monkeypatch.setattr("grader.case_run.clean_env", lambda env, **extra: {**env, **extra})  # FAKE_KERNEL_MS
    grader = fake_grader(fake_program, expected_file, tmp_path, emu=False)
    result = grader.case_grader.grade(grader.cases[0], {"c1": 1.0}, reference_timing(grader))
    assert (result.verdict, result.points) == (verdict, points)
    assert "x reference 1.000" in result.timing_note


def test_timing_is_skipped_and_said_under_emulation(fake_program, expected_file, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_KERNEL_MS", "100")
    monkeypatch.setattr("grader.case_run.clean_env", lambda env, **extra: {**env, **extra})
    grader = fake_grader(fake_program, expected_file, tmp_path, emu=True)
    result = grader.case_grader.grade(grader.cases[0], {}, reference_timing(grader))
    assert result.verdict == AC
    assert result.timing_note == "timing threshold skipped: CPU emulation (EMU=1)"


@pytest.mark.parametrize("ratio, verdict, points", [(0.66, AC, 10.0), (0.95, SLOW, 5.0)])
def test_margins_cap_a_reported_figure(ratio, verdict, points, tmp_path):
    from dataclasses import replace
    from grader.verdict import CaseResult
    lab = replace(fake_lab([fake_case(timed=True)]), margins={"time_vs_baseline": 0.8})
    grader = Grader(lab, Source("sub-x", tmp_path, submission=True), emu=False, sandbox="off", log=lambda *_: None)
    result = CaseResult("c1", AC, "correct", 10.0, 10.0, figures={"time_vs_baseline": ratio})
    reference_timing(grader).apply_margins(result)
    assert (result.verdict, result.points) == (verdict, points)
    if verdict == SLOW:
        assert result.reason == "correct but slow: time_vs_baseline is 0.950, over the 0.8 that lab.toml's [margins] allows"


def test_unknown_timing_key_is_a_config_error(tmp_path, monkeypatch):
    from grader import labs
    lab_dir = tmp_path / "labs" / "x"
    lab_dir.mkdir(parents=True)
    (lab_dir / "lab.toml").write_text("[timing]\nslow_factr = 2\n")
    monkeypatch.setattr(labs, "LABS_DIR", tmp_path / "labs")
    with pytest.raises(labs.ConfigError, match=r"\[timing\].*slow_factr"):
        labs.load_lab("x")


def test_exit_codes_come_from_the_header_the_harnesses_use():
    from grader.verdict import EXIT_MEMCHECK, read_exit_codes
    codes = read_exit_codes()
    assert {"OK", "WRONG", "USAGE", "CUDA", "TODO", "NO_GPU", "MEMCHECK"} <= set(codes)
    assert len(set(codes.values())) == len(codes), "two exit codes share a number"
    assert codes["MEMCHECK"] == EXIT_MEMCHECK


def test_asan_names_the_students_own_frame_even_with_spaces_in_its_signature():
    from grader.verdict import memcheck_finding
    stderr = ("==12==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602 at pc 0x5 bp 0x7 sp 0x7\n"
              "READ of size 4 at 0x602 thread T3\n"
              "    #0 0x55d0 in relax_edges(int const*, int, int*, int, int*) tests/students/bfs/x/bfs/bfs.c:26\n"
              "    #1 0x55d1 in cuda_emu::run_block(int) /work/labs/emu/src/engine/block_runner.cpp:88\n"
              "    #2 0x55d2 in __libc_start_main_impl ../csu/libc-start.c:360\n")
    own = [KIT_ROOT / "tests/students/bfs/x/bfs/bfs.c"]
    assert memcheck_finding(stderr, own) == ("out of bounds: AddressSanitizer: heap-buffer-overflow, READ of size 4 "
                                        "at relax_edges tests/students/bfs/x/bfs/bfs.c:26")


def test_asan_skips_the_emulators_own_headers_for_the_students_line():
    from grader.verdict import memcheck_finding
    stderr = ("==7==ERROR: AddressSanitizer: SEGV on unknown address 0x7f00 (pc 0x5 bp 0x7 sp 0x7 T2)\n"
              "    #0 0x55d0 in cudaemu::atomicOr(unsigned int*, unsigned int) labs/emu/include/cuda_emu/atomics.h:64\n"
              "    #1 0x55d1 in count_step(Status*, int) bfs/frontier.c:212\n")
    assert memcheck_finding(stderr, [KIT_ROOT / "bfs/frontier.c"]) == ("killed by SIGSEGV (Segmentation fault): AddressSanitizer caught it "
                                        "at count_step bfs/frontier.c:212")
