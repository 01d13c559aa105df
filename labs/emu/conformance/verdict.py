"""A program's own verdict, read from its output: the conformance runs count a program that
exits 0 but says it failed (cuda-samples' "Test failed", HeCBench's "FAIL") as failed, and say
whether it claimed to pass at all (a program that checks nothing prints neither)."""

import re

# Whole words, in the spellings the suites print: FAILED, FAIL, "Test failed", "Result = FAIL".
FAILURE = re.compile(r"^.*(?:\bFAIL(?:ED|URE)?\b|\b[Tt]est [Ff]ailed\b).*$", re.M)
SUCCESS = re.compile(r"\bPASS(?:ED)?\b|\b[Tt]est [Pp]assed\b|\bSUCCESS\b|\bsuccess(?:ful)?\b", re.M)


def failure_line(output):
    """The first line in which the program says it failed, or None."""
    match = FAILURE.search(output)
    return match.group(0).strip()[:220] if match else None


def claims_success(output):
    """Whether the program said it passed (PASS, PASSED, "Test passed", SUCCESS)."""
    return SUCCESS.search(output) is not None
