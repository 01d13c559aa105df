"""Builds through the real Makefile: a compile error is CE with the compiler's first error."""

import subprocess

import pytest

from grader.build import build_lab, first_error
from grader.grade import Grader
from grader.intake import Source
from grader.labs import load_lab
from grader.paths import KIT_ROOT, SOLUTIONS_DIR
from grader.verdict import CE

from support import needs_nvcc


def test_first_error_falls_back_to_makes_own_line():
    log = "make: *** No rule to make target 'apsp'.  Stop.\n"
    assert first_error(log) == "make: *** No rule to make target 'apsp'.  Stop."


def test_first_error_picks_the_compiler_line():
    log = ("nvcc -c x.cu\nbuild/x/increment.cu(12): error: identifier \"idx\" is undefined\n"
           "1 error detected\nmake: *** [Makefile:9] Error 1\n")
    assert first_error(log) == 'build/x/increment.cu(12): error: identifier "idx" is undefined'


def test_a_link_error_names_the_missing_function_not_a_command_line():
    log = ("g++ -std=c++17 -O2 x.o main.cpp.o -o increment -pthread\n"
           "/usr/bin/ld: main.cpp.o: in function `run_student_code(int)':\n"
           "main.cpp:64: undefined reference to `device_free(float*)'\n"
           "collect2: error: ld returned 1 exit status\n")
    assert first_error(log).startswith("link error: device_free(float*) is not defined")


def test_a_removed_cuda_function_is_named_with_its_replacement():
    log = 'fw.cu(40): error: identifier "cudaThreadSynchronize" is undefined\n'
    assert first_error(log).endswith("(cudaThreadSynchronize was removed from CUDA; use cudaDeviceSynchronize)")
    said = ("fw.c:67: error: call to 'cudaThreadSynchronize' declared with attribute error: cudaThreadSynchronize "
            "was removed from CUDA (nvcc 13 does not declare it); use cudaDeviceSynchronize")
    assert first_error(said + "\n", emu=True) == said  # the emulator's own error says it once


@needs_nvcc
def test_compile_error_is_ce_for_every_case(tmp_path):
    source = (SOLUTIONS_DIR / "increment" / "increment.c").read_text()
    (tmp_path / "increment.c").write_text(source + "\nvoid broken(void) { undefined_name = 1; }\n")
    grader = Grader(load_lab("increment"), Source("sub-broken", tmp_path, submission=True), emu=False, log=lambda *_: None)
    report = grader.grade()
    assert {r.verdict for r in report.results} == {CE}
    assert "increment.c(" in report.results[0].reason and "error" in report.results[0].reason
    assert "undefined_name" in report.results[0].reason
    assert report.score == 0


@needs_nvcc
def test_missing_student_file_is_ce_naming_it(tmp_path):
    result = build_lab(load_lab("increment"), src_root=tmp_path, build_dir=tmp_path / "build", emu=False, submission=True)
    assert not result.ok
    assert "increment.c is missing" in result.reason


@needs_nvcc
def test_make_builds_starter_and_solution_into_separate_folders(tmp_path):
    for flavor in ([], ["SOL=1"]):
        proc = subprocess.run(["make", "-s", "increment", f"BUILD={tmp_path}/b{len(flavor)}", *flavor],
                              cwd=KIT_ROOT, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "b0/increment/increment").exists()
    assert (tmp_path / "b1/increment/increment").exists()
    # the .cu is the student's file behind a #line naming it, so messages point at the .c file
    assert (tmp_path / "b0/increment/increment.cu").read_text() == \
        '#line 1 "starter/increment/increment.c"\n' + (KIT_ROOT / "starter/increment/increment.c").read_text()


@pytest.mark.parametrize("emu, asan, flavor", [(True, False, "solution"), (True, True, "starter"),
                                               (True, True, "solution")])
def test_the_makefile_and_the_grader_name_build_folders_alike(emu, asan, flavor):
    """build_dir_for is the grader's one source for a build folder's name; the Makefile's BUILD
    (make's own default, what a student's `make` uses) must agree with it."""
    from grader.build import build_dir_for
    from grader.intake import Source
    from grader.paths import KIT_ROOT, SOLUTIONS_DIR, STARTER_DIR
    args = ["make", "-s", "--no-print-directory", "-C", str(KIT_ROOT), "--eval", "print-build: ; @echo $(BUILD)",
            "print-build", f"EMU={1 if emu else 0}"] + (["ASAN=1"] if asan else []) + (["SOL=1"] if flavor == "solution" else [])
    made = subprocess.run(args, capture_output=True, text=True, check=True).stdout.split()[-1]
    source = Source(flavor, SOLUTIONS_DIR if flavor == "solution" else STARTER_DIR)
    assert KIT_ROOT / made == build_dir_for(source, emu, asan)


@pytest.mark.parametrize("submission", [True, False])
def test_a_builds_trust_is_the_sources_flag_not_its_folder(submission, tmp_path, monkeypatch):
    """The kit's own solutions/ folder handed in as a submission is built as one: its build folder
    cleared first and the sandbox asked for a submission's strictness (and the other way round)."""
    from grader import build
    from grader.run import RunOutcome
    from grader.sandbox import Sandbox
    asked = []
    monkeypatch.setattr(build, "build_harness", lambda lab, **_: (tmp_path / "harness", None))
    monkeypatch.setattr(build, "sandbox_for", lambda mode, *, submission: asked.append(submission) or
                        Sandbox(False, "off in this test"))
    monkeypatch.setattr(build, "run_program", lambda cmd, **_: RunOutcome(2, None, 0.1, False, "", "stop", False, False))
    stale = tmp_path / "build" / "increment" / "increment.o"
    stale.parent.mkdir(parents=True)
    stale.write_text("an object from another build")
    build_lab(load_lab("increment"), src_root=SOLUTIONS_DIR, build_dir=tmp_path / "build", emu=True,
              submission=submission)
    assert asked == [submission]
    assert stale.exists() is not submission
