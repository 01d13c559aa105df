"""The CUDA lab kit's grader: builds a lab, runs its testcases with limits, compares, reports."""

KIT_VERSION = "0.1.0"
