"""Builds through the real Makefile: a compile error is CE with the compiler's first error."""

import subprocess

from grader.build import build_lab, first_error
from grader.grade import Grader, Source
from grader.labs import load_lab
from grader.paths import KIT_ROOT, SOLUTIONS_DIR
from grader.verdict import CE

from support import needs_nvcc


def test_first_error_picks_the_compiler_line():
    log = ("nvcc -c x.cu\nbuild/x/increment.cu(12): error: identifier \"idx\" is undefined\n"
           "1 error detected\nmake: *** [Makefile:9] Error 1\n")
    assert first_error(log) == 'build/x/increment.cu(12): error: identifier "idx" is undefined'


@needs_nvcc
def test_compile_error_is_ce_for_every_case(tmp_path):
    source = (SOLUTIONS_DIR / "increment" / "increment.c").read_text()
    (tmp_path / "increment.c").write_text(source + "\nvoid broken(void) { undefined_name = 1; }\n")
    grader = Grader(load_lab("increment"), Source("sub-broken", tmp_path), emu=False, log=lambda *_: None)
    report = grader.grade()
    assert {r.verdict for r in report.results} == {CE}
    assert "increment.c(" in report.results[0].reason and "error" in report.results[0].reason
    assert "undefined_name" in report.results[0].reason
    assert report.score == 0


@needs_nvcc
def test_missing_student_file_is_ce_naming_it(tmp_path):
    result = build_lab(load_lab("increment"), src_root=tmp_path, build_dir=tmp_path / "build", emu=False)
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
