"""What a student and a TA read in their first hour (issue 28): each message says what the
program knows, once, with the paths the student's own tools print."""

import io

import pytest

from grader import cli
from grader.grade import Grader, Source
from grader.labs import load_lab
from grader.paths import BUILD_DIR, KIT_ROOT, STARTER_DIR
from grader.run import RunOutcome
from grader.verdict import EXIT_CUDA, EXIT_RACE, EXIT_TODO, RE, CaseResult, runtime_error

EMU_STDERR = (
    "cuda-emu: launch of increment_kernel at starter/increment/increment.c:36 failed: a grid of 0 x 1 x 1 "
    "blocks; each dimension must be at least 1, so the kernel did not run. Is the block count computed right "
    "(rounded up, not down to 0)? [cudaErrorInvalidConfiguration: invalid configuration argument]\n"
    "CUDA error: cudaGetLastError() failed at starter/increment/increment.c:37: invalid configuration argument "
    "(cudaErrorInvalidConfiguration)\n  Fix the call at that line; ...\n")


# What the harness and the emulator record of the same failure (labs/common/findings.h).
EMU_FINDINGS = [
    {"source": "emulator", "kind": "cuda_error", "error": "cudaErrorInvalidConfiguration",
     "text": "launch of increment_kernel at starter/increment/increment.c:36 failed: a grid of 0 x 1 x 1 blocks; "
             "each dimension must be at least 1, so the kernel did not run. Is the block count computed right "
             "(rounded up, not down to 0)?"},
    {"source": "harness", "kind": "cuda_error", "error": "cudaErrorInvalidConfiguration",
     "text": "CUDA error: cudaGetLastError() failed at starter/increment/increment.c:37: invalid configuration "
             "argument (cudaErrorInvalidConfiguration)"},
]


def test_a_cuda_error_reason_says_the_error_once():
    outcome = RunOutcome(EXIT_CUDA, None, 0.1, False, "", EMU_STDERR, False, False)
    verdict, reason = runtime_error(outcome, 30, EMU_FINDINGS)
    assert verdict == RE
    assert reason.count("invalid configuration argument") == 1 and reason.count("cudaErrorInvalidConfiguration") == 1
    assert reason.endswith("(rounded up, not down to 0)?")


def test_grader_and_program_name_a_kit_file_by_the_same_path():
    lab = load_lab("increment")
    starter = Grader(lab, Source("starter", STARTER_DIR), emu=True, log=lambda *_: None, sandbox="off")
    said = "CUDA error: cudaGetLastError() failed at starter/increment/increment.c:37: x"
    assert starter.source.shorten(said) == said
    assert starter.source.shorten(f"failed at {KIT_ROOT.resolve()}/starter/increment/increment.c:37") == \
        "failed at starter/increment/increment.c:37"
    # A submission's copy lives in the grader's folders: its reasons name the student's own file.
    unpacked = BUILD_DIR / "unpacked" / "alice-0123" / "increment"
    sub = Grader(lab, Source("sub-alice", unpacked.parent, submission=True), emu=True, log=lambda *_: None, sandbox="off")
    assert sub.source.shorten("failed at build/unpacked/alice-0123/increment/increment.c:10") == \
        "failed at increment/increment.c:10"


class Stream(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


@pytest.mark.parametrize("tty", [False, True])
def test_make_check_prints_each_verdict_once(tty):
    # The progress of `check` says which case is done; the verdict and reason are the table's.
    stream = Stream(tty)
    progress = cli.CheckProgress(stream)
    progress.log("building increment from starter ...")
    progress.result(CaseResult("ragged", "WA", "entry 960: expected 3.37, got 0.37", 0.0, 1.0))
    progress.log("  n1: compute-sanitizer --tool memcheck ...")
    progress.clear()
    text = stream.getvalue()
    assert "WA" not in text and "entry 960" not in text and "ragged: graded" in text
    assert "building increment from starter ..." in text and "n1: compute-sanitizer" in text


def test_bench_under_the_emulator_says_so_before_building(monkeypatch, capsys):
    lab = load_lab("increment")
    monkeypatch.setattr(cli, "load_lab", lambda _: lab.__class__(**{**lab.__dict__, "emu_bench": ()}))
    monkeypatch.setattr(cli, "build_lab", lambda *a, **k: pytest.fail("built before saying it cannot run"))
    assert cli.main(["bench", "increment", "--emu"]) == 2
    err = capsys.readouterr().err
    assert "take hours under the CPU emulator" in err and "[bench] emu_runs" in err and "GPU node" in err


def test_words_on_stderr_decide_nothing():
    """A program cannot turn its verdict by what it prints: a race is the race detector's exit
    status, its reason the emulator's record; a line that only looks like one is a line."""
    said = "cuda-emu: data race on __shared__ tile: thread (1,0,0) writes it ...\nTODO not done: x (a.c:1)\n"
    assert runtime_error(RunOutcome(0, None, 0.1, False, "", said, False, False), 30) is None
    race = {"source": "emulator", "kind": "race", "text": "data race on __shared__ tile: the record's words"}
    verdict, reason = runtime_error(RunOutcome(EXIT_RACE, None, 0.1, False, "", said, False, False), 30, [race])
    assert (verdict, reason) == (RE, "data race on __shared__ tile: the record's words")
    verdict, reason = runtime_error(RunOutcome(EXIT_TODO, None, 0.1, False, "", said, False, False), 30)
    assert (verdict, reason) == (RE, "stopped at a TODO")
