"""--sanitize: compute-sanitizer's output turned into one line of a verdict reason."""

from grader.sanitize import findings

MEMCHECK = """========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at increment_kernel(float *, int)+0x80 in increment.c:9
=========     by thread (40,0,0) in block (10,0,0)
=========
========= ERROR SUMMARY: 33 errors
"""


def test_errors_name_the_first_one_and_its_line():
    assert findings("memcheck", MEMCHECK) == ("memcheck: 33 errors; first: Invalid __global__ write of size 4 "
                                              "bytes at increment_kernel(float *, int)+0x80 in increment.c:9")


def test_no_errors():
    assert findings("racecheck", "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n") is None


def test_a_sanitizer_that_did_not_run_is_said_and_not_blamed_on_the_student():
    got = findings("memcheck", "========= Error: Device not supported\n")
    assert got.startswith("memcheck: could not check") and "Device not supported" in got


def test_a_racecheck_summary_counts_its_errors():
    text = ("========= COMPUTE-SANITIZER\n========= Error: Race reported between Write access at k(int*)+0x10 in x.cu:5\n"
            "=========     and Read access at k(int*)+0x20 in x.cu:6 [64 hazards]\n"
            "========= RACECHECK SUMMARY: 20 hazards displayed (80 errors, 0 warnings)\n")
    assert findings("racecheck", text).startswith("racecheck: 80 errors; first: Error: Race reported between")
    clean = "========= COMPUTE-SANITIZER\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n"
    assert findings("racecheck", clean) is None
